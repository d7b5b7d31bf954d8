package notify

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Event types a webhook can hear.
const (
	EventFindingNew      = "finding.new"
	EventFindingResolved = "finding.resolved"
	EventDueSoon         = "assignment.due_soon"
	EventOverdue         = "assignment.overdue"
	EventHostSilent      = "host.silent"
	EventFeedStale       = "feed.stale"
	EventPing            = "ping" // POST /api/webhooks/{id}/test
)

// EventTypes lists the types a webhook may subscribe to.
var EventTypes = []string{EventFindingNew, EventFindingResolved, EventDueSoon, EventOverdue, EventHostSilent, EventFeedStale}

// Finding is a finding as events tell it.
type Finding struct {
	CVEID       string   `json:"cve_id"`
	ProductID   int64    `json:"product_id"`
	Vendor      string   `json:"vendor"`
	Product     string   `json:"product"`
	Version     string   `json:"version"`
	Severity    string   `json:"severity"`
	Score       float64  `json:"score"`
	KEV         bool     `json:"kev"`
	Criticality int      `json:"criticality"`
	Hosts       []string `json:"hosts"`
}

// Data is the body of an event. Finding events carry one finding, or (Digest) every finding
// of a flood with their count; the others carry what they are about.
type Data struct {
	Digest     bool           `json:"digest,omitempty"`
	Count      int            `json:"count,omitempty"`
	Findings   []Finding      `json:"findings,omitempty"`
	Assignment *AssignmentRef `json:"assignment,omitempty"`
	Host       *HostRef       `json:"host,omitempty"`
	Feed       *FeedRef       `json:"feed,omitempty"`
	Message    string         `json:"message,omitempty"`
}

// AssignmentRef names an assignment near or past its due date.
type AssignmentRef struct {
	ID       int64  `json:"id"`
	CVEID    string `json:"cve_id,omitempty"`
	Product  string `json:"product,omitempty"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
	DueDate  string `json:"due_date"`
	Assignee string `json:"assigned_to,omitempty"`
}

// HostRef names a silent host.
type HostRef struct {
	ID         int64     `json:"id"`
	Hostname   string    `json:"hostname"`
	LastSeenAt time.Time `json:"last_seen_at"`
}

// FeedRef names a stale source.
type FeedRef struct {
	Source      string     `json:"source"`
	LastSuccess *time.Time `json:"last_success"`
}

func toFinding(f appliance.FindingNotice) Finding {
	hosts := f.Hosts
	if hosts == nil {
		hosts = []string{}
	}
	return Finding{CVEID: f.CVEID, ProductID: f.ProductID, Vendor: f.Vendor, Product: f.Product, Version: f.Version,
		Severity: f.Severity, Score: f.Score, KEV: f.KEV, Criticality: f.Criticality, Hosts: hosts}
}

var severityRank = map[string]int{"": 0, "none": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}

// ValidSeverity tells whether s can be a webhook's minimum severity.
func ValidSeverity(s string) bool {
	_, ok := severityRank[s]
	return ok && s != "none"
}

// passes tells whether a new finding reaches the webhook's threshold: KEV findings always do.
func passes(w appliance.Webhook, f Finding) bool {
	return f.KEV || (severityRank[f.Severity] >= severityRank[w.MinSeverity] && f.Score >= w.MinScore)
}

// forWebhook is the event's data as webhook w is told it, false when w does not hear it.
func forWebhook(w appliance.Webhook, typ string, d Data) (Data, bool) {
	if !w.Enabled || !slices.Contains(w.Events, typ) {
		return Data{}, false
	}
	if typ != EventFindingNew {
		return d, true
	}
	kept := []Finding{}
	for _, f := range d.Findings {
		if passes(w, f) {
			kept = append(kept, f)
		}
	}
	if len(kept) == 0 {
		return Data{}, false
	}
	if d.Digest {
		d.Count = len(kept)
	}
	d.Findings = kept
	return d, true
}

// Summary is the one-line text of an event (chat presets, mail).
func Summary(typ string, d Data) string {
	switch {
	case d.Message != "":
		return d.Message
	case d.Digest:
		verb := "new"
		if typ == EventFindingResolved {
			verb = "resolved"
		}
		kev := 0
		for _, f := range d.Findings {
			if f.KEV {
				kev++
			}
		}
		return fmt.Sprintf("%d %s findings (%d in CISA KEV)", d.Count, verb, kev)
	case len(d.Findings) == 1:
		return findingLine(typ, d.Findings[0])
	case d.Assignment != nil:
		a := d.Assignment
		what := "is due soon"
		if typ == EventOverdue {
			what = "is overdue"
		}
		return fmt.Sprintf("Assignment #%d (%s %s, %s) %s: due %s", a.ID, a.CVEID, a.Product, a.Priority, what, a.DueDate)
	case d.Host != nil:
		return fmt.Sprintf("Host %s has been silent since %s", d.Host.Hostname, d.Host.LastSeenAt.Format(time.RFC3339))
	case d.Feed != nil:
		return fmt.Sprintf("Feed %s is stale", d.Feed.Source)
	}
	return typ
}

func findingLine(typ string, f Finding) string {
	verb := "New finding"
	if typ == EventFindingResolved {
		verb = "Resolved"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s in %s %s", verb, f.CVEID, strings.TrimSpace(f.Vendor+" "+f.Product), f.Version)
	if f.Severity != "" {
		fmt.Fprintf(&b, " (%s %.1f)", f.Severity, f.Score)
	}
	if f.KEV {
		b.WriteString(" [CISA KEV]")
	}
	if len(f.Hosts) > 0 {
		fmt.Fprintf(&b, " on %s", strings.Join(f.Hosts, ", "))
	}
	return b.String()
}

// envelope is the body of a json-format delivery.
type envelope struct {
	ID             string    `json:"id"`
	Type           string    `json:"type"`
	OrganizationID int64     `json:"organization_id"`
	CreatedAt      time.Time `json:"created_at"`
	Data           Data      `json:"data"`
}

// Body renders a delivery for the webhook's format: the signed JSON envelope, a Slack
// incoming-webhook message ({"text"}), or a Microsoft Teams MessageCard.
func Body(format, deliveryID, typ string, orgID int64, at time.Time, d Data) ([]byte, error) {
	text := Summary(typ, d)
	switch format {
	case FormatSlack:
		return json.Marshal(map[string]string{"text": "[vulnkeeper] " + text})
	case FormatTeams:
		return json.Marshal(map[string]string{"@type": "MessageCard", "@context": "https://schema.org/extensions",
			"summary": text, "title": "vulnkeeper: " + typ, "text": text})
	}
	return json.Marshal(envelope{ID: deliveryID, Type: typ, OrganizationID: orgID, CreatedAt: at.UTC(), Data: d})
}

// Webhook formats.
const (
	FormatJSON  = "json"
	FormatSlack = "slack"
	FormatTeams = "teams"
)
