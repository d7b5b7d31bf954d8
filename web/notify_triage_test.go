package web

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/triage"
)

// TestSuppressedFindingsLeaveAndComeBack: a finding a triage rule suppresses leaves the
// notifications as resolved, and when the rule goes away the finding is announced again.
func TestSuppressedFindingsLeaveAndComeBack(t *testing.T) {
	var tr *triage.Service
	w := &notifyWorld{invWorld: &invWorld{}, clk: &notifyClock{t: time.Now().UTC().Truncate(time.Second)}}
	w.build(t, withInventory(&w.inv, catalogMini, nvdMini, kevMini), withNotify(&w.svc, w.clk, nil), withTriage(newFakeClock(), &tr))
	hook := newReceiver(t)
	created := w.createHook(t, map[string]any{"url": hook.URL, "events": []string{"finding.new", "finding.resolved"}})
	w.submit(t, "host-a", inv("openssl", "openssl", "1.1.1k"))
	w.run(t)
	if got := cvesOf(t, created.Secret, hook.take(), "finding.new"); !slices.Contains(got, "CVE-2021-3711") {
		t.Fatalf("first inventory announced %v", got)
	}
	res := w.alice.do(t, "POST", "/api/triage/rules", ruleBody("CVE-2021-3711", "organization", "false_positive", map[string]any{"note": "not reachable"}))
	if res.Status != 201 {
		t.Fatalf("rule: %d %s", res.Status, res.Body)
	}
	rule := decodeBody[struct{ ID int64 }](t, res)
	w.run(t)
	if got := cvesOf(t, created.Secret, hook.take(), "finding.resolved"); !slices.Equal(got, []string{"CVE-2021-3711"}) {
		t.Errorf("after the rule: resolved %v, want the suppressed CVE", got)
	}
	if res := w.alice.do(t, "DELETE", fmt.Sprintf("/api/triage/rules/%d", rule.ID), nil); res.Status != 204 {
		t.Fatalf("delete rule: %d %s", res.Status, res.Body)
	}
	w.run(t)
	if got := cvesOf(t, created.Secret, hook.take(), "finding.new"); !slices.Equal(got, []string{"CVE-2021-3711"}) {
		t.Errorf("after the rule went away: new %v, want the CVE back", got)
	}
}
