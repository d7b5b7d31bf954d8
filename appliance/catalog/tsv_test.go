package catalog

import (
	"bufio"
	"compress/gzip"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// The file has 110,094 rows (a 74490, o 13686, h 21918). Five application rows differ from
// another row only in letter case (e.g. "Autodesk 3ds_Max" beside "autodesk 3ds_max"); lowercased
// they name the same identity and are emitted once.
func TestParseVendorProductTSV(t *testing.T) {
	rows := countTSVRows(t, vendorProductTSV)
	if rows != 110094 {
		t.Fatalf("file has %d data rows, want 110094", rows)
	}
	ids := parseAll(t, vendorProductTSV)
	want := map[string]int{"a": 74490 - 5, "o": 13686, "h": 21918}
	if got := countParts(ids); len(got) != 3 || got["a"] != want["a"] || got["o"] != want["o"] || got["h"] != want["h"] {
		t.Errorf("identities per part = %v, want %v", got, want)
	}
	if len(ids) != rows-5 {
		t.Errorf("%d identities from %d rows, want rows-5", len(ids), rows)
	}
	checkKnownIdentities(t, byKey(ids))
}

func checkKnownIdentities(t *testing.T, m map[identityKey]appliance.CatalogEntry) {
	t.Helper()
	for _, k := range []identityKey{
		{"a", "notepad-plus-plus", "notepad++"},
		{"a", "autodesk", "3ds_max"},
		{"a", "nodejs", "node.js"},
		{"o", "microsoft", "windows_10"},
		{"h", "-", "wireless_ip_camera_360"},
	} {
		if _, ok := m[k]; !ok {
			t.Errorf("identity %v missing", k)
		}
	}
}

// countTSVRows counts non-header lines independently of the parser under test.
func countTSVRows(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc, rows := bufio.NewScanner(zr), 0
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "part\t") {
			rows++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestParseCatalogMini(t *testing.T) {
	ids := parseAll(t, catalogMiniTSV)
	if len(ids) != 29 {
		t.Fatalf("got %d identities, want 29", len(ids))
	}
	want := appliance.CatalogEntry{Identity: appliance.Identity{Part: "a", Vendor: "notepad-plus-plus", Product: "notepad++"}, Title: "Notepad++"}
	if got := byKey(ids)[keyOf(want)]; got != want {
		t.Errorf("notepad++ = %+v, want %+v", got, want)
	}
}

func TestParseTSVLines(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []appliance.CatalogEntry
	}{
		{"escaped value", "a\tnotepad-plus-plus\tnotepad\\+\\+\tNotepad++\n",
			[]appliance.CatalogEntry{{Identity: appliance.Identity{Part: "a", Vendor: "notepad-plus-plus", Product: "notepad++"}, Title: "Notepad++"}}},
		{"plain value", "a\tnotepad-plus-plus\tnotepad++\n",
			[]appliance.CatalogEntry{{Identity: appliance.Identity{Part: "a", Vendor: "notepad-plus-plus", Product: "notepad++"}}}},
		{"escaped backslash and colon", "a\tacme\tx\\\\y\\:z\n",
			[]appliance.CatalogEntry{{Identity: appliance.Identity{Part: "a", Vendor: "acme", Product: `x\y:z`}}}},
		{"header, CRLF, BOM, blank lines", "\ufeffpart\tvendor\tproduct\ttitle\r\n\r\no\tDebian\tDebian_Linux\tDebian  GNU/Linux\r\n\n",
			[]appliance.CatalogEntry{{Identity: appliance.Identity{Part: "o", Vendor: "debian", Product: "debian_linux"}, Title: "Debian GNU/Linux"}}},
		{"sources say CVE data names it; further columns ignored", "h\tcisco\tasa_5505\tCisco ASA 5505\tnvd20,cpedict\textra\n",
			[]appliance.CatalogEntry{{Identity: appliance.Identity{Part: "h", Vendor: "cisco", Product: "asa_5505"}, Title: "Cisco ASA 5505", CVEUsed: true}}},
		{"dictionary sources only", "a\tmicrosoft\toffice_2016\t\tcpedict,dict2015\n",
			[]appliance.CatalogEntry{{Identity: appliance.Identity{Part: "a", Vendor: "microsoft", Product: "office_2016"}}}},
		{"duplicates by case collapse, first wins", "a\tCurl\tcurl\tFirst\na\tcurl\tCURL\tSecond\n",
			[]appliance.CatalogEntry{{Identity: appliance.Identity{Part: "a", Vendor: "curl", Product: "curl"}, Title: "First"}}},
		{"header only", "part\tvendor\tproduct\n", nil},
		{"empty input", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseString(tt.input)
			if err != nil {
				t.Fatal(err)
			}
			if !equalIdentities(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseTSVMalformed(t *testing.T) {
	tests := []struct {
		name, input, wantInMessage string
	}{
		{"two columns", "a\tacme\tx\na\tacme\n", "line 2"},
		{"bad part", "part\tvendor\tproduct\nx\tacme\tthing\n", "line 2: part"},
		{"empty product", "a\tacme\t \n", "line 1: product"},
		{"any vendor", "a\t*\tthing\n", "line 1: vendor"},
		{"space inside value", "a\tacme corp\tthing\n", "line 1: vendor"},
		{"lone trailing backslash", "a\tacme\tthing\\\n", "line 1: product"},
		{"header not first", "a\tacme\tx\npart\tvendor\tproduct\n", "line 2: part"},
		{"comment line", "# a comment\n", "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseString(tt.input)
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want a *appliance.ValidationError", err)
			}
			if !strings.Contains(err.Error(), tt.wantInMessage) {
				t.Errorf("error %q does not mention %q", err, tt.wantInMessage)
			}
		})
	}
}

func TestParseTSVLineTooLong(t *testing.T) {
	long := "a\tacme\t" + strings.Repeat("x", maxTSVLine) + "\n"
	_, err := parseString("a\tacme\tok\n" + long)
	var ve *appliance.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(ve.Message, "line 2") {
		t.Fatalf("err = %v, want a validation error naming line 2", err)
	}
}

func equalIdentities(a, b []appliance.CatalogEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
