package collect

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
)

// recordedRegistry answers from a recorded key set: full key path → values.
type recordedRegistry map[string]map[string]any

func loadRegistry(t *testing.T, file string) recordedRegistry {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Keys recordedRegistry `json:"keys"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec.Keys
}

func (r recordedRegistry) SubKeys(path string) ([]string, error) {
	seen := map[string]bool{}
	for k := range r {
		if rest, ok := strings.CutPrefix(k, path+`\`); ok {
			seen[strings.SplitN(rest, `\`, 2)[0]] = true
		}
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

func (r recordedRegistry) Values(path string) (map[string]any, error) { return r[path], nil }

func TestWindowsRecordedDesktop(t *testing.T) {
	reg := loadRegistry(t, "testdata/windows-desktop.json")
	o, prods, err := Collect(Host{GOOS: "windows", Arch: "amd64", Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	wantOS := OS{Name: "Windows 10 Pro", Version: "22H2", ID: "windows", VersionID: "10.0", Codename: "Professional", Build: "19045.4291", Arch: "amd64"}
	if o != wantOS {
		t.Errorf("os %+v want %+v", o, wantOS)
	}
	want := []Product{
		{Vendor: "Igor Pavlov", Product: "7-Zip 19.00 (x64)", Version: "19.00", Source: "windows"},
		{Vendor: "Google LLC", Product: "Google Chrome", Version: "126.0.6478.127", Source: "windows"},
		{Vendor: "Oracle Corporation", Product: "Java 8 Update 301 (64-bit)", Version: "8.0.3010.9", Source: "windows"},
		{Vendor: "Python Software Foundation", Product: "Python 3.9.1 (64-bit)", Version: "3.9.1150.0", Source: "windows"},
		{Vendor: "Zoom Video Communications, Inc.", Product: "Zoom", Version: "5.7.4 (804)", Source: "windows"},
	}
	sameProducts(t, prods, want)
}

func TestWindows11FromBuild(t *testing.T) {
	reg := recordedRegistry{currentVer: {"ProductName": "Windows 10 Enterprise", "DisplayVersion": "23H2",
		"CurrentBuild": "22631", "UBR": float64(3880), "EditionID": "Enterprise"}}
	o, err := WindowsOS(reg)
	if err != nil {
		t.Fatal(err)
	}
	if o.Name != "Windows 11 Enterprise" || o.Build != "22631.3880" {
		t.Fatalf("got %+v", o)
	}
}
