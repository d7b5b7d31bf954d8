package advisories

import (
	"bufio"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// MaxSecDBBytes bounds one secdb file (the largest Alpine branch file is a few MB).
const MaxSecDBBytes = 64 << 20

type secdb struct {
	DistroVersion string `json:"distroversion" yaml:"distroversion"`
	Packages      []struct {
		Pkg struct {
			Name     string            `json:"name" yaml:"name"`
			Secfixes map[string]idList `json:"secfixes" yaml:"secfixes"`
		} `json:"pkg" yaml:"pkg"`
	} `json:"packages" yaml:"packages"`
}

// DecodeSecDB reads an Alpine-style secdb file, YAML (the old alpine-secdb repository) or
// JSON (secdb.alpinelinux.org, Wolfi, Chainguard). distro is "alpine", "wolfi" or
// "chainguard"; the release is the file's distroversion ("v3.16" → "3.16"), or "rolling" when
// it has none. secfixes maps a fixed version to the CVEs fixed in it, "0" meaning never
// affected; fn gets one Advisory per (CVE, package). A CVE listed under several fixed versions
// (the aport's history on older branches) takes the highest.
func DecodeSecDB(r io.Reader, distro string, fn func(Advisory) error) error {
	var db secdb
	br := bufio.NewReader(io.LimitReader(r, MaxSecDBBytes))
	if isJSON(br) {
		if err := json.NewDecoder(br).Decode(&db); err != nil {
			return appliance.Invalid("secdb", "format", "not a secdb JSON file: %v", err)
		}
	} else if err := yaml.NewDecoder(br).Decode(&db); err != nil {
		return appliance.Invalid("secdb", "format", "not a secdb YAML file: %v", err)
	}
	if distro == "" {
		distro = "alpine"
	}
	release := "rolling"
	if db.DistroVersion != "" {
		release = alpineRelease(db.DistroVersion)
	}
	eco := strings.ToUpper(distro[:1]) + distro[1:]
	if distro == "alpine" {
		eco += ":v" + release
	}
	for _, p := range db.Packages {
		for _, adv := range secfixAdvisories(p.Pkg.Name, p.Pkg.Secfixes) {
			adv.Source = Source(distro)
			for i := range adv.Affected {
				ap := &adv.Affected[i]
				ap.Ecosystem, ap.Distro, ap.Release = eco, distro, release
			}
			if err := fn(adv); err != nil {
				return err
			}
		}
	}
	return nil
}

func isJSON(br *bufio.Reader) bool {
	for {
		b, err := br.Peek(1)
		if err != nil {
			return false
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			_, _ = br.ReadByte()
		default:
			return b[0] == '{'
		}
	}
}

// secfixAdvisories turns one package's secfixes into per-CVE advisories.
func secfixAdvisories(pkg string, secfixes map[string]idList) []Advisory {
	if pkg == "" {
		return nil
	}
	fixedIn := map[string]string{}
	for ver, ids := range secfixes {
		for _, line := range ids {
			for _, id := range strings.Fields(line) {
				prev, seen := fixedIn[id]
				if !seen || laterFix(ver, prev) {
					fixedIn[id] = ver
				}
			}
		}
	}
	out := make([]Advisory, 0, len(fixedIn))
	for _, id := range slices.Sorted(maps.Keys(fixedIn)) {
		cves, aliases := splitIDs(id, []string{id})
		ap := AffectedPackage{Scheme: SchemeAPK, Package: pkg, IsSource: true}
		if v := fixedIn[id]; v == "0" {
			ap.FixState = NotAffected
		} else {
			ap.FixState, ap.Fixed = Fixed, v
			ap.Ranges = []Range{{Introduced: "0", Fixed: v}}
		}
		out = append(out, Advisory{ID: id, CVEs: cves, Aliases: aliases, Affected: []AffectedPackage{ap}})
	}
	return out
}

// laterFix tells whether fixed version a is later than b; "0" (never affected) is earliest, and
// an unparsable version never replaces a parsable one.
func laterFix(a, b string) bool {
	if b == "0" {
		return a != "0"
	}
	c, err := Compare(SchemeAPK, a, b)
	return err == nil && c > 0
}

// idList is a secfixes value: a list of ids; null, an empty object (seen in real files) or
// anything else that is not a list counts as no ids, and a lone string as one line.
type idList []string

func (l *idList) UnmarshalJSON(b []byte) error {
	var list []any
	if json.Unmarshal(b, &list) == nil {
		*l = stringsOf(list)
		return nil
	}
	var one string
	if json.Unmarshal(b, &one) == nil {
		*l = idList{one}
	}
	return nil
}

func (l *idList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if c.Kind == yaml.ScalarNode {
				*l = append(*l, c.Value)
			}
		}
	case yaml.ScalarNode:
		if n.Tag != "!!null" {
			*l = idList{n.Value}
		}
	}
	return nil
}

func stringsOf(list []any) idList {
	out := make(idList, 0, len(list))
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
