package web

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	openvex "github.com/openvex/go-vex/pkg/vex"
)

// exportedVEX parses a 200 export with the OpenVEX library and checks every statement by
// its rules.
func exportedVEX(t *testing.T, res response) *openvex.VEX {
	t.Helper()
	doc, err := openvex.Parse(res.Body)
	if err != nil {
		t.Fatalf("parse export: %v\n%s", err, res.Body)
	}
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
	runScenarios(t, []scenario{
		{"a member may not import", "POST", "/api/vex", exported, w.bob, 403, wantErrorCode("forbidden")},
		{"not OpenVEX", "POST", "/api/vex", map[string]any{"bom": 1}, w.carol, 400, wantField("document")},
		{"an invalid statement refuses the document", "POST", "/api/vex", strings.Replace(string(exported),
			`"vulnerable_code_not_present"`, `"because"`, 1), w.carol, 400, func(t *testing.T, res response) {
			if b := wantError(t, res, "validation_error"); !strings.HasPrefix(b.Details.Field, "statements[") ||
				!strings.HasSuffix(b.Details.Field, "]") || b.Details.Constraint != "openvex" || !strings.Contains(b.Message, "because") {
				t.Errorf("error %+v, want the statement named", b)
			}
		}},
		{"import", "POST", "/api/vex", exported, w.carol, 200, func(t *testing.T, res response) {
			if got := decodeBody[vexImportJSON](t, res); got != (vexImportJSON{Created: 2, Skipped: 1}) {
				t.Errorf("import %+v, want 2 created and the fixed statement skipped", got)
			}
		}},
		{"again", "POST", "/api/vex", exported, w.carol, 200, func(t *testing.T, res response) {
			if got := decodeBody[vexImportJSON](t, res); got != (vexImportJSON{Existing: 2, Skipped: 1}) {
				t.Errorf("re-import %+v, want both rules found in force", got)
			}
		}},
	})
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
