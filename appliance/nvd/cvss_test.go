package nvd

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Every record of the real 2026 feed (thousands with CVSS v4.0 from their CNA) is scored by
// the newest CVSS version it has, the Primary metric of that version when there is one, and
// keeps the references tagged Patch or Vendor Advisory.
func TestScoreChoiceAndReferencesOnTheRealFeed(t *testing.T) {
	path := filepath.Join(dataDir, "nvd", "nvdcve-2.0-2026.json.gz")
	got, _ := importPath(t, path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Vulnerabilities []struct {
			CVE struct {
				ID      string                       `json:"id"`
				Metrics map[string][]json.RawMessage `json:"metrics"`
				Refs    []struct {
					Tags []string `json:"tags"`
				} `json:"references"`
			} `json:"cve"`
		} `json:"vulnerabilities"`
	}
	if err := json.NewDecoder(zr).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	byID := map[string]CVE{}
	for _, c := range got.cves {
		byID[c.ID] = c
	}
	v40, secondaryOnly := 0, 0
	for _, r := range raw.Vulnerabilities {
		c := byID[r.CVE.ID]
		want := ""
		for _, k := range []struct{ key, version string }{{"cvssMetricV40", "4.0"}, {"cvssMetricV31", "3.1"}, {"cvssMetricV30", "3.0"}, {"cvssMetricV2", "2.0"}} {
			if len(r.CVE.Metrics[k.key]) > 0 {
				want = k.version
				var primary bool
				for _, m := range r.CVE.Metrics[k.key] {
					var head struct{ Type string }
					_ = json.Unmarshal(m, &head)
					primary = primary || head.Type == "Primary"
				}
				if primary != (c.ScoreSource == SourceNVD) {
					t.Errorf("%s: source %q, a Primary %s metric exists: %v", c.ID, c.ScoreSource, want, primary)
				}
				if !primary {
					secondaryOnly++
				}
				break
			}
		}
		if c.ScoreVersion != want {
			t.Errorf("%s scored by CVSS %q, want %q", c.ID, c.ScoreVersion, want)
		}
		if want == "4.0" {
			v40++
		}
		n := 0
		for _, ref := range r.CVE.Refs {
			for _, tag := range ref.Tags {
				if tag == "Patch" || tag == "Vendor Advisory" {
					n++
					break
				}
			}
		}
		if len(c.References) != n {
			t.Errorf("%s: %d references kept, %d tagged Patch or Vendor Advisory", c.ID, len(c.References), n)
		}
	}
	if v40 == 0 || secondaryOnly == 0 {
		t.Fatalf("the feed exercised no v4.0 choice (%d) or no CNA-only score (%d)", v40, secondaryOnly)
	}
}
