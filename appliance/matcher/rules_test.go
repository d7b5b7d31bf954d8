package matcher

import (
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"

	"github.com/vulnkeeper/vulnkeeper/appliance/nvd"
)

const (
	xAny     = "cpe:2.3:a:x:y:*:*:*:*:*:*:*:*"
	xNA      = "cpe:2.3:a:x:y:-:*:*:*:*:*:*:*"
	x10      = "cpe:2.3:a:x:y:1.0:*:*:*:*:*:*:*"
	x15      = "cpe:2.3:a:x:y:1.5:*:*:*:*:*:*:*"
	x10beta  = "cpe:2.3:a:x:y:1.0:beta1:*:*:*:*:*:*"
	x10noUpd = "cpe:2.3:a:x:y:1.0:-:*:*:*:*:*:*"
	xOS      = "cpe:2.3:o:x:y:1.0:*:*:*:*:*:*:*"
	windows  = "cpe:2.3:o:microsoft:windows:-:*:*:*:*:*:*:*"
	linux    = "cpe:2.3:o:linux:linux_kernel:*:*:*:*:*:*:*:*"
	other    = "cpe:2.3:a:other:plugin:2.0:*:*:*:*:*:*:*"
)

type ruleCase struct {
	name     string
	configs  []nvd.Configuration
	query    Query
	match    bool
	platform string
}

func TestMatchVersionRules(t *testing.T) {
	inRange := func(si, se, ei, ee string) []nvd.Configuration {
		return []nvd.Configuration{orConfig(anyOf(ranged(vulnerable(xAny), si, se, ei, ee)))}
	}
	exact := []nvd.Configuration{orConfig(anyOf(vulnerable(x10)))}
	tests := []ruleCase{
		{"exact equal", exact, product("x", "y", "1.0"), true, ""},
		{"exact equal spelled longer", exact, product("x", "y", "1.0.0"), true, ""},
		{"exact other version", exact, product("x", "y", "1.0.1"), false, ""},
		{"exact needs a version", exact, product("x", "y", ""), false, ""},
		{"start including at bound", inRange("1.0", "", "", ""), product("x", "y", "1.0"), true, ""},
		{"start including below", inRange("1.0", "", "", ""), product("x", "y", "0.9"), false, ""},
		{"start excluding at bound", inRange("", "1.0", "", ""), product("x", "y", "1.0"), false, ""},
		{"start excluding above", inRange("", "1.0", "", ""), product("x", "y", "1.0.1"), true, ""},
		{"end including at bound", inRange("", "", "8.5.6", ""), product("x", "y", "8.5.6"), true, ""},
		{"end including above", inRange("", "", "8.5.6", ""), product("x", "y", "8.5.7"), false, ""},
		{"end excluding at bound", inRange("", "", "", "1.1.1l"), product("x", "y", "1.1.1l"), false, ""},
		{"end excluding letter below", inRange("", "", "", "1.1.1l"), product("x", "y", "1.1.1k"), true, ""},
		{"both ends inside", inRange("1.1.1", "", "", "1.1.1l"), product("x", "y", "1.1.1"), true, ""},
		{"both ends outside", inRange("1.1.1", "", "", "1.1.1l"), product("x", "y", "1.1.0"), false, ""},
		{"excluding both ends inside", inRange("", "1.0", "2.0", ""), product("x", "y", "2.0"), true, ""},
		{"stricter start kept", inRange("1.0", "1.5", "", ""), product("x", "y", "1.2"), false, ""},
		{"range needs a version", inRange("1.0", "", "", ""), product("x", "y", ""), false, ""},
		{"unbounded any version", []nvd.Configuration{orConfig(anyOf(vulnerable(xAny)))}, product("x", "y", "99"), true, ""},
		{"unbounded without version", []nvd.Configuration{orConfig(anyOf(vulnerable(xAny)))}, product("x", "y", ""), true, ""},
		{"NA matches no version", []nvd.Configuration{orConfig(anyOf(vulnerable(xNA)))}, product("x", "y", ""), true, ""},
		{"NA matches dash", []nvd.Configuration{orConfig(anyOf(vulnerable(xNA)))}, product("x", "y", "-"), true, ""},
		{"NA refuses a version", []nvd.Configuration{orConfig(anyOf(vulnerable(xNA)))}, product("x", "y", "1.0"), false, ""},
	}
	runRules(t, tests)
}

func TestMatchIdentityRules(t *testing.T) {
	beta := []nvd.Configuration{orConfig(anyOf(vulnerable(x10beta)))}
	withUpdate := func(q Query, update string) Query { q.Update = update; return q }
	withPart := func(q Query, part string) Query { q.Part = part; return q }
	tests := []ruleCase{
		{"named update equal", beta, withUpdate(product("x", "y", "1.0"), "beta1"), true, ""},
		{"named update any case", beta, withUpdate(product("x", "y", "1.0"), "BETA1"), true, ""},
		{"named update needs one", beta, product("x", "y", "1.0"), false, ""},
		{"named update differs", beta, withUpdate(product("x", "y", "1.0"), "beta2"), false, ""},
		{"any update takes one", []nvd.Configuration{orConfig(anyOf(vulnerable(x10)))}, withUpdate(product("x", "y", "1.0"), "sp1"), true, ""},
		{"NA update refuses one", []nvd.Configuration{orConfig(anyOf(vulnerable(x10noUpd)))}, withUpdate(product("x", "y", "1.0"), "sp1"), false, ""},
		{"NA update takes none", []nvd.Configuration{orConfig(anyOf(vulnerable(x10noUpd)))}, product("x", "y", "1.0"), true, ""},
		{"part differs", []nvd.Configuration{orConfig(anyOf(vulnerable(xOS)))}, withPart(product("x", "y", "1.0"), "a"), false, ""},
		{"part equal", []nvd.Configuration{orConfig(anyOf(vulnerable(xOS)))}, withPart(product("x", "y", "1.0"), "o"), true, ""},
		{"query without part", []nvd.Configuration{orConfig(anyOf(vulnerable(xOS)))}, product("x", "y", "1.0"), true, ""},
		{"other vendor", []nvd.Configuration{orConfig(anyOf(vulnerable(x10)))}, product("z", "y", "1.0"), false, ""},
		{"alias spelling", []nvd.Configuration{orConfig(anyOf(vulnerable("cpe:2.3:a:haxx:curl:7.1:*:*:*:*:*:*:*")))},
			Query{Aliases: []appliance.Identity{{Vendor: "curl", Product: "curl"}, {Vendor: "haxx", Product: "curl"}}, Version: "7.1"}, true, ""},
		{"escaped name", []nvd.Configuration{orConfig(anyOf(vulnerable(`cpe:2.3:a:notepad-plus-plus:notepad\+\+:8.5:*:*:*:*:*:*:*`)))},
			product("notepad-plus-plus", "notepad++", "8.5"), true, ""},
	}
	runRules(t, tests)
}

func TestMatchConfigurationRules(t *testing.T) {
	app := anyOf(vulnerable(x10))
	tests := []ruleCase{
		{"platform-only never alone", []nvd.Configuration{orConfig(anyOf(platformOnly(x10)))}, product("x", "y", "1.0"), false, ""},
		{"platform of an AND is recorded", []nvd.Configuration{andConfig(app, anyOf(platformOnly(windows)))},
			product("x", "y", "1.0"), true, "on microsoft:windows"},
		{"platform names sorted", []nvd.Configuration{andConfig(anyOf(platformOnly(windows), platformOnly(linux)), app)},
			product("x", "y", "1.0"), true, "on linux:linux_kernel, microsoft:windows"},
		{"the platform itself is not vulnerable", []nvd.Configuration{andConfig(app, anyOf(platformOnly(windows)))},
			product("microsoft", "windows", "-"), false, ""},
		{"AND needs the application", []nvd.Configuration{andConfig(app, anyOf(platformOnly(windows)))},
			product("x", "y", "2.0"), false, ""},
		{"other vulnerable product in the OR node", []nvd.Configuration{orConfig(anyOf(vulnerable(other), vulnerable(x10)))},
			product("x", "y", "1.0"), true, ""},
		{"only the other product matches", []nvd.Configuration{orConfig(anyOf(vulnerable(other), vulnerable(x10)))},
			product("x", "y", "2.0"), false, ""},
		{"two vulnerable nodes", []nvd.Configuration{andConfig(app, anyOf(vulnerable(other)))},
			product("x", "y", "1.0"), true, "on other:plugin"},
		{"unconditional configuration preferred", []nvd.Configuration{andConfig(app, anyOf(platformOnly(windows))), orConfig(app)},
			product("x", "y", "1.0"), true, ""},
		{"AND node inside", []nvd.Configuration{orConfig(allOf(vulnerable(x10), platformOnly(windows)))},
			product("x", "y", "1.0"), true, "on microsoft:windows"},
		{"AND node of two ranges", []nvd.Configuration{orConfig(allOf(ranged(vulnerable(xAny), "1.0", "", "", ""), ranged(vulnerable(xAny), "", "", "", "2.0")))},
			product("x", "y", "1.5"), true, ""},
		{"AND node of two ranges outside", []nvd.Configuration{orConfig(allOf(ranged(vulnerable(xAny), "1.0", "", "", ""), ranged(vulnerable(xAny), "", "", "", "2.0")))},
			product("x", "y", "2.5"), false, ""},
		{"negated other product assumed absent", []nvd.Configuration{andConfig(app, negated(anyOf(platformOnly(windows))))},
			product("x", "y", "1.0"), true, "not on microsoft:windows"},
		{"negated node of the queried product excludes", []nvd.Configuration{andConfig(anyOf(ranged(vulnerable(xAny), "1.0", "", "2.0", "")), negated(anyOf(platformOnly(x15))))},
			product("x", "y", "1.5"), false, ""},
		{"negated node of the queried product admits", []nvd.Configuration{andConfig(anyOf(ranged(vulnerable(xAny), "1.0", "", "2.0", "")), negated(anyOf(platformOnly(x15))))},
			product("x", "y", "1.4"), true, ""},
		{"negated vulnerable match is never decisive", []nvd.Configuration{orConfig(negated(app))}, product("x", "y", "1.0"), false, ""},
		{"negated configuration", []nvd.Configuration{{Operator: "OR", Negate: true, Nodes: []nvd.Node{app}}}, product("x", "y", "1.0"), false, ""},
	}
	runRules(t, tests)
}

func runRules(t *testing.T, tests []ruleCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder()
			b.Add("CVE-2024-0001", tt.configs)
			got := b.Build().Match(tt.query)
			if !tt.match {
				if len(got) != 0 {
					t.Fatalf("got %+v, want no finding", got)
				}
				return
			}
			if len(got) != 1 || got[0].CVEID != "CVE-2024-0001" || got[0].Platform != tt.platform {
				t.Fatalf("got %+v, want one finding with platform %q", got, tt.platform)
			}
			if got[0].Criteria == "" || !strings.HasPrefix(got[0].MatchCriteriaID, "id:"+got[0].Criteria) {
				t.Errorf("finding %+v does not name the criteria that matched", got[0])
			}
		})
	}
}
