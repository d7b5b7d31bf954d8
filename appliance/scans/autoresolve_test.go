package scans_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/scans"
)

// An active assignment whose finding disappears resolves itself with a system event; the
// others (finding still there, never present, already closed) stay as they are.
func TestAutoResolve(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	for _, id := range []string{"CVE-A", "CVE-B", "CVE-C", "CVE-FEED-ONLY"} {
		w.seedCVE(t, id, "high", 7.5, time.Time{})
	}
	upgraded := w.seedProduct(t, w.acme, "h1", "upgraded", "CVE-A")
	rematched := w.seedProduct(t, w.acme, "h1", "rematched", "CVE-A", "CVE-B")
	kept := w.seedProduct(t, w.acme, "h1", "kept", "CVE-C")
	w.submit(t, w.acme, "h1", scans.ImageScan{Reference: "app", ImageID: digestA, ScanResults: trivyReport(t, [2]string{"CVE-SCAN", "LOW"})})
	create := func(in scans.Input) int64 {
		in.AssignedTo = ptr("bob")
		rec, err := w.remediation.Create(ctx, w.alice, in)
		if err != nil {
			t.Fatal(err)
		}
		return rec.ID
	}
	ids := map[string]int64{
		"product uninstalled":         create(scans.Input{ProductID: ptr(upgraded.productID)}),
		"match removed":               create(scans.Input{MatchID: ptr(rematched.matchIDs["CVE-B"])}),
		"CVE no longer scanned":       create(scans.Input{CVEID: ptr("CVE-SCAN")}),
		"match still there":           create(scans.Input{MatchID: ptr(rematched.matchIDs["CVE-A"])}),
		"CVE still matched elsewhere": create(scans.Input{CVEID: ptr("CVE-A")}),
		"product still installed":     create(scans.Input{ProductID: ptr(kept.productID)}),
		"CVE never in the org":        create(scans.Input{CVEID: ptr("CVE-FEED-ONLY")}),
	}
	closed := create(scans.Input{ProductID: ptr(upgraded.productID)})
	if _, err := w.remediation.Update(ctx, w.bob, closed, scans.Input{Status: ptr("false_positive"), Notes: ptr("n/a")}); err != nil {
		t.Fatal(err)
	}
	if n, err := w.remediation.AutoResolve(ctx); err != nil || n != 0 {
		t.Fatalf("before any change: resolved %d, %v; want 0", n, err)
	}

	w.uninstall(t, upgraded.installationID)
	w.rematch(t, rematched.productID, "CVE-A")
	*w.clock = w.clock.Add(time.Hour)
	if n, err := w.remediation.AutoResolve(ctx); err != nil || n != 2 {
		t.Fatalf("auto-resolved %d, %v; want 2", n, err)
	}
	w.submit(t, w.acme, "h1", scans.ImageScan{Reference: "app", ImageID: digestA, ScanResults: trivyReport(t)}) // resolves CVE-SCAN itself
	if n, err := w.remediation.AutoResolve(ctx); err != nil || n != 0 {
		t.Fatalf("after the rescan's own pass: resolved %d, %v; want 0", n, err)
	}
	wantResolved := map[string]bool{"product uninstalled": true, "match removed": true, "CVE no longer scanned": true}
	for name, id := range ids {
		rec, err := w.remediation.Get(ctx, w.acme, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.Status == "resolved"; got != wantResolved[name] {
			t.Errorf("%s: status %s", name, rec.Status)
			continue
		}
		if wantResolved[name] {
			last := rec.History[len(rec.History)-1]
			if last.By != 0 || last.From != "open" || last.To != "resolved" || last.Note == "" || !rec.ResolvedAt.Equal(*w.clock) {
				t.Errorf("%s: last event %+v, resolved_at %v; want a system event", name, last, rec.ResolvedAt)
			}
		}
	}
	if rec, _ := w.remediation.Get(ctx, w.acme, closed); rec.Status != "false_positive" {
		t.Errorf("closed assignment changed to %s", rec.Status)
	}
}

func TestListAssignments(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.seedCVE(t, "CVE-1", "critical", 9.8, time.Time{})
	w.seedCVE(t, "CVE-2", "low", 2.0, time.Time{})
	prod := w.seedProduct(t, w.acme, "h1", "openssl", "CVE-1")
	mk := func(in scans.Input) int64 {
		rec, err := w.remediation.Create(ctx, w.alice, in)
		if err != nil {
			t.Fatal(err)
		}
		*w.clock = w.clock.Add(time.Minute)
		return rec.ID
	}
	a := mk(scans.Input{AssignedTo: ptr("bob"), CVEID: ptr("CVE-1"), Priority: ptr("critical"), Notes: ptr("patch the edge")})
	b := mk(scans.Input{AssignedTo: ptr("alice"), CVEID: ptr("CVE-2"), Priority: ptr("low"), DueDate: ptr("2025-03-01")})
	c := mk(scans.Input{AssignedTo: ptr("bob"), ProductID: ptr(prod.productID), Priority: ptr("high")})
	if _, err := w.remediation.Create(ctx, w.carol, scans.Input{AssignedTo: ptr("carol"), CVEID: ptr("CVE-1")}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		f    appliance.AssignmentFilter
		want []int64
	}{
		{"default: due date ascending", appliance.AssignmentFilter{}, []int64{b, a, c}},
		{"status", appliance.AssignmentFilter{Status: "open"}, []int64{b, a, c}},
		{"priority", appliance.AssignmentFilter{Priority: "low"}, []int64{b}},
		{"assigned_to", appliance.AssignmentFilter{AssignedTo: "BOB"}, []int64{a, c}},
		{"cve_id", appliance.AssignmentFilter{CVEID: "cve-1"}, []int64{a}},
		{"product_id", appliance.AssignmentFilter{ProductID: prod.productID}, []int64{c}},
		{"overdue", appliance.AssignmentFilter{Overdue: true}, []int64{b}},
		{"search notes", appliance.AssignmentFilter{Search: "edge"}, []int64{a}},
		{"search product name", appliance.AssignmentFilter{Search: "openss"}, []int64{c}},
		{"search CVE id", appliance.AssignmentFilter{Search: "CVE-2"}, []int64{b}},
		{"priority descending", appliance.AssignmentFilter{Sort: "priority", Desc: true}, []int64{a, c, b}},
		{"created_at descending, page 2", appliance.AssignmentFilter{Sort: "created_at", Desc: true, Page: 2, PerPage: 2}, []int64{a}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.f
			f.OrganizationID = w.acme
			if f.Page == 0 {
				f.Page, f.PerPage = 1, 25
			}
			items, total, err := w.remediation.List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, it := range items {
				got = append(got, it.ID)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) || (f.Page == 1 && total != len(tt.want)) {
				t.Errorf("ids %v (total %d), want %v", got, total, tt.want)
			}
		})
	}
	_, _, err := w.remediation.List(ctx, appliance.AssignmentFilter{OrganizationID: w.acme, Sort: "name", Page: 1, PerPage: 25})
	wantValidation(t, err, "sort")
}

// cancelAfterCommit is the real store; the client's context ends as soon as a write commits.
type cancelAfterCommit struct {
	appliance.Store
	cancel context.CancelFunc
}

func (c cancelAfterCommit) InTx(ctx context.Context, fn func(appliance.Tx) error) error {
	err := c.Store.InTx(ctx, fn)
	c.cancel()
	return err
}

// A rescan whose client left right after the commit still closes the assignments whose CVE
// it removed.
func TestRescanAutoResolvesAfterTheClientLeft(t *testing.T) {
	w := newWorld(t)
	w.submit(t, w.acme, "h1", scans.ImageScan{Reference: "app", ImageID: digestA, ScanResults: trivyReport(t, [2]string{"CVE-SCAN", "LOW"})})
	rec, err := w.remediation.Create(context.Background(), w.alice, scans.Input{AssignedTo: ptr("bob"), CVEID: ptr("CVE-SCAN")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	containers := scans.NewContainers(cancelAfterCommit{Store: w.store, cancel: cancel}, nil)
	if _, err := containers.Submit(ctx, w.acme, "h1", []scans.ImageScan{{Reference: "app", ImageID: digestA, ScanResults: trivyReport(t)}}); err != nil {
		t.Fatal(err)
	}
	if got, err := w.remediation.Get(context.Background(), w.acme, rec.ID); err != nil || got.Status != "resolved" {
		t.Errorf("assignment on the CVE the rescan removed: %s (%v), want resolved", got.Status, err)
	}
}
