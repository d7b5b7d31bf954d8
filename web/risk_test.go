package web

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
)

// rawNVD is an independent reading of an NVD CVE 2.0 feed: what the test expects findings to
// show, read without the nvd package.
type rawNVD struct {
	Vulnerabilities []struct {
		CVE struct {
			ID      string `json:"id"`
			Metrics map[string][]struct {
				Source string `json:"source"`
				Type   string `json:"type"`
				Data   struct {
					Version string  `json:"version"`
					Score   float64 `json:"baseScore"`
					Vector  string  `json:"vectorString"`
				} `json:"cvssData"`
			} `json:"metrics"`
			Configurations []struct {
				Nodes []struct {
					CPEMatch []struct {
						Criteria     string `json:"criteria"`
						EndExcluding string `json:"versionEndExcluding"`
					} `json:"cpeMatch"`
				} `json:"nodes"`
			} `json:"configurations"`
			References []struct {
				URL  string   `json:"url"`
				Tags []string `json:"tags"`
			} `json:"references"`
		} `json:"cve"`
	} `json:"vulnerabilities"`
}

func readRawNVD(t *testing.T, path string) (rawNVD, map[string]int) {
	t.Helper()
	var raw rawNVD
	decodeGzipJSON(t, path, &raw)
	idx := map[string]int{}
	for i, v := range raw.Vulnerabilities {
		idx[v.CVE.ID] = i
	}
	return raw, idx
}

type rawKEV struct {
	Vulnerabilities []struct {
		CVEID      string `json:"cveID"`
		DueDate    string `json:"dueDate"`
		Ransomware string `json:"knownRansomwareCampaignUse"`
	} `json:"vulnerabilities"`
}

func readRawKEV(t *testing.T) map[string][2]string {
	t.Helper()
	data, err := os.ReadFile(kevFull)
	if err != nil {
		t.Fatal(err)
	}
	var raw rawKEV
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	out := map[string][2]string{}
	for _, v := range raw.Vulnerabilities {
		out[v.CVEID] = [2]string{v.DueDate, v.Ransomware}
	}
	return out
}

// A product's findings carry the CVSS metric (newest version, NVD's Primary first), KEV with
// its due date and ransomware use, the fixed version of the NVD range that matched, the Patch
// and Vendor Advisory references, and a risk score whose factors add up; they are listed
// riskiest first.
func TestFindingsCarryCVSSKEVFixAndReferencesRankedByRisk(t *testing.T) {
	w := &invWorld{}
	w.build(t, withInventory(&w.inv, catalogMini, nvd2015, kevFull))
	rawNVDRecords, nvdIdx := readRawNVD(t, nvd2015)
	kev := readRawKEV(t)

	res := w.alice.do(t, "POST", "/api/products", map[string]any{"name": "Flash Player", "vendor": "Adobe", "version": "11.2.202.400",
		"cpe": "cpe:2.3:a:adobe:flash_player:*:*:*:*:*:*:*:*", "criticality": 4})
	if res.Status != 201 {
		t.Fatalf("create product: %d %s", res.Status, res.Body)
	}
	id := decodeBody[productJSON](t, res).ID
	type finding struct {
		CVEID        string    `json:"cve_id"`
		Severity     string    `json:"severity"`
		FixedVersion *string   `json:"fixed_version"`
		EPSS         *epssJSON `json:"epss"`
		cveFactsJSON
	}
	type productDetail struct {
		Vulnerabilities []finding `json:"vulnerabilities"`
	}
	detail := decodeBody[productDetail](t, w.alice.do(t, "GET", fmt.Sprintf("/api/products/%d", id), nil))
	// EPSS for the two least risky findings KEV does not list: a high probability lifts one.
	var epssCSV strings.Builder
	epssCSV.WriteString("#model_version:v2025.03.14,score_date:2026-10-01T12:00:22Z\ncve,epss,percentile\n")
	var lifted string
	for i := len(detail.Vulnerabilities) - 1; i >= 0 && lifted == ""; i-- {
		if c := detail.Vulnerabilities[i].CVEID; detail.Vulnerabilities[i].KEV == nil {
			fmt.Fprintf(&epssCSV, "%s,0.93,0.999\n", c)
			lifted = c
		}
	}
	if _, err := w.inv.Importer.ImportEPSS(context.Background(), "epss.csv", strings.NewReader(epssCSV.String())); err != nil {
		t.Fatal(err)
	}
	before := detail
	detail = decodeBody[productDetail](t, w.alice.do(t, "GET", fmt.Sprintf("/api/products/%d", id), nil))
	if len(detail.Vulnerabilities) < 10 {
		t.Fatalf("only %d findings for Flash Player 11.2.202.400", len(detail.Vulnerabilities))
	}
	var sawKEV, sawRansomware, sawFix, sawRefs, sawEPSS bool
	for i, f := range detail.Vulnerabilities {
		rec := rawNVDRecords.Vulnerabilities[nvdIdx[f.CVEID]].CVE
		// CVSS: the newest version present, the Primary metric of it.
		var want *cvssJSON
		for _, key := range []string{"cvssMetricV40", "cvssMetricV31", "cvssMetricV30", "cvssMetricV2"} {
			ms := rec.Metrics[key]
			if len(ms) == 0 {
				continue
			}
			m := ms[0]
			for _, c := range ms {
				if c.Type == "Primary" {
					m = c
					break
				}
			}
			src := m.Source
			switch {
			case m.Type == "Primary":
				src = "NVD"
			case m.Source == "134c704f-9b21-4f2e-91b3-4a467353bcc0": // CISA's ADP, as NVD names it
				src = "CISA-ADP"
			}
			want = &cvssJSON{Version: m.Data.Version, Score: m.Data.Score, Vector: m.Data.Vector, Source: src}
			break
		}
		if (want == nil) != (f.CVSS == nil) || (want != nil && *want != *f.CVSS) {
			t.Errorf("%s cvss = %+v, want %+v", f.CVEID, f.CVSS, want)
		}
		// KEV as the catalogue has it.
		k, listed := kev[f.CVEID]
		switch {
		case listed != (f.KEV != nil):
			t.Errorf("%s kev = %+v, listed %v", f.CVEID, f.KEV, listed)
		case listed:
			sawKEV, sawRansomware = true, sawRansomware || f.KEV.Ransomware
			if f.KEV.DueDate == nil || *f.KEV.DueDate != k[0] || f.KEV.Ransomware != (k[1] == "Known") {
				t.Errorf("%s kev = %+v, catalogue %v", f.CVEID, f.KEV, k)
			}
		}
		// The fixed version is the versionEndExcluding of one of the CVE's flash_player ranges.
		var ends []string
		for _, c := range rec.Configurations {
			for _, n := range c.Nodes {
				for _, m := range n.CPEMatch {
					if strings.HasPrefix(m.Criteria, "cpe:2.3:a:adobe:flash_player:*") && m.EndExcluding != "" {
						ends = append(ends, m.EndExcluding)
					}
				}
			}
		}
		if f.FixedVersion != nil {
			sawFix = true
			if !slices.Contains(ends, *f.FixedVersion) {
				t.Errorf("%s fixed_version %q is none of the ranges' ends %v", f.CVEID, *f.FixedVersion, ends)
			}
		}
		if f.CVEID == "CVE-2015-0310" && (f.FixedVersion == nil || len(ends) == 0) {
			t.Errorf("CVE-2015-0310 (flash_player < %v) has no fixed version", ends)
		}
		// References: exactly the Patch / Vendor Advisory ones, with those tags.
		var wantRefs []referenceJSON
		for _, r := range rec.References {
			var tags []string
			for _, tag := range r.Tags {
				if tag == "Patch" || tag == "Vendor Advisory" {
					tags = append(tags, tag)
				}
			}
			if tags != nil {
				wantRefs = append(wantRefs, referenceJSON{URL: r.URL, Tags: tags})
			}
		}
		if fmt.Sprint(wantRefs) != fmt.Sprint(f.References) && !(len(wantRefs) == 0 && len(f.References) == 0) {
			t.Errorf("%s references = %v, want %v", f.CVEID, f.References, wantRefs)
		}
		sawRefs = sawRefs || len(f.References) > 0
		// Risk: the factors add up to the score, and the list is riskiest first.
		sum, names := 0.0, []string{}
		for _, fa := range f.Risk.Factors {
			sum += fa.Points
			names = append(names, fa.Factor)
		}
		if int(math.Min(100, math.Round(sum))) != f.Risk.Score {
			t.Errorf("%s risk %d, factors add up to %.1f: %+v", f.CVEID, f.Risk.Score, sum, f.Risk.Factors)
		}
		if !slices.Contains(names, "criticality") || (listed && !slices.Contains(names, "kev")) {
			t.Errorf("%s risk factors %v", f.CVEID, names)
		}
		if f.EPSS != nil && !listed {
			sawEPSS = true
			if !slices.Contains(names, "epss") || f.Risk.Factors[1].Value != f.EPSS.Score {
				t.Errorf("%s epss %+v, risk factors %+v", f.CVEID, f.EPSS, f.Risk.Factors)
			}
		}
		if i > 0 && detail.Vulnerabilities[i-1].Risk.Score < f.Risk.Score {
			t.Errorf("findings not riskiest first: %s %d before %s %d", detail.Vulnerabilities[i-1].CVEID,
				detail.Vulnerabilities[i-1].Risk.Score, f.CVEID, f.Risk.Score)
		}
	}
	if !sawKEV || !sawRansomware || !sawFix || !sawRefs {
		t.Errorf("no finding showed kev (%v), ransomware use (%v), a fixed version (%v) or references (%v)", sawKEV, sawRansomware, sawFix, sawRefs)
	}
	if !sawEPSS {
		t.Errorf("no finding showed the EPSS score of %s", lifted)
	}
	rank := func(d productDetail) int {
		return slices.IndexFunc(d.Vulnerabilities, func(f finding) bool { return f.CVEID == lifted })
	}
	if rank(detail) >= rank(before) {
		t.Errorf("EPSS 0.93 did not move %s up: position %d, before %d", lifted, rank(detail), rank(before))
	}
}

// Container findings of a CVE the CVE data knows carry its CVSS metric and a risk score
// without a criticality factor (an image has none); KEV is null for CVEs KEV does not list.
func TestContainerFindingsCarryCVSSAndRisk(t *testing.T) {
	env := newTestEnv(t)
	attachScans(env)
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "bob", appliance.RoleMember)
	key, _ := env.createAgentKey(t, "acme")
	importInto(t, inventory.NewImporter(env.Store), nvdMini)
	var raw struct {
		Vulnerabilities []struct {
			CVE struct {
				ID      string `json:"id"`
				Metrics struct {
					V31 []struct {
						Data struct {
							Score  float64 `json:"baseScore"`
							Vector string  `json:"vectorString"`
						} `json:"cvssData"`
					} `json:"cvssMetricV31"`
				} `json:"metrics"`
			} `json:"cve"`
		} `json:"vulnerabilities"`
	}
	data, err := os.ReadFile(nvdMini)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	known := map[string]cvssJSON{}
	for _, v := range raw.Vulnerabilities {
		if m := v.CVE.Metrics.V31; len(m) > 0 {
			known[v.CVE.ID] = cvssJSON{Version: "3.1", Score: m[0].Data.Score, Vector: m[0].Data.Vector}
		}
	}
	d := scannedNginx(t, env, key)
	scored := 0
	for _, v := range d.Vulnerabilities {
		want, ok := known[v.CVEID]
		switch {
		case ok && (v.CVSS == nil || v.CVSS.Version != want.Version || v.CVSS.Score != want.Score || v.CVSS.Vector != want.Vector):
			t.Errorf("%s cvss = %+v, want %+v", v.CVEID, v.CVSS, want)
		case !ok && v.CVSS != nil:
			t.Errorf("%s (not in the CVE data) cvss = %+v", v.CVEID, v.CVSS)
		case ok:
			scored++
		}
		if v.KEV != nil || len(v.Risk.Factors) == 0 || v.Risk.Score == 0 {
			t.Errorf("%s kev %+v risk %+v", v.CVEID, v.KEV, v.Risk)
		}
		for _, f := range v.Risk.Factors {
			if f.Factor == "criticality" {
				t.Errorf("%s: an image finding weighed a criticality: %+v", v.CVEID, v.Risk)
			}
		}
	}
	if scored == 0 {
		t.Error("no container finding of a CVE the data knows")
	}
}

// GET /api/products?sort=risk lists products riskiest first by their risk — the largest risk
// score of their findings, as the product detail shows them — products without findings last;
// order=asc turns it round; a product's criticality counts.
func TestProductsSortByRisk(t *testing.T) {
	w := &invWorld{}
	w.build(t, withInventory(&w.inv, catalogMini, nvd2015, kevFull))
	for _, p := range []map[string]any{
		{"name": "Flash Player", "vendor": "Adobe", "version": "11.2.202.400", "cpe": "cpe:2.3:a:adobe:flash_player:*:*:*:*:*:*:*:*", "criticality": 1},
		{"name": "Elasticsearch", "vendor": "Elastic", "version": "1.3.0", "cpe": "cpe:2.3:a:elastic:elasticsearch:*:*:*:*:*:*:*:*", "criticality": 5},
		{"name": "Firefox", "vendor": "Mozilla", "version": "38.0", "cpe": "cpe:2.3:a:mozilla:firefox:*:*:*:*:*:*:*:*", "criticality": 3},
		{"name": "Internal CRM", "vendor": "Zeta", "version": "1"},
	} {
		if res := w.alice.do(t, "POST", "/api/products", p); res.Status != 201 {
			t.Fatalf("create %v: %d %s", p["name"], res.Status, res.Body)
		}
	}
	type riskOnly struct {
		Vulnerabilities []struct {
			Risk riskJSON `json:"risk"`
		} `json:"vulnerabilities"`
	}
	list := decodeBody[listResponse[productJSON]](t, w.alice.do(t, "GET", "/api/products?sort=risk", nil))
	if len(list.Items) != 4 {
		t.Fatalf("products = %+v", list.Items)
	}
	prev := 101
	for _, p := range list.Items {
		d := decodeBody[riskOnly](t, w.alice.do(t, "GET", fmt.Sprintf("/api/products/%d", p.ID), nil))
		top := -1
		for _, v := range d.Vulnerabilities {
			top = max(top, v.Risk.Score)
		}
		switch {
		case top < 0 && p.Risk != nil, top >= 0 && (p.Risk == nil || *p.Risk != top):
			t.Errorf("%s risk %v, its findings' largest %d", p.Name, p.Risk, top)
		case top > prev:
			t.Errorf("%s (risk %d) listed after a product of risk %d", p.Name, top, prev)
		}
		prev = top
	}
	if last := list.Items[3]; last.Name != "Internal CRM" || last.Risk != nil {
		t.Errorf("last = %s %v, want the product without findings", last.Name, last.Risk)
	}
	asc := decodeBody[listResponse[productJSON]](t, w.alice.do(t, "GET", "/api/products?sort=risk&order=asc", nil))
	for i := range asc.Items {
		if asc.Items[i].ID != list.Items[3-i].ID {
			t.Fatalf("order=asc is not the reverse: %v vs %v", asc.Items, list.Items)
		}
	}
	// Criticality counts: the riskiest product at criticality 1 scores less.
	top := list.Items[0]
	if res := w.alice.do(t, "PUT", fmt.Sprintf("/api/products/%d", top.ID), map[string]any{"criticality": 1}); res.Status != 200 {
		t.Fatalf("update: %d %s", res.Status, res.Body)
	}
	again := decodeBody[productJSON](t, w.alice.do(t, "GET", fmt.Sprintf("/api/products/%d", top.ID), nil))
	if top.Criticality == 1 || *top.Risk == 100 {
		t.Fatalf("the riskiest product %s (criticality %d, risk %d) cannot show what criticality adds", top.Name, top.Criticality, *top.Risk)
	}
	if again.Risk == nil || *again.Risk != *top.Risk-(top.Criticality-1)*5 {
		t.Errorf("%s at criticality 1: risk %v, was %d at %d", top.Name, again.Risk, *top.Risk, top.Criticality)
	}
}
