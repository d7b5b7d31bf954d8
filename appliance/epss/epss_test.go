package epss

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

const dataDir = "../../../shared/data/epss/"

func parseAll(t *testing.T, text string) ([]appliance.EPSSScore, error) {
	t.Helper()
	var out []appliance.EPSSScore
	_, err := Parse(context.Background(), strings.NewReader(text), func(s appliance.EPSSScore) error {
		out = append(out, s)
		return nil
	})
	return out, err
}

func TestParseRealFiles(t *testing.T) {
	for _, tt := range []struct {
		file  string
		rows  int
		date  string
		first appliance.EPSSScore
	}{
		{"epss_scores-2026-09-29.excerpt-head.csv", 534, "2026-09-29", appliance.EPSSScore{CVEID: "CVE-1999-0001", Score: 0.03351, Percentile: 0.88255}},
		{"vunnel_example-1_epss_scores-2025-02-20.csv", 5, "2025-02-20", appliance.EPSSScore{CVEID: "CVE-1999-0001", Score: 0.00383, Percentile: 0.73075}},
	} {
		b, err := os.ReadFile(dataDir + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		if !Header(b) {
			t.Errorf("%s: not recognised", tt.file)
		}
		got, err := parseAll(t, string(b))
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		want := tt.first
		want.Date, _ = time.Parse(time.DateOnly, tt.date)
		if len(got) != tt.rows || got[0] != want {
			t.Errorf("%s: %d rows, first %+v; want %d, %+v", tt.file, len(got), got[0], tt.rows, want)
		}
	}
}

func TestParseRefusesMalformed(t *testing.T) {
	const head = "#model_version:v2025.03.14,score_date:2025-03-16T12:55:00Z\ncve,epss,percentile\n"
	for name, text := range map[string]string{
		"no comment line": "cve,epss,percentile\nCVE-2021-1,0.1,0.2\n",
		"other header":    "#model_version:v1,score_date:2025-03-16T00:00:00Z\ncve,score\n",
		"score above one": head + "CVE-2021-1,1.5,0.2\n",
		"not a number":    head + "CVE-2021-1,abc,0.2\n",
		"missing column":  head + "CVE-2021-1,0.1\n",
		"not a CVE id":    head + "GHSA-1,0.1,0.2\n",
		"no score_date":   "#model_version:v1\ncve,epss,percentile\n",
		"empty":           "",
		"bad score_date":  "#model_version:v1,score_date:yesterday!\ncve,epss,percentile\n",
	} {
		_, err := parseAll(t, text)
		var ve *appliance.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: err = %v, want a validation error", name, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	b, err := os.ReadFile(dataDir + "vunnel_example-1_epss_scores-2025-02-20.csv")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Fuzz(func(t *testing.T, text string) {
		_, _ = Parse(context.Background(), strings.NewReader(text), func(appliance.EPSSScore) error { return nil })
	})
}
