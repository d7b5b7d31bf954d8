package scans_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/scans"
)

// The derived due date follows the most severe finding the target covers; a KEV CVE gets the
// critical window whatever its severity, and its federal date is kept beside it.
func TestDueDateDerivation(t *testing.T) {
	w := newWorld(t)
	pastKEV := day("2025-01-01")
	w.seedCVE(t, "CVE-C", "critical", 9.8, time.Time{})
	w.seedCVE(t, "CVE-H", "high", 7.5, time.Time{})
	w.seedCVE(t, "CVE-M", "medium", 5.0, time.Time{})
	w.seedCVE(t, "CVE-L", "low", 2.0, time.Time{})
	w.seedCVE(t, "CVE-KEV-LOW", "low", 3.0, pastKEV)
	w.seedCVE(t, "CVE-KEV-SOON", "medium", 5.0, day("2025-03-15"))
	prod := w.seedProduct(t, w.acme, "h1", "multi", "CVE-M", "CVE-H", "CVE-L")
	kevProd := w.seedProduct(t, w.acme, "h1", "kev", "CVE-L", "CVE-KEV-LOW")
	w.submit(t, w.acme, "h1", scans.ImageScan{Reference: "app", ImageID: digestA,
		ScanResults: trivyReport(t, [2]string{"CVE-SCANNED-ONLY", "HIGH"})})
	tests := []struct {
		name    string
		in      scans.Input
		due     string
		kevDue  string
		product int64
	}{
		{"critical CVE: 15 days", scans.Input{CVEID: ptr("CVE-C")}, "2025-03-25", "", 0},
		{"high CVE: 30 days", scans.Input{CVEID: ptr("cve-h")}, "2025-04-09", "", 0},
		{"medium CVE: 90 days", scans.Input{CVEID: ptr("CVE-M")}, "2025-06-08", "", 0},
		{"low CVE: 180 days", scans.Input{CVEID: ptr("CVE-L")}, "2025-09-06", "", 0},
		{"KEV with low CVSS: critical window, past federal date shown", scans.Input{CVEID: ptr("CVE-KEV-LOW")}, "2025-03-25", "2025-01-01", 0},
		{"KEV due sooner than the window", scans.Input{CVEID: ptr("CVE-KEV-SOON")}, "2025-03-15", "2025-03-15", 0},
		{"scanned only: scanner severity", scans.Input{CVEID: ptr("CVE-SCANNED-ONLY")}, "2025-04-09", "", 0},
		{"product: most severe of its matches", scans.Input{ProductID: ptr(prod.productID)}, "2025-04-09", "", prod.productID},
		{"product with a KEV match", scans.Input{ProductID: ptr(kevProd.productID)}, "2025-03-25", "2025-01-01", kevProd.productID},
		{"match: its CVE, product filled in", scans.Input{MatchID: ptr(prod.matchIDs["CVE-M"])}, "2025-06-08", "", prod.productID},
		{"explicit due date wins", scans.Input{CVEID: ptr("CVE-C"), DueDate: ptr("2031-01-31")}, "2031-01-31", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.AssignedTo = ptr("bob")
			rec, err := w.remediation.Create(context.Background(), w.alice, in)
			if err != nil {
				t.Fatal(err)
			}
			if got := rec.DueDate.Format(time.DateOnly); got != tt.due {
				t.Errorf("due %s, want %s", got, tt.due)
			}
			if got := dateString(rec.KEVDueDate); got != tt.kevDue {
				t.Errorf("kev due %q, want %q", got, tt.kevDue)
			}
			if rec.ProductID != tt.product || rec.Status != "open" || rec.Priority != "medium" || rec.AssignedToName != "bob" ||
				rec.CreatedByName != "alice" || rec.Overdue {
				t.Errorf("record %+v", rec.Assignment)
			}
		})
	}
}

func dateString(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.DateOnly)
}

func TestSLAPolicyChangesDerivation(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.seedCVE(t, "CVE-C", "critical", 9.8, time.Time{})
	if p, err := w.remediation.Policy(ctx, w.acme); err != nil || p.Critical != 15 || p.High != 30 || p.Medium != 90 || p.Low != 180 {
		t.Fatalf("default policy %+v, %v", p, err)
	}
	if _, err := w.remediation.UpdatePolicy(ctx, w.bob, scans.PolicyInput{Critical: ptr(7)}); !errors.Is(err, appliance.ErrForbidden) {
		t.Errorf("member changes the policy: %v", err)
	}
	_, err := w.remediation.UpdatePolicy(ctx, w.alice, scans.PolicyInput{Low: ptr(0)})
	wantValidation(t, err, "sla.low")
	if _, err := w.remediation.UpdatePolicy(ctx, w.alice, scans.PolicyInput{Critical: ptr(7)}); err != nil {
		t.Fatal(err)
	}
	if p, _ := w.remediation.Policy(ctx, w.acme); p.Critical != 7 || p.High != 30 {
		t.Errorf("stored policy %+v, want critical 7, high unchanged", p)
	}
	if p, _ := w.remediation.Policy(ctx, w.globex); p.Critical != 15 {
		t.Errorf("globex policy %+v changed with acme's", p)
	}
	rec, err := w.remediation.Create(ctx, w.alice, scans.Input{AssignedTo: ptr("bob"), CVEID: ptr("CVE-C")})
	if err != nil || rec.DueDate.Format(time.DateOnly) != "2025-03-17" {
		t.Errorf("due %v (%v), want 2025-03-17", rec.DueDate, err)
	}
}

func TestCreateRefusals(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.seedCVE(t, "CVE-C", "critical", 9.8, time.Time{})
	acmeProd := w.seedProduct(t, w.acme, "h1", "p", "CVE-C")
	globexProd := w.seedProduct(t, w.globex, "g1", "p", "CVE-C")
	tests := []struct {
		name  string
		in    scans.Input
		field string
	}{
		{"no assignee", scans.Input{CVEID: ptr("CVE-C")}, "assigned_to"},
		{"unknown assignee", scans.Input{AssignedTo: ptr("mallory"), CVEID: ptr("CVE-C")}, "assigned_to"},
		{"assignee of another organization", scans.Input{AssignedTo: ptr("carol"), CVEID: ptr("CVE-C")}, "assigned_to"},
		{"no target", scans.Input{AssignedTo: ptr("bob")}, "match_id"},
		{"unknown CVE", scans.Input{AssignedTo: ptr("bob"), CVEID: ptr("CVE-2099-0001")}, "cve_id"},
		{"product of another organization", scans.Input{AssignedTo: ptr("bob"), ProductID: ptr(globexProd.productID)}, "product_id"},
		{"match of another organization", scans.Input{AssignedTo: ptr("bob"), MatchID: ptr(globexProd.matchIDs["CVE-C"])}, "match_id"},
		{"match and another product", scans.Input{AssignedTo: ptr("bob"), MatchID: ptr(acmeProd.matchIDs["CVE-C"]), ProductID: ptr(globexProd.productID)}, "product_id"},
		{"product not affected by the CVE", scans.Input{AssignedTo: ptr("bob"), ProductID: ptr(acmeProd.productID), CVEID: ptr("CVE-9")}, "cve_id"},
		{"unknown priority", scans.Input{AssignedTo: ptr("bob"), CVEID: ptr("CVE-C"), Priority: ptr("urgent")}, "priority"},
		{"malformed due date", scans.Input{AssignedTo: ptr("bob"), CVEID: ptr("CVE-C"), DueDate: ptr("next week")}, "due_date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := w.remediation.Create(ctx, w.alice, tt.in)
			wantValidation(t, err, tt.field)
		})
	}
	if _, err := w.remediation.Create(ctx, w.bob, scans.Input{AssignedTo: ptr("bob"), CVEID: ptr("CVE-C")}); !errors.Is(err, appliance.ErrForbidden) {
		t.Errorf("member creates: %v, want ErrForbidden", err)
	}
	if _, total, _ := w.remediation.List(ctx, appliance.AssignmentFilter{OrganizationID: w.acme, Page: 1, PerPage: 25}); total != 0 {
		t.Errorf("%d assignments stored by refused creates", total)
	}
}

// Each step of the workflow, through Update, in one sequence that visits every edge kind.
func TestStatusTransitions(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.seedCVE(t, "CVE-C", "critical", 9.8, time.Time{})
	rec, err := w.remediation.Create(ctx, w.alice, scans.Input{AssignedTo: ptr("bob"), CVEID: ptr("CVE-C")})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		to, notes string
		errField  string
		resolved  bool
	}{
		{"in_progress", "", "", false},
		{"open", "", "", false},
		{"resolved", "", "", true},
		{"in_progress", "", "status", true}, // resolved reopens to open only
		{"accepted_risk", "", "status", true},
		{"open", "", "", false},
		{"accepted_risk", "  ", "notes", false},
		{"accepted_risk", "compensating control: WAF", "", true},
		{"in_progress", "", "", false},
		{"false_positive", "not reachable", "", true},
		{"resolved", "", "status", true},
		{"open", "", "", false},
		{"done", "", "status", false},
	}
	for i, st := range steps {
		in := scans.Input{Status: ptr(st.to)}
		if st.notes != "" {
			in.Notes = ptr(st.notes)
		}
		got, err := w.remediation.Update(ctx, w.bob, rec.ID, in)
		if st.errField != "" {
			wantValidation(t, err, st.errField)
			continue
		}
		if err != nil {
			t.Fatalf("step %d to %s: %v", i, st.to, err)
		}
		if got.Status != st.to || got.ResolvedAt.IsZero() == st.resolved {
			t.Errorf("step %d: status %s resolved_at %v, want %s (resolved %v)", i, got.Status, got.ResolvedAt, st.to, st.resolved)
		}
	}
	final, _ := w.remediation.Get(ctx, w.acme, rec.ID)
	if len(final.History) != 9 || final.History[0].To != "open" || final.History[8].To != "open" {
		t.Errorf("history has %d events: %+v; want creation plus 8 changes", len(final.History), final.History)
	}
}

func TestUpdateFieldsAndOverdue(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	w.seedCVE(t, "CVE-C", "critical", 9.8, time.Time{})
	rec, err := w.remediation.Create(ctx, w.alice, scans.Input{AssignedTo: ptr("alice"), CVEID: ptr("CVE-C"), DueDate: ptr("2025-03-09")})
	if err != nil || !rec.Overdue {
		t.Fatalf("create with a past due date: overdue %v, %v", rec.Overdue, err)
	}
	got, err := w.remediation.Update(ctx, w.bob, rec.ID, scans.Input{AssignedTo: ptr("bob"), Priority: ptr("high"),
		DueDate: ptr("2025-03-10"), Notes: ptr("Friday")})
	if err != nil || got.AssignedToName != "bob" || got.Priority != "high" || got.Notes != "Friday" || got.Overdue {
		t.Errorf("updated %+v overdue %v, %v", got.Assignment, got.Overdue, err)
	}
	_, err = w.remediation.Update(ctx, w.bob, rec.ID, scans.Input{ProductID: ptr(int64(1))})
	wantValidation(t, err, "product_id")
	if _, err := w.remediation.Update(ctx, w.carol, rec.ID, scans.Input{Notes: ptr("x")}); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("globex updates acme's assignment: %v", err)
	}
	if _, err := w.remediation.Get(ctx, w.globex, rec.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("globex reads acme's assignment: %v", err)
	}
	if err := w.remediation.Delete(ctx, w.bob, rec.ID); !errors.Is(err, appliance.ErrForbidden) {
		t.Errorf("member deletes: %v", err)
	}
	if err := w.remediation.Delete(ctx, w.carol, rec.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("globex admin deletes acme's: %v", err)
	}
	if err := w.remediation.Delete(ctx, w.alice, rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := w.remediation.Get(ctx, w.acme, rec.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("deleted assignment still readable: %v", err)
	}
}
