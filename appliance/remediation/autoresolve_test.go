package remediation_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/containers"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"
)

// An active assignment whose finding disappears resolves itself with a system event; the
// others (finding still there, never present, already closed) stay as they are.
func TestAutoResolve(t *testing.T) {
	w := storetest.NewWorld(t)
	ctx := context.Background()
	for _, id := range []string{"CVE-A", "CVE-B", "CVE-C", "CVE-FEED-ONLY"} {
		w.SeedCVE(t, id, "high", 7.5, time.Time{})
	}
	upgraded := w.SeedProduct(t, w.Acme, "h1", "upgraded", "CVE-A")
	rematched := w.SeedProduct(t, w.Acme, "h1", "rematched", "CVE-A", "CVE-B")
	kept := w.SeedProduct(t, w.Acme, "h1", "kept", "CVE-C")
	w.Submit(t, w.Acme, "h1", containers.ImageScan{Reference: "app", ImageID: storetest.DigestA, ScanResults: storetest.TrivyReport(t, [2]string{"CVE-SCAN", "LOW"})})
	create := func(in remediation.Input) int64 {
		in.AssignedTo = storetest.Ptr("bob")
		rec, err := w.Remediation.Create(ctx, w.Alice, in)
		if err != nil {
			t.Fatal(err)
		}
		return rec.ID
	}
	ids := map[string]int64{
		"product uninstalled":         create(remediation.Input{ProductID: storetest.Ptr(upgraded.ProductID)}),
		"match removed":               create(remediation.Input{MatchID: storetest.Ptr(rematched.MatchIDs["CVE-B"])}),
		"CVE no longer scanned":       create(remediation.Input{CVEID: storetest.Ptr("CVE-SCAN")}),
		"match still there":           create(remediation.Input{MatchID: storetest.Ptr(rematched.MatchIDs["CVE-A"])}),
		"CVE still matched elsewhere": create(remediation.Input{CVEID: storetest.Ptr("CVE-A")}),
		"product still installed":     create(remediation.Input{ProductID: storetest.Ptr(kept.ProductID)}),
		"CVE never in the org":        create(remediation.Input{CVEID: storetest.Ptr("CVE-FEED-ONLY")}),
	}
	closed := create(remediation.Input{ProductID: storetest.Ptr(upgraded.ProductID)})
	if _, err := w.Remediation.Update(ctx, w.Bob, closed, remediation.Input{Status: storetest.Ptr("false_positive"), Notes: storetest.Ptr("n/a")}); err != nil {
		t.Fatal(err)
	}
	if n, err := w.Remediation.AutoResolve(ctx); err != nil || n != 0 {
		t.Fatalf("before any change: resolved %d, %v; want 0", n, err)
	}

	w.Uninstall(t, upgraded.InstallationID)
	w.Rematch(t, rematched.ProductID, "CVE-A")
	*w.Clock = w.Clock.Add(time.Hour)
	if n, err := w.Remediation.AutoResolve(ctx); err != nil || n != 2 {
		t.Fatalf("auto-resolved %d, %v; want 2", n, err)
	}
	w.Submit(t, w.Acme, "h1", containers.ImageScan{Reference: "app", ImageID: storetest.DigestA, ScanResults: storetest.TrivyReport(t)}) // resolves CVE-SCAN itself
	if n, err := w.Remediation.AutoResolve(ctx); err != nil || n != 0 {
		t.Fatalf("after the rescan's own pass: resolved %d, %v; want 0", n, err)
	}
	wantResolved := map[string]bool{"product uninstalled": true, "match removed": true, "CVE no longer scanned": true}
	for name, id := range ids {
		rec, err := w.Remediation.Get(ctx, w.Acme, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.Status == "resolved"; got != wantResolved[name] {
			t.Errorf("%s: status %s", name, rec.Status)
			continue
		}
		if wantResolved[name] {
			last := rec.History[len(rec.History)-1]
			if last.By != 0 || last.From != "open" || last.To != "resolved" || last.Note == "" || !rec.ResolvedAt.Equal(*w.Clock) {
				t.Errorf("%s: last event %+v, resolved_at %v; want a system event", name, last, rec.ResolvedAt)
			}
		}
	}
	if rec, _ := w.Remediation.Get(ctx, w.Acme, closed); rec.Status != "false_positive" {
		t.Errorf("closed assignment changed to %s", rec.Status)
	}
}

func TestListAssignments(t *testing.T) {
	w := storetest.NewWorld(t)
	ctx := context.Background()
	w.SeedCVE(t, "CVE-1", "critical", 9.8, time.Time{})
	w.SeedCVE(t, "CVE-2", "low", 2.0, time.Time{})
	prod := w.SeedProduct(t, w.Acme, "h1", "openssl", "CVE-1")
	mk := func(in remediation.Input) int64 {
		rec, err := w.Remediation.Create(ctx, w.Alice, in)
		if err != nil {
			t.Fatal(err)
		}
		*w.Clock = w.Clock.Add(time.Minute)
		return rec.ID
	}
	a := mk(remediation.Input{AssignedTo: storetest.Ptr("bob"), CVEID: storetest.Ptr("CVE-1"), Priority: storetest.Ptr("critical"), Notes: storetest.Ptr("patch the edge")})
	b := mk(remediation.Input{AssignedTo: storetest.Ptr("alice"), CVEID: storetest.Ptr("CVE-2"), Priority: storetest.Ptr("low"), DueDate: storetest.Ptr("2025-03-01")})
	c := mk(remediation.Input{AssignedTo: storetest.Ptr("bob"), ProductID: storetest.Ptr(prod.ProductID), Priority: storetest.Ptr("high")})
	if _, err := w.Remediation.Create(ctx, w.Carol, remediation.Input{AssignedTo: storetest.Ptr("carol"), CVEID: storetest.Ptr("CVE-1")}); err != nil {
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
		{"product_id", appliance.AssignmentFilter{ProductID: prod.ProductID}, []int64{c}},
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
			f.OrganizationID = w.Acme
			if f.Page == 0 {
				f.Page, f.PerPage = 1, 25
			}
			items, total, err := w.Remediation.List(ctx, f)
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
	_, _, err := w.Remediation.List(ctx, appliance.AssignmentFilter{OrganizationID: w.Acme, Sort: "name", Page: 1, PerPage: 25})
	storetest.WantValidation(t, err, "sort")
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
	w := storetest.NewWorld(t)
	w.Submit(t, w.Acme, "h1", containers.ImageScan{Reference: "app", ImageID: storetest.DigestA, ScanResults: storetest.TrivyReport(t, [2]string{"CVE-SCAN", "LOW"})})
	rec, err := w.Remediation.Create(context.Background(), w.Alice, remediation.Input{AssignedTo: storetest.Ptr("bob"), CVEID: storetest.Ptr("CVE-SCAN")})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	scanner := containers.NewContainers(cancelAfterCommit{Store: w.Store, cancel: cancel}, nil)
	if _, err := scanner.Submit(ctx, w.Acme, "h1", []containers.ImageScan{{Reference: "app", ImageID: storetest.DigestA, ScanResults: storetest.TrivyReport(t)}}); err != nil {
		t.Fatal(err)
	}
	if got, err := w.Remediation.Get(context.Background(), w.Acme, rec.ID); err != nil || got.Status != "resolved" {
		t.Errorf("assignment on the CVE the rescan removed: %s (%v), want resolved", got.Status, err)
	}
}
