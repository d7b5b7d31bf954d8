package web

import (
	"encoding/csv"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// csvRows decodes a CSV answer and checks its content type and header.
func csvRows(t *testing.T, res response, header []string) [][]string {
	t.Helper()
	if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("status %d, content type %q: %s", res.Status, res.Header.Get("Content-Type"), res.Body)
	}
	rows, err := csv.NewReader(strings.NewReader(string(res.Body))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rows[0], header) {
		t.Fatalf("header %v, want %v", rows[0], header)
	}
	return rows[1:]
}

// format=csv on the container list streams every image the filters select, past the page
// size, with the counts the JSON list shows; another organization's images never appear.
func TestContainersCSVExport(t *testing.T) {
	env := newTestEnv(t)
	attachScans(env)
	env.createOrg(t, "acme")
	env.createOrg(t, "globex")
	env.createUser(t, "acme", "bob", appliance.RoleMember)
	env.createUser(t, "globex", "carol", appliance.RoleMember)
	key, _ := env.createAgentKey(t, "acme")
	if res := env.agent(key).do(t, "POST", "/api/agent/container-scan", scanFixture(t)); res.Status != 200 {
		t.Fatalf("scan: %d %s", res.Status, res.Body)
	}
	bob, carol := env.login(t, "bob", testPassword), env.login(t, "carol", testPassword)
	list := decodeBody[containerListJSON](t, bob.do(t, "GET", "/api/containers", nil))
	rows := csvRows(t, bob.do(t, "GET", "/api/containers?format=csv&per_page=1", nil), containerCSVHeader)
	if len(rows) != list.Total || len(rows) != 2 {
		t.Fatalf("%d CSV rows, the list has %d", len(rows), list.Total)
	}
	for i, it := range list.Items {
		c := it.VulnerabilityCount
		want := []string{strconv.FormatInt(it.ID, 10), it.ImageName, it.ImageTag, it.ImageID, it.Hostname}
		if !slices.Equal(rows[i][:5], want) || rows[i][6] != strconv.Itoa(c.Critical) || rows[i][7] != strconv.Itoa(c.High) {
			t.Errorf("row %d = %v, want %v with counts %+v", i, rows[i], want, c)
		}
	}
	if rows := csvRows(t, bob.do(t, "GET", "/api/containers?format=csv&hostname=nobody", nil), containerCSVHeader); len(rows) != 0 {
		t.Errorf("hostname filter: %v", rows)
	}
	if rows := csvRows(t, carol.do(t, "GET", "/api/containers?format=csv", nil), containerCSVHeader); len(rows) != 0 {
		t.Errorf("another organization's export: %v", rows)
	}
	wantError(t, bob.do(t, "GET", "/api/containers?format=xlsx", nil), "validation_error")
}

// format=csv on the assignment list streams every assignment the filters select in list
// order; a note that looks like a formula is defused.
func TestAssignmentsCSVExport(t *testing.T) {
	env := newTestEnv(t)
	attachScans(env)
	acme := env.createOrg(t, "acme")
	env.createUser(t, "acme", "alice", appliance.RoleOrgAdmin)
	productID, matchID := seedFinding(t, env, acme.ID, "host-a", "openssl", "CVE-2021-3711", "critical")
	alice := env.login(t, "alice", testPassword)
	for i, body := range []map[string]any{
		{"assigned_to": "alice", "cve_id": "CVE-2021-3711", "notes": "=cmd()"},
		{"assigned_to": "alice", "match_id": matchID, "priority": "high"},
		{"assigned_to": "alice", "product_id": productID, "due_date": "2031-01-31"},
	} {
		if res := alice.do(t, "POST", "/api/remediation/assignments", body); res.Status != 201 {
			t.Fatalf("assignment %d: %d %s", i, res.Status, res.Body)
		}
	}
	list := decodeBody[assignmentListJSON](t, alice.do(t, "GET", "/api/remediation/assignments?sort=due_date", nil))
	rows := csvRows(t, alice.do(t, "GET", "/api/remediation/assignments?format=csv&per_page=1&sort=due_date", nil), assignmentCSVHeader)
	if len(rows) != 3 || len(list.Items) != 3 {
		t.Fatalf("%d CSV rows, %d listed", len(rows), len(list.Items))
	}
	for i, a := range list.Items {
		if rows[i][0] != strconv.FormatInt(a.ID, 10) || rows[i][7] != a.Priority || rows[i][8] != a.DueDate {
			t.Errorf("row %d = %v, want %+v", i, rows[i], a)
		}
	}
	if !slices.ContainsFunc(rows, func(r []string) bool { return r[11] == "'=cmd()" }) {
		t.Errorf("the formula note was not defused: %v", rows)
	}
	if rows := csvRows(t, alice.do(t, "GET", "/api/remediation/assignments?format=csv&priority=high", nil), assignmentCSVHeader); len(rows) != 1 || rows[0][7] != "high" {
		t.Errorf("priority filter: %v", rows)
	}
}

// format=csv on a product lists its findings, one a row, as the JSON detail shows them.
func TestProductFindingsCSVExport(t *testing.T) {
	w := newInvWorld(t, catalogMini, nvdMini, kevMini)
	if res := w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-a", hostA...)); res.Status != 200 {
		t.Fatalf("inventory: %d %s", res.Status, res.Body)
	}
	list := decodeBody[listResponse[productJSON]](t, w.alice.do(t, "GET", "/api/products?has_vulnerabilities=true", nil))
	if len(list.Items) == 0 {
		t.Fatal("no product with findings")
	}
	for _, p := range list.Items {
		path := fmt.Sprintf("/api/products/%d", p.ID)
		d := decodeBody[productDetailJSON](t, w.alice.do(t, "GET", path, nil))
		rows := csvRows(t, w.alice.do(t, "GET", path+"?format=csv", nil), findingCSVHeader)
		if len(rows) != len(d.Vulnerabilities) || len(rows) == 0 {
			t.Fatalf("%s: %d rows, %d findings", p.Name, len(rows), len(d.Vulnerabilities))
		}
		for i, v := range d.Vulnerabilities {
			want := []string{strconv.FormatInt(p.ID, 10), p.Name, p.Version, strconv.FormatInt(v.MatchID, 10), v.CVEID, v.Severity}
			if !slices.Equal(rows[i][:len(want)], want) || rows[i][7] != strconv.FormatBool(v.KEV != nil) || rows[i][13] != v.Basis {
				t.Errorf("%s row %d = %v, want %v… kev %t basis %s", p.Name, i, rows[i], want, v.KEV != nil, v.Basis)
			}
		}
		wantError(t, w.carol.do(t, "GET", path+"?format=csv", nil), "not_found")
	}
}
