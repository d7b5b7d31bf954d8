package remediation_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/containers"
	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"
)

// The derived due date follows the most severe finding the target covers; a KEV CVE gets the
// critical window whatever its severity, and its federal date is kept beside it.
func TestDueDateDerivation(t *testing.T) {
	w := storetest.NewWorld(t)
	pastKEV := storetest.Day("2025-01-01")
	w.SeedCVE(t, "CVE-C", "critical", 9.8, time.Time{})
	w.SeedCVE(t, "CVE-H", "high", 7.5, time.Time{})
	w.SeedCVE(t, "CVE-M", "medium", 5.0, time.Time{})
	w.SeedCVE(t, "CVE-L", "low", 2.0, time.Time{})
	w.SeedCVE(t, "CVE-KEV-LOW", "low", 3.0, pastKEV)
	w.SeedCVE(t, "CVE-KEV-SOON", "medium", 5.0, storetest.Day("2025-03-15"))
	prod := w.SeedProduct(t, w.Acme, "h1", "multi", "CVE-M", "CVE-H", "CVE-L")
	kevProd := w.SeedProduct(t, w.Acme, "h1", "kev", "CVE-L", "CVE-KEV-LOW")
	w.Submit(t, w.Acme, "h1", containers.ImageScan{Reference: "app", ImageID: storetest.DigestA,
		ScanResults: storetest.TrivyReport(t, [2]string{"CVE-SCANNED-ONLY", "HIGH"})})
	tests := []struct {
		name    string
		in      remediation.Input
		due     string
		kevDue  string
		product int64
	}{
		{"critical CVE: 15 days", remediation.Input{CVEID: storetest.Ptr("CVE-C")}, "2025-03-25", "", 0},
		{"high CVE: 30 days", remediation.Input{CVEID: storetest.Ptr("cve-h")}, "2025-04-09", "", 0},
		{"medium CVE: 90 days", remediation.Input{CVEID: storetest.Ptr("CVE-M")}, "2025-06-08", "", 0},
		{"low CVE: 180 days", remediation.Input{CVEID: storetest.Ptr("CVE-L")}, "2025-09-06", "", 0},
		{"KEV with low CVSS: critical window, past federal date shown", remediation.Input{CVEID: storetest.Ptr("CVE-KEV-LOW")}, "2025-03-25", "2025-01-01", 0},
		{"KEV due sooner than the window", remediation.Input{CVEID: storetest.Ptr("CVE-KEV-SOON")}, "2025-03-15", "2025-03-15", 0},
		{"scanned only: scanner severity", remediation.Input{CVEID: storetest.Ptr("CVE-SCANNED-ONLY")}, "2025-04-09", "", 0},
		{"product: most severe of its matches", remediation.Input{ProductID: storetest.Ptr(prod.ProductID)}, "2025-04-09", "", prod.ProductID},
		{"product with a KEV match", remediation.Input{ProductID: storetest.Ptr(kevProd.ProductID)}, "2025-03-25", "2025-01-01", kevProd.ProductID},
		{"match: its CVE, product filled in", remediation.Input{MatchID: storetest.Ptr(prod.MatchIDs["CVE-M"])}, "2025-06-08", "", prod.ProductID},
		{"explicit due date wins", remediation.Input{CVEID: storetest.Ptr("CVE-C"), DueDate: storetest.Ptr("2031-01-31")}, "2031-01-31", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.AssignedTo = storetest.Ptr("bob")
			rec, err := w.Remediation.Create(context.Background(), w.Alice, in)
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
	w := storetest.NewWorld(t)
	ctx := context.Background()
	w.SeedCVE(t, "CVE-C", "critical", 9.8, time.Time{})
	if p, err := w.Remediation.Policy(ctx, w.Acme); err != nil || p.Critical != 15 || p.High != 30 || p.Medium != 90 || p.Low != 180 {
		t.Fatalf("default policy %+v, %v", p, err)
	}
	if _, err := w.Remediation.UpdatePolicy(ctx, w.Bob, remediation.PolicyInput{Critical: storetest.Ptr(7)}); !errors.Is(err, appliance.ErrForbidden) {
		t.Errorf("member changes the policy: %v", err)
	}
	_, err := w.Remediation.UpdatePolicy(ctx, w.Alice, remediation.PolicyInput{Low: storetest.Ptr(0)})
	storetest.WantValidation(t, err, "sla.low")
	if _, err := w.Remediation.UpdatePolicy(ctx, w.Alice, remediation.PolicyInput{Critical: storetest.Ptr(7)}); err != nil {
		t.Fatal(err)
	}
	if p, _ := w.Remediation.Policy(ctx, w.Acme); p.Critical != 7 || p.High != 30 {
		t.Errorf("stored policy %+v, want critical 7, high unchanged", p)
	}
	if p, _ := w.Remediation.Policy(ctx, w.Globex); p.Critical != 15 {
		t.Errorf("globex policy %+v changed with acme's", p)
	}
	rec, err := w.Remediation.Create(ctx, w.Alice, remediation.Input{AssignedTo: storetest.Ptr("bob"), CVEID: storetest.Ptr("CVE-C")})
	if err != nil || rec.DueDate.Format(time.DateOnly) != "2025-03-17" {
		t.Errorf("due %v (%v), want 2025-03-17", rec.DueDate, err)
	}
}

func TestCreateRefusals(t *testing.T) {
	w := storetest.NewWorld(t)
	ctx := context.Background()
	w.SeedCVE(t, "CVE-C", "critical", 9.8, time.Time{})
	acmeProd := w.SeedProduct(t, w.Acme, "h1", "p", "CVE-C")
	globexProd := w.SeedProduct(t, w.Globex, "g1", "p", "CVE-C")
	tests := []struct {
		name  string
		in    remediation.Input
		field string
	}{
		{"no assignee", remediation.Input{CVEID: storetest.Ptr("CVE-C")}, "assigned_to"},
		{"unknown assignee", remediation.Input{AssignedTo: storetest.Ptr("mallory"), CVEID: storetest.Ptr("CVE-C")}, "assigned_to"},
		{"assignee of another organization", remediation.Input{AssignedTo: storetest.Ptr("carol"), CVEID: storetest.Ptr("CVE-C")}, "assigned_to"},
		{"no target", remediation.Input{AssignedTo: storetest.Ptr("bob")}, "match_id"},
		{"unknown CVE", remediation.Input{AssignedTo: storetest.Ptr("bob"), CVEID: storetest.Ptr("CVE-2099-0001")}, "cve_id"},
		{"product of another organization", remediation.Input{AssignedTo: storetest.Ptr("bob"), ProductID: storetest.Ptr(globexProd.ProductID)}, "product_id"},
		{"match of another organization", remediation.Input{AssignedTo: storetest.Ptr("bob"), MatchID: storetest.Ptr(globexProd.MatchIDs["CVE-C"])}, "match_id"},
		{"match and another product", remediation.Input{AssignedTo: storetest.Ptr("bob"), MatchID: storetest.Ptr(acmeProd.MatchIDs["CVE-C"]), ProductID: storetest.Ptr(globexProd.ProductID)}, "product_id"},
		{"product not affected by the CVE", remediation.Input{AssignedTo: storetest.Ptr("bob"), ProductID: storetest.Ptr(acmeProd.ProductID), CVEID: storetest.Ptr("CVE-9")}, "cve_id"},
		{"unknown priority", remediation.Input{AssignedTo: storetest.Ptr("bob"), CVEID: storetest.Ptr("CVE-C"), Priority: storetest.Ptr("urgent")}, "priority"},
		{"malformed due date", remediation.Input{AssignedTo: storetest.Ptr("bob"), CVEID: storetest.Ptr("CVE-C"), DueDate: storetest.Ptr("next week")}, "due_date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := w.Remediation.Create(ctx, w.Alice, tt.in)
			storetest.WantValidation(t, err, tt.field)
		})
	}
	if _, err := w.Remediation.Create(ctx, w.Bob, remediation.Input{AssignedTo: storetest.Ptr("bob"), CVEID: storetest.Ptr("CVE-C")}); !errors.Is(err, appliance.ErrForbidden) {
		t.Errorf("member creates: %v, want ErrForbidden", err)
	}
	if _, total, _ := w.Remediation.List(ctx, appliance.AssignmentFilter{OrganizationID: w.Acme, Page: 1, PerPage: 25}); total != 0 {
		t.Errorf("%d assignments stored by refused creates", total)
	}
}

// Each step of the workflow, through Update, in one sequence that visits every edge kind.
func TestStatusTransitions(t *testing.T) {
	w := storetest.NewWorld(t)
	ctx := context.Background()
	w.SeedCVE(t, "CVE-C", "critical", 9.8, time.Time{})
	rec, err := w.Remediation.Create(ctx, w.Alice, remediation.Input{AssignedTo: storetest.Ptr("bob"), CVEID: storetest.Ptr("CVE-C")})
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
		in := remediation.Input{Status: storetest.Ptr(st.to)}
		if st.notes != "" {
			in.Notes = storetest.Ptr(st.notes)
		}
		got, err := w.Remediation.Update(ctx, w.Bob, rec.ID, in)
		if st.errField != "" {
			storetest.WantValidation(t, err, st.errField)
			continue
		}
		if err != nil {
			t.Fatalf("step %d to %s: %v", i, st.to, err)
		}
		if string(got.Status) != st.to || got.ResolvedAt.IsZero() == st.resolved {
			t.Errorf("step %d: status %s resolved_at %v, want %s (resolved %v)", i, got.Status, got.ResolvedAt, st.to, st.resolved)
		}
	}
	final, _ := w.Remediation.Get(ctx, w.Acme, rec.ID)
	if len(final.History) != 9 || final.History[0].To != "open" || final.History[8].To != "open" {
		t.Errorf("history has %d events: %+v; want creation plus 8 changes", len(final.History), final.History)
	}
}

func TestUpdateFieldsAndOverdue(t *testing.T) {
	w := storetest.NewWorld(t)
	ctx := context.Background()
	w.SeedCVE(t, "CVE-C", "critical", 9.8, time.Time{})
	rec, err := w.Remediation.Create(ctx, w.Alice, remediation.Input{AssignedTo: storetest.Ptr("alice"), CVEID: storetest.Ptr("CVE-C"), DueDate: storetest.Ptr("2025-03-09")})
	if err != nil || !rec.Overdue {
		t.Fatalf("create with a past due date: overdue %v, %v", rec.Overdue, err)
	}
	got, err := w.Remediation.Update(ctx, w.Bob, rec.ID, remediation.Input{AssignedTo: storetest.Ptr("bob"), Priority: storetest.Ptr("high"),
		DueDate: storetest.Ptr("2025-03-10"), Notes: storetest.Ptr("Friday")})
	if err != nil || got.AssignedToName != "bob" || got.Priority != "high" || got.Notes != "Friday" || got.Overdue {
		t.Errorf("updated %+v overdue %v, %v", got.Assignment, got.Overdue, err)
	}
	_, err = w.Remediation.Update(ctx, w.Bob, rec.ID, remediation.Input{ProductID: storetest.Ptr(int64(1))})
	storetest.WantValidation(t, err, "product_id")
	if _, err := w.Remediation.Update(ctx, w.Carol, rec.ID, remediation.Input{Notes: storetest.Ptr("x")}); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("globex updates acme's assignment: %v", err)
	}
	if _, err := w.Remediation.Get(ctx, w.Globex, rec.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("globex reads acme's assignment: %v", err)
	}
	if err := w.Remediation.Delete(ctx, w.Bob, rec.ID); !errors.Is(err, appliance.ErrForbidden) {
		t.Errorf("member deletes: %v", err)
	}
	if err := w.Remediation.Delete(ctx, w.Carol, rec.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("globex admin deletes acme's: %v", err)
	}
	if err := w.Remediation.Delete(ctx, w.Alice, rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Remediation.Get(ctx, w.Acme, rec.ID); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("deleted assignment still readable: %v", err)
	}
}
