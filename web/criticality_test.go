package web

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/criticality"
)

// Products get a criticality from the organization's rules — the defaults until an admin sets
// its own — when an inventory or a person creates them and when the rules change; a value a
// person set always wins.
func TestCriticalityRules(t *testing.T) {
	w := newInvWorld(t, catalogMini, nvdMini)
	w.createUser(t, "acme", "bob", appliance.RoleMember)
	bob := w.login(t, "bob", testPassword)

	got := decodeBody[criticalityRulesJSON](t, bob.do(t, "GET", "/api/criticality/rules", nil))
	if !got.Default || len(got.Rules) != len(criticality.Defaults) || got.Rules[0] != criticalityRuleJSON(criticality.Defaults[0]) {
		t.Fatalf("rules before any change = %+v", got)
	}
	body := inventoryBody("web-01", inv("nginx", "nginx", "1.24.0"), inv("OpenBSD", "OpenSSH", "9.6p1"),
		inv("Microsoft Corporation", "Microsoft SQL Server 2019", "15.0.2000.5"), inv("Don Ho", "Notepad++", "8.6"))
	if res := w.acme.do(t, "POST", "/api/agent/inventory", body); res.Status != 200 {
		t.Fatalf("inventory: %d %s", res.Status, res.Body)
	}
	products := func() map[string]productJSON {
		list := decodeBody[listResponse[productJSON]](t, w.alice.do(t, "GET", "/api/products?per_page=200", nil))
		out := map[string]productJSON{}
		for _, p := range list.Items {
			out[p.Name] = p
		}
		return out
	}
	want := func(stage string, crit map[string]int, source map[string]string) {
		t.Helper()
		ps := products()
		for name, c := range crit {
			if p := ps[name]; p.Criticality != c || p.CriticalitySource != source[name] {
				t.Errorf("%s: %s criticality %d (%s), want %d (%s)", stage, name, p.Criticality, p.CriticalitySource, c, source[name])
			}
		}
	}
	rule := map[string]string{"nginx": "rule", "OpenSSH": "rule", "Microsoft SQL Server 2019": "rule", "Notepad++": "rule"}
	want("defaults", map[string]int{"nginx": 5, "OpenSSH": 5, "Microsoft SQL Server 2019": 4, "Notepad++": 2}, rule)

	// A person's value: it stays whatever the rules say.
	np := products()["Notepad++"]
	if res := bob.do(t, "PUT", fmt.Sprintf("/api/products/%d", np.ID), map[string]any{"criticality": 5}); res.Status != 200 {
		t.Fatalf("set criticality: %d %s", res.Status, res.Body)
	}
	rule["Notepad++"] = "person"

	// In order, the first match decides: MySQL is 4, other SQL 3.
	newRules := map[string]any{"rules": []map[string]any{{"pattern": "*notepad*", "criticality": 1}, {"pattern": "my?ql", "criticality": 4},
		{"pattern": " *SQL* ", "criticality": 3}}}
	if res := bob.do(t, "PUT", "/api/criticality/rules", newRules); res.Status != http.StatusForbidden {
		t.Errorf("a member changing the rules: %d, want 403", res.Status)
	}
	for _, bad := range []map[string]any{
		{"rules": []map[string]any{{"pattern": "*x*", "criticality": 6}}},
		{"rules": []map[string]any{{"pattern": "  ", "criticality": 3}}},
		{},
	} {
		if res := w.alice.do(t, "PUT", "/api/criticality/rules", bad); res.Status != http.StatusBadRequest {
			t.Errorf("rules %v: %d, want 400", bad, res.Status)
		}
	}
	want("after refused changes", map[string]int{"nginx": 5, "OpenSSH": 5, "Microsoft SQL Server 2019": 4, "Notepad++": 5}, rule)

	res := w.alice.do(t, "PUT", "/api/criticality/rules", newRules)
	put := decodeBody[criticalityRulesJSON](t, res)
	if res.Status != 200 || put.Default || put.Products == nil || *put.Products != 3 || put.Rules[2].Pattern != "*SQL*" {
		t.Fatalf("put rules: %d %+v", res.Status, put)
	}
	want("new rules", map[string]int{"nginx": 2, "OpenSSH": 2, "Microsoft SQL Server 2019": 3, "Notepad++": 5}, rule)
	if got := decodeBody[criticalityRulesJSON](t, bob.do(t, "GET", "/api/criticality/rules", nil)); got.Default || len(got.Rules) != 3 {
		t.Errorf("rules after the change = %+v", got)
	}

	// New products take the new rules: from an inventory and from a person without a value.
	body = inventoryBody("db-01", inv("Oracle", "MySQL", "8.0.36"))
	if res := w.acme.do(t, "POST", "/api/agent/inventory", body); res.Status != 200 {
		t.Fatalf("inventory: %d %s", res.Status, res.Body)
	}
	for _, p := range []map[string]any{{"name": "SQLite Studio", "version": "3"}, {"name": "PostgreSQL", "version": "16", "criticality": 1}} {
		if res := w.alice.do(t, "POST", "/api/products", p); res.Status != 201 {
			t.Fatalf("create: %d %s", res.Status, res.Body)
		}
	}
	rule["MySQL"], rule["SQLite Studio"], rule["PostgreSQL"] = "rule", "rule", "person"
	want("new products", map[string]int{"MySQL": 4, "SQLite Studio": 3, "PostgreSQL": 1}, rule)

	// Another organization keeps the defaults.
	if got := decodeBody[criticalityRulesJSON](t, w.carol.do(t, "GET", "/api/criticality/rules", nil)); !got.Default {
		t.Errorf("globex rules = %+v, want the defaults", got)
	}
}
