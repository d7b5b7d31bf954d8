package web

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	openvex "github.com/openvex/go-vex/pkg/vex"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// exportedVEX parses a 200 export with the OpenVEX library and checks every statement by
// its rules.
func exportedVEX(t *testing.T, res response) *openvex.VEX {
	t.Helper()
	doc, err := openvex.Parse(res.Body)
	if err != nil {
		t.Fatalf("parse export: %v\n%s", err, res.Body)
	}
	validateOpenVEXSchema(t, res.Body)
	if doc.Context != "https://openvex.dev/ns/v0.2.0" || doc.ID == "" || doc.Author != "acme" || doc.Timestamp == nil || doc.Version != 1 {
		t.Errorf("document metadata %+v", doc.Metadata)
	}
	for i, st := range doc.Statements {
		if err := st.Validate(); err != nil || len(st.Products) == 0 {
			t.Errorf("statement %d (%+v) is not valid OpenVEX: %v", i, st, err)
		}
	}
	return doc
}

// statementLines are "CVE status justification product…" of the document's statements, sorted.
func statementLines(doc *openvex.VEX) []string {
	var out []string
	for _, st := range doc.Statements {
		fields := []string{string(st.Vulnerability.Name), string(st.Status)}
		if st.Justification != "" {
			fields = append(fields, string(st.Justification))
		}
		for _, p := range st.Products {
			fields = append(fields, p.ID)
		}
		out = append(out, strings.Join(fields, " "))
	}
	slices.Sort(out)
	return out
}

// ruleLines are "CVE scope product start-end state justification author" of c's rules, sorted.
func ruleLines(t *testing.T, c *client, state string) []string {
	t.Helper()
	var out []string
	for _, r := range decodeBody[ruleListJSON](t, c.do(t, "GET", "/api/triage/rules", nil)).Items {
		if r.State != state {
			continue
		}
		str := func(p *string) string {
			if p == nil {
				return ""
			}
			return *p
		}
		out = append(out, fmt.Sprintf("%s %s %s %s-%s %s %s", str(r.CVEID), r.Scope, str(r.Product), str(r.VersionStart),
			str(r.VersionEnd), r.State, str(r.Justification)))
	}
	slices.Sort(out)
	return out
}

func TestOpenVEXExportAndReimport(t *testing.T) {
	w := newTriageWorld(t)
	chrome := w.product(t, w.alice, "Google Chrome", "116.0.5845.96", false)
	hostC := hostID(t, w.product(t, w.alice, "openssl", "1.1.1m", false), "host-c")
	for _, body := range []map[string]any{
		ruleBody("CVE-2022-0778", "product", "not_affected", map[string]any{"product": opensslID, "justification": "vulnerable_code_not_present"}),
		ruleBody("CVE-2021-3711", "version_range", "not_affected", map[string]any{"product": opensslID, "version_start": "1.1.1k",
			"version_end": "1.1.1k", "justification": "inline_mitigations_already_exist", "note": "SM2 disabled"}),
		ruleBody("CVE-2023-4863", "organization", "fixed", map[string]any{"note": "patched build"}),
	} {
		if res := w.alice.do(t, "POST", "/api/triage/rules", body); res.Status != 201 {
			t.Fatalf("create rule: %d %s", res.Status, res.Body)
		}
	}
	// The exact-version rule covers 1.1.1k only: 1.1.1m keeps no CVE-2021-3711 anyway, and
	// everything else is decided.
	wantCounts(t, w.alice, "")
	const (
		anyOpenSSL = "cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*"
		openssl11k = "cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*"
		chromeCPE  = "cpe:2.3:a:google:chrome:116.0.5845.96:*:*:*:*:*:*:*"
	)
	var exported []byte
	runScenarios(t, []scenario{
		{"organization", "GET", "/api/vex?format=openvex", nil, w.alice, 200, func(t *testing.T, res response) {
			exported = res.Body
			want := []string{
				"CVE-2021-3711 not_affected inline_mitigations_already_exist " + openssl11k,
				"CVE-2022-0778 not_affected vulnerable_code_not_present " + anyOpenSSL,
				"CVE-2023-4863 fixed " + chromeCPE,
			}
			if got := statementLines(exportedVEX(t, res)); !slices.Equal(got, want) {
				t.Errorf("statements\n%v\nwant\n%v", got, want)
			}
		}},
		{"one host", "GET", fmt.Sprintf("/api/vex?asset_id=%d", hostC), nil, w.alice, 200, func(t *testing.T, res response) {
			want := []string{"CVE-2022-0778 not_affected vulnerable_code_not_present " + anyOpenSSL}
			if got := statementLines(exportedVEX(t, res)); !slices.Equal(got, want) {
				t.Errorf("statements %v, want %v", got, want)
			}
		}},
		{"one product", "GET", fmt.Sprintf("/api/vex?product_id=%d", chrome.ID), nil, w.alice, 200, func(t *testing.T, res response) {
			if got := statementLines(exportedVEX(t, res)); !slices.Equal(got, []string{"CVE-2023-4863 fixed " + chromeCPE}) {
				t.Errorf("statements %v", got)
			}
		}},
		{"unknown format", "GET", "/api/vex?format=csaf", nil, w.alice, 400, wantField("format")},
		{"host and product", "GET", fmt.Sprintf("/api/vex?asset_id=%d&product_id=%d", hostC, chrome.ID), nil, w.alice, 400, wantField("asset_id")},
		{"another organization's host", "GET", fmt.Sprintf("/api/vex?asset_id=%d", hostC), nil, w.carol, 404, wantErrorCode("not_found")},
		{"unknown query", "GET", "/api/vex?cve=1", nil, w.alice, 400, wantField("cve")},
	})

	// globex imports acme's document: its not_affected statements become the same rules.
	wantRules := ruleLines(t, w.alice, "not_affected")
	runScenarios(t, append([]scenario{
		{"a member may not import", "POST", "/api/vex", exported, w.bob, 403, wantErrorCode("forbidden")},
		{"not OpenVEX", "POST", "/api/vex", map[string]any{"bom": 1}, w.carol, 400, wantSchemaField("@context")},
		{"an invalid statement refuses the document", "POST", "/api/vex", strings.Replace(string(exported),
			`"vulnerable_code_not_present"`, `"because"`, 1), w.carol, 400, func(t *testing.T, res response) {
			if b := wantError(t, res, "validation_error"); !strings.HasPrefix(b.Details.Field, "statements[") ||
				!strings.HasSuffix(b.Details.Field, "].justification") || b.Details.Constraint != "schema" {
				t.Errorf("error %+v, want the statement's justification named", b)
			}
		}},
	}, importedTwice(exported, w.carol)...))
	if got := ruleLines(t, w.carol, "not_affected"); !slices.Equal(got, wantRules) || len(got) != 2 {
		t.Errorf("imported rules\n%v\nwant\n%v", got, wantRules)
	}
	for _, r := range decodeBody[ruleListJSON](t, w.carol.do(t, "GET", "/api/triage/rules", nil)).Items {
		if r.Author != "acme" {
			t.Errorf("imported rule %d by %q, want the document's author", r.ID, r.Author)
		}
	}
	wantCounts(t, w.carol, "") // globex's openssl 1.1.1k has both CVEs decided now
}

// validateOpenVEXSchema checks an exported document against vulnkeeper's OpenVEX 0.2.0 schema,
// compiled here from its file, independently of the import path, with date-times checked.
func validateOpenVEXSchema(t *testing.T, body []byte) {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	s, err := c.Compile("../appliance/triage/openvex-0.2.0.schema.json")
	if err != nil {
		t.Fatalf("compile the OpenVEX schema: %v", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("the export does not follow the OpenVEX schema: %v\n%s", err, body)
	}
}

// wantSchemaField expects a 400 naming field and the constraint "schema".
func wantSchemaField(field string) func(t *testing.T, res response) {
	return func(t *testing.T, res response) {
		if b := wantError(t, res, "validation_error"); b.Details.Field != field || b.Details.Constraint != "schema" {
			t.Errorf("details %+v, want field %q and constraint schema", b.Details, field)
		}
	}
}

// openVEXDoc is a valid OpenVEX 0.2.0 document whose one statement says openssl 1.1.1k is not
// affected by CVE-2021-3711; edit changes it before it is encoded.
func openVEXDoc(edit func(doc, st map[string]any)) map[string]any {
	st := map[string]any{
		"vulnerability": map[string]any{"name": "CVE-2021-3711", "aliases": []any{"GHSA-example"}},
		"timestamp":     "2023-01-08T18:02:03.647787998-06:00",
		"products": []any{map[string]any{"@id": "cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*",
			"identifiers": map[string]any{"cpe23": "cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*"},
			"hashes":      map[string]any{"sha-256": "402fa523b96591d4450ace90e32d9f779fcfd938903e1c5bf9d3701860b8f856"}}},
		"status":        "not_affected",
		"justification": "vulnerable_code_not_present",
	}
	doc := map[string]any{"@context": "https://openvex.dev/ns/v0.2.0", "@id": "https://example.com/vex/1",
		"author": "vendor", "role": "Document Creator", "timestamp": "2023-01-08T18:02:03Z", "version": 1,
		"tooling": "hand", "statements": []any{st}}
	if edit != nil {
		edit(doc, st)
	}
	return doc
}

// TestOpenVEXExportOfEveryStateValidates exports a rule of each state (so all four OpenVEX
// statuses, with the justification, impact or action statements they need) and an empty
// document: both follow the schema and import.
func TestOpenVEXExportOfEveryStateValidates(t *testing.T) {
	w := newTriageWorld(t)
	if res := w.carol.do(t, "GET", "/api/vex", nil); res.Status != 200 || !strings.Contains(string(res.Body), `"statements": []`) {
		t.Errorf("empty export: %d %s", res.Status, res.Body)
	} else {
		validateOpenVEXSchema(t, res.Body)
	}
	for i, extra := range []map[string]any{
		{"state": "not_affected", "justification": "component_not_present"},
		{"state": "false_positive", "note": "wrong product"},
		{"state": "fixed"},
		{"state": "in_triage"},
		{"state": "exploitable"},
		{"state": "accepted_risk", "expires_at": w.clk.Now().Add(2 * time.Hour).Format(time.RFC3339)},
	} {
		extra["product"] = opensslID
		if res := w.alice.do(t, "POST", "/api/triage/rules", ruleBody(fmt.Sprintf("CVE-2099-%04d", i+1), "product", "", extra)); res.Status != 201 {
			t.Fatalf("create rule %v: %d %s", extra, res.Status, res.Body)
		}
	}
	res := w.alice.do(t, "GET", "/api/vex", nil)
	var statuses []string
	for _, st := range exportedVEX(t, res).Statements {
		statuses = append(statuses, string(st.Status))
	}
	slices.Sort(statuses)
	if want := []string{"affected", "affected", "fixed", "not_affected", "not_affected", "under_investigation"}; !slices.Equal(statuses, want) {
		t.Errorf("statuses %v, want %v", statuses, want)
	}
	if got := decodeBody[vexImportJSON](t, w.carol.do(t, "POST", "/api/vex", res.Body)); got != (vexImportJSON{Created: 1, Skipped: 5}) {
		t.Errorf("import %+v, want the justified not_affected statement made a rule", got)
	}
}

// TestOpenVEXImportSchema refuses documents that break vulnkeeper's OpenVEX schema with a 400
// naming the field, and creates nothing; the valid document they are made from imports.
func TestOpenVEXImportSchema(t *testing.T) {
	w := newTriageWorld(t)
	set := func(key string, v any) func(doc, st map[string]any) {
		return func(doc, st map[string]any) {
			target, k := doc, key
			if s, ok := strings.CutPrefix(key, "statement."); ok {
				target, k = st, s
			}
			if v == nil {
				delete(target, k)
			} else {
				target[k] = v
			}
		}
	}
	both := func(edits ...func(doc, st map[string]any)) func(doc, st map[string]any) {
		return func(doc, st map[string]any) {
			for _, e := range edits {
				e(doc, st)
			}
		}
	}
	var scenarios []scenario
	for _, c := range []struct {
		name, field string
		edit        func(doc, st map[string]any)
	}{
		{"missing @context", "@context", set("@context", nil)},
		{"another @context", "@context", set("@context", "https://cyclonedx.org/ns")},
		{"missing @id", "@id", set("@id", nil)},
		{"missing author", "author", set("author", nil)},
		{"empty author", "author", set("author", "")},
		{"missing timestamp", "timestamp", set("timestamp", nil)},
		{"timestamp not a date-time", "timestamp", set("timestamp", "yesterday")},
		{"version a string", "version", set("version", "1")},
		{"version zero", "version", set("version", 0)},
		{"statements an object", "statements", set("statements", map[string]any{})},
		{"a statement a string", "statements[0]", set("statements", []any{"CVE-2021-3711"})},
		{"bad status", "statements[0].status", set("statement.status", "maybe")},
		{"missing status", "statements[0].status", set("statement.status", nil)},
		{"bad justification", "statements[0].justification", set("statement.justification", "because")},
		{"not_affected without justification or impact statement", "statements[0].justification",
			set("statement.justification", nil)},
		{"affected without action statement", "statements[0].action_statement",
			both(set("statement.status", "affected"), set("statement.justification", nil))},
		{"affected with an empty action statement", "statements[0].action_statement",
			both(set("statement.status", "affected"), set("statement.action_statement", ""))},
		{"missing vulnerability", "statements[0].vulnerability", set("statement.vulnerability", nil)},
		{"vulnerability a string", "statements[0].vulnerability", set("statement.vulnerability", "CVE-2021-3711")},
		{"vulnerability without a name", "statements[0].vulnerability.name", set("statement.vulnerability", map[string]any{"description": "x"})},
		{"aliases a string", "statements[0].vulnerability.aliases", set("statement.vulnerability",
			map[string]any{"name": "CVE-2021-3711", "aliases": "GHSA-example"})},
		{"statement timestamp a number", "statements[0].timestamp", set("statement.timestamp", 1673222523)},
		{"products an object", "statements[0].products", set("statement.products", map[string]any{"@id": "pkg:x/y"})},
		{"a product naming nothing", "statements[0].products[0]", set("statement.products", []any{map[string]any{"subcomponents": []any{}}})},
		{"an unknown identifier type", "statements[0].products[0].identifiers.swid", set("statement.products",
			[]any{map[string]any{"identifiers": map[string]any{"swid": "x"}}})},
		{"a subcomponent identifier a number", "statements[0].products[0].subcomponents[0].identifiers.purl", set("statement.products",
			[]any{map[string]any{"@id": "pkg:x/y", "subcomponents": []any{map[string]any{"identifiers": map[string]any{"purl": 7}}}}})},
		{"status_notes a list", "statements[0].status_notes", set("statement.status_notes", []any{"a"})},
		{"empty", "@context", func(doc, st map[string]any) { clear(doc) }},
	} {
		scenarios = append(scenarios, scenario{c.name, "POST", "/api/vex", openVEXDoc(c.edit), w.carol, 400, wantSchemaField(c.field)})
	}
	scenarios = append(scenarios,
		scenario{"a JSON string", "POST", "/api/vex", `"CVE-2021-3711"`, w.carol, 400, wantSchemaField("document")},
		scenario{"a JSON array", "POST", "/api/vex", []any{openVEXDoc(nil)}, w.carol, 400, wantSchemaField("document")},
		scenario{"nothing changed", "GET", "/api/triage/rules", nil, w.carol, 200, func(t *testing.T, res response) {
			if got := decodeBody[ruleListJSON](t, res).Items; len(got) != 0 {
				t.Errorf("refused documents made rules %+v", got)
			}
		}},
		scenario{"the valid document", "POST", "/api/vex", openVEXDoc(nil), w.carol, 200, func(t *testing.T, res response) {
			if got := decodeBody[vexImportJSON](t, res); got != (vexImportJSON{Created: 1}) {
				t.Errorf("import %+v, want 1 created", got)
			}
		}},
		scenario{"an impact statement instead of a justification", "POST", "/api/vex", openVEXDoc(both(
			set("statement.justification", nil), set("statement.impact_statement", "not built"))), w.carol, 200, nil},
	)
	runScenarios(t, scenarios)
}

// importedTwice are the scenarios of a VEX document with two not_affected statements and one
// other imported by c: two rules created, one statement skipped; then both rules found in
// force, nothing created.
func importedTwice(doc []byte, c *client) []scenario {
	return []scenario{
		{"import", "POST", "/api/vex", doc, c, 200, func(t *testing.T, res response) {
			if got := decodeBody[vexImportJSON](t, res); got != (vexImportJSON{Created: 2, Skipped: 1}) {
				t.Errorf("import %+v, want 2 created and the third statement skipped", got)
			}
		}},
		{"again", "POST", "/api/vex", doc, c, 200, func(t *testing.T, res response) {
			if got := decodeBody[vexImportJSON](t, res); got != (vexImportJSON{Existing: 2, Skipped: 1}) {
				t.Errorf("re-import %+v, want both rules found in force", got)
			}
		}},
	}
}
