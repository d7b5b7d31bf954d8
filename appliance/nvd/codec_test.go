package nvd

import (
	"path/filepath"
	"reflect"
	"testing"
)

func equalConfigurations(a, b []Configuration) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func TestConfigurationsRoundTripOnRealFeed(t *testing.T) {
	feed, _ := importPath(t, filepath.Join(dataDir, "nvd", "nvdcve-2.0-2015.json.gz"))
	original, encoded := 0, 0
	for _, c := range feed.cves {
		data := EncodeConfigurations(c.Configurations)
		got, err := DecodeConfigurations(data)
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		if !equalConfigurations(got, c.Configurations) {
			t.Fatalf("%s: round trip gave %+v, want %+v", c.ID, got, c.Configurations)
		}
		encoded += len(data)
		original += nvdSize(c.Configurations)
	}
	// Short keys and omitted defaults must save at least a fifth of NVD's form.
	if encoded*5 > original*4 {
		t.Errorf("encoded %d bytes for %d bytes in NVD's form; want at most 80%%", encoded, original)
	}
}

// nvdSize approximates the bytes NVD spends on a configuration: its key names per match.
func nvdSize(configs []Configuration) int {
	const perMatch = len(`{"vulnerable":false,"criteria":"","matchCriteriaId":""},`)
	const perNode = len(`{"operator":"OR","negate":false,"cpeMatch":[]},`)
	size := 0
	for _, c := range configs {
		size += len(`{"nodes":[]},`)
		for _, n := range c.Nodes {
			size += perNode
			for _, m := range n.Matches {
				size += perMatch + len(m.Criteria) + len(m.MatchCriteriaID) +
					len(m.VersionStartIncluding) + len(m.VersionStartExcluding) +
					len(m.VersionEndIncluding) + len(m.VersionEndExcluding)
			}
		}
	}
	return size
}

func TestDecodeConfigurations(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    []Configuration
		wantErr bool
	}{
		{"empty is none", "", nil, false},
		{"defaults restored", `[{"d":[{"m":[{"c":"cpe:2.3:a:x:y:1:*:*:*:*:*:*:*"}]}]}]`,
			[]Configuration{{Operator: "OR", Nodes: []Node{{Operator: "OR", Matches: []Match{{Criteria: "cpe:2.3:a:x:y:1:*:*:*:*:*:*:*"}}}}}}, false},
		{"and with negation", `[{"o":"AND","n":true,"d":[{"o":"AND","n":true,"m":[]}]}]`,
			[]Configuration{{Operator: "AND", Negate: true, Nodes: []Node{{Operator: "AND", Negate: true, Matches: []Match{}}}}}, false},
		{"not json", `[{`, nil, true},
		{"bad operator", `[{"o":"NOR","d":[]}]`, nil, true},
		{"bad node operator", `[{"d":[{"o":"NOR","m":[]}]}]`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeConfigurations([]byte(tt.data))
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, wantErr %v", err, tt.wantErr)
			}
			if !equalConfigurations(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
