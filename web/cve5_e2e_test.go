package web

import (
	"archive/zip"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"
)

const (
	nvd2026   = "../../shared/data/nvd/nvdcve-2.0-2026.json.gz"
	cvelistV5 = "../../shared/data/cve5/cvelistV5"
)

// deltaZip packs the shared cvelistV5 records as a cvelistV5 delta zip (deltaCves/CVE-….json).
func deltaZip(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "2026-03-10_delta_CVEs_at_1400Z.zip")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(cvelistV5, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		w, err := zw.Create("deltaCves/" + d.Name())
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// CVE JSON 5 records fill in what NVD has not enriched: imported (as a cvelistV5 delta zip or
// directory) after NVD's feed, a CVE NVD left without configurations matches by the CNA's
// affected data with CISA ADP's score; a later NVD import without configurations keeps them;
// a CVE NVD enriched keeps NVD's data.
func TestCVE5FillsWhatNVDHasNotEnriched(t *testing.T) {
	ctx := context.Background()
	w := &invWorld{}
	w.build(t, withInventory(&w.inv, catalogMini, nvd2026))
	refresh := func() {
		t.Helper()
		if err := w.inv.Service.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
	}
	create := func(name, cpe, version string) int64 {
		t.Helper()
		res := w.alice.do(t, "POST", "/api/products", map[string]any{"name": name, "version": version, "cpe": cpe})
		if res.Status != 201 {
			t.Fatalf("create %s: %d %s", name, res.Status, res.Body)
		}
		return decodeBody[productJSON](t, res).ID
	}
	type finding struct {
		CVEID        string  `json:"cve_id"`
		FixedVersion *string `json:"fixed_version"`
		cveFactsJSON
	}
	findings := func(id int64) map[string]finding {
		t.Helper()
		d := decodeBody[struct {
			Vulnerabilities []finding `json:"vulnerabilities"`
		}](t, w.alice.do(t, "GET", fmt.Sprintf("/api/products/%d", id), nil))
		out := map[string]finding{}
		for _, f := range d.Vulnerabilities {
			out[f.CVEID] = f
		}
		return out
	}
	x509 := create("crypto/x509", `cpe:2.3:a:go_standard_library:crypto\/x509:*:*:*:*:*:*:*:*`, "1.26.0")
	x509Fixed := create("crypto/x509", `cpe:2.3:a:go_standard_library:crypto\/x509:*:*:*:*:*:*:*:*`, "1.26.1")
	inetutils := create("inetutils", "cpe:2.3:a:gnu:inetutils:*:*:*:*:*:*:*:*", "2.7")
	if _, ok := findings(x509)["CVE-2026-27138"]; ok {
		t.Fatal("CVE-2026-27138 matched before any CVE JSON 5 record: NVD has no configurations for it")
	}
	nvdBefore := findings(inetutils)["CVE-2026-24061"]
	if nvdBefore.CVSS == nil {
		t.Fatalf("inetutils 2.7 findings = %+v", findings(inetutils))
	}

	if st := importFile(t, w.inv.Importer, deltaZip(t)); st.Format != "cve5" || st.CVEs < 15 {
		t.Fatalf("delta zip: %+v", st)
	}
	refresh()
	raw := storetest.JSONFile(t, filepath.Join(cvelistV5, "cves", "2026", "27xxx", "CVE-2026-27138.json"))
	check := func(stage string) {
		t.Helper()
		f, ok := findings(x509)["CVE-2026-27138"]
		lessThan := storetest.JSONAt(raw, "containers", "cna", "affected", 0, "versions", 0, "lessThan")
		adpScore := storetest.JSONAt(raw, "containers", "adp", 0, "metrics", 0, "cvssV3_1", "baseScore")
		if !ok || f.FixedVersion == nil || *f.FixedVersion != lessThan || f.CVSS == nil || f.CVSS.Source != "CISA-ADP" || f.CVSS.Score != adpScore {
			t.Errorf("%s: crypto/x509 1.26.0 finding %+v (ok %v), want fixed in %v scored %v by CISA-ADP", stage, f, ok, lessThan, adpScore)
		}
		if _, ok := findings(x509Fixed)["CVE-2026-27138"]; ok {
			t.Errorf("%s: crypto/x509 1.26.1 (the fixed version) matched", stage)
		}
		if got := findings(inetutils)["CVE-2026-24061"]; got.CVSS == nil || *got.CVSS != *nvdBefore.CVSS {
			t.Errorf("%s: CVE-2026-24061 (NVD enriched) cvss %+v, NVD's %+v", stage, got.CVSS, nvdBefore.CVSS)
		}
	}
	check("after the delta zip")

	// NVD's feed again (its record of CVE-2026-27138 has no configurations): nothing is lost.
	importInto(t, w.inv.Importer, nvd2026)
	refresh()
	check("after NVD's feed again")

	// The cvelistV5 directory layout is read the same way.
	st, err := w.inv.Importer.ImportDir(ctx, cvelistV5, os.DirFS(cvelistV5))
	if err != nil || st.Format != "cve5" || st.CVEs < 15 {
		t.Fatalf("cvelistV5 directory: %+v %v", st, err)
	}
	refresh()
	check("after the directory")
}
