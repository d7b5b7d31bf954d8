package web

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// cycloneDXSchema compiles the published CycloneDX JSON schema of version v, as the CycloneDX
// Go library ships it (its module's schema/ directory), with the SPDX and JSF schemas it
// references: no network.
func cycloneDXSchema(t *testing.T, v string) *jsonschema.Schema {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/CycloneDX/cyclonedx-go").Output()
	if err != nil {
		t.Fatalf("locate the CycloneDX module: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "schema")
	c := jsonschema.NewCompiler()
	for file, id := range map[string]string{"bom-" + v + ".schema.json": "bom-" + v + ".schema.json",
		"spdx.schema.json": "spdx.schema.json", "jsf-0.82.schemax.json": "jsf-0.82.schema.json"} {
		f, err := os.Open(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource("http://cyclonedx.org/schema/"+id, doc); err != nil {
			t.Fatal(err)
		}
	}
	s, err := c.Compile("http://cyclonedx.org/schema/bom-" + v + ".schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCycloneDXVEXExportValidatesAndReimports exports the same rules as the OpenVEX test as
// CycloneDX VEX 1.5 and 1.6, validates both against the published CycloneDX schemas, and
// imports the 1.6 document into another organization: its not_affected analyses become the
// same rules, by the document's author.
func TestCycloneDXVEXExportValidatesAndReimports(t *testing.T) {
	w := newTriageWorld(t)
	w.product(t, w.alice, "Google Chrome", "116.0.5845.96", false)
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
	var exported []byte
	for _, v := range []string{"1.5", "1.6"} {
		res := w.alice.do(t, "GET", "/api/vex?format=cyclonedx&spec_version="+v, nil)
		if res.Status != 200 || !strings.Contains(res.Header.Get("Content-Type"), "cyclonedx") {
			t.Fatalf("export %s: %d %s", v, res.Status, res.Body)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(res.Body))
		if err != nil {
			t.Fatal(err)
		}
		if err := cycloneDXSchema(t, v).Validate(doc); err != nil {
			t.Errorf("CycloneDX %s export does not validate: %v", v, err)
		}
		var bom struct {
			SpecVersion     string
			Vulnerabilities []struct {
				ID       string
				Analysis struct{ State, Justification string }
				Affects  []struct{ Ref string }
			}
		}
		if err := json.Unmarshal(res.Body, &bom); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, vu := range bom.Vulnerabilities {
			for _, a := range vu.Affects {
				got = append(got, strings.Join(slices.DeleteFunc([]string{vu.ID, vu.Analysis.State, vu.Analysis.Justification, a.Ref},
					func(s string) bool { return s == "" }), " "))
			}
		}
		slices.Sort(got)
		want := []string{
			"CVE-2021-3711 not_affected protected_at_runtime cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*",
			"CVE-2022-0778 not_affected code_not_present cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*",
			"CVE-2023-4863 resolved cpe:2.3:a:google:chrome:116.0.5845.96:*:*:*:*:*:*:*",
		}
		if bom.SpecVersion != v || !slices.Equal(got, want) {
			t.Errorf("CycloneDX %s: spec %s, analyses\n%v\nwant\n%v", v, bom.SpecVersion, got, want)
		}
		exported = res.Body
	}
	wantRules := ruleLines(t, w.alice, "not_affected")
	var broken map[string]any
	if err := json.Unmarshal(exported, &broken); err != nil {
		t.Fatal(err)
	}
	broken["vulnerabilities"].([]any)[0].(map[string]any)["affects"] = []any{map[string]any{"ref": "nothing"}}
	runScenarios(t, append([]scenario{
		{"bad spec version", "GET", "/api/vex?format=cyclonedx&spec_version=1.2", nil, w.alice, 400, wantField("spec_version")},
		{"no author", "POST", "/api/vex", map[string]any{"bomFormat": "CycloneDX", "specVersion": "1.6"}, w.carol, 400, wantField("metadata.authors")},
		{"an unknown component", "POST", "/api/vex", broken, w.carol, 400, func(t *testing.T, res response) {
			if b := wantError(t, res, "validation_error"); !strings.HasPrefix(b.Details.Field, "vulnerabilities[") {
				t.Errorf("error %+v, want the vulnerability named", b)
			}
		}},
	}, importedTwice(exported, w.carol)...))
	if got := ruleLines(t, w.carol, "not_affected"); !slices.Equal(got, wantRules) || len(got) != 2 {
		t.Errorf("imported rules\n%v\nwant\n%v", got, wantRules)
	}
}
