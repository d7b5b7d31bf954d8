package advisories

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// MaxFeedBytes bounds a whole feed file read by a streaming decoder (the full Debian tracker
// JSON is about 60 MB).
const MaxFeedBytes = 1 << 30

// debianCodenames maps Debian codenames to the release numbers hosts report as VERSION_ID.
var debianCodenames = map[string]string{
	"woody": "3.0", "sarge": "3.1", "etch": "4", "lenny": "5", "squeeze": "6", "wheezy": "7",
	"jessie": "8", "stretch": "9", "buster": "10", "bullseye": "11", "bookworm": "12",
	"trixie": "13", "forky": "14", "duke": "15", "sid": "sid", "unstable": "sid",
}

// DebianRelease returns the release number of a Debian codename ("bullseye" → "11"), or the
// codename itself when it is not known.
func DebianRelease(codename string) string {
	if r, ok := debianCodenames[strings.ToLower(codename)]; ok {
		return r
	}
	return codename
}

type trackerRelease struct {
	Status       string `json:"status"`
	FixedVersion string `json:"fixed_version"`
	Urgency      string `json:"urgency"`
	NoDSA        string `json:"nodsa"`
	NoDSAReason  string `json:"nodsa_reason"`
}

type trackerCVE struct {
	Description string          `json:"description"`
	Releases    json.RawMessage `json:"releases"`
}

// DecodeDebianTracker streams the Debian Security Tracker JSON
// ({source: {CVE: {releases: {codename: {status, fixed_version …}}}}}) and hands fn one
// Advisory per (CVE, source package), its Affected holding one entry per release.
func DecodeDebianTracker(r io.Reader, fn func(Advisory) error) error {
	dec := json.NewDecoder(io.LimitReader(r, MaxFeedBytes))
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return trackerErr(err)
		}
		src, _ := tok.(string)
		var cves map[string]trackerCVE
		if err := dec.Decode(&cves); err != nil {
			return trackerErr(fmt.Errorf("package %q: %w", src, err))
		}
		for _, id := range slices.Sorted(maps.Keys(cves)) {
			c := cves[id]
			if err := fn(trackerAdvisory(src, id, &c)); err != nil {
				return err
			}
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return err
	}
	return nil
}

func trackerErr(err error) error {
	return appliance.Invalid("debian_tracker", "format", "not Debian tracker JSON: %v", err)
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return trackerErr(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return trackerErr(fmt.Errorf("expected %q, got %v", want, tok))
	}
	return nil
}

func trackerAdvisory(src, id string, c *trackerCVE) Advisory {
	cves, aliases := splitIDs(id, []string{id})
	adv := Advisory{ID: id, Source: SourceDebian, CVEs: cves, Aliases: aliases, Summary: c.Description}
	var rels map[string]trackerRelease
	if json.Unmarshal(c.Releases, &rels) != nil { // an empty list or another shape: no release data
		return adv
	}
	for _, n := range slices.Sorted(maps.Keys(rels)) {
		rel := rels[n]
		ap := debianEntry(DebianRelease(n), src)
		switch {
		case rel.Status == "resolved" && (rel.FixedVersion == "0" || rel.FixedVersion == ""):
			ap.FixState = NotAffected
		case rel.Status == "resolved":
			ap.FixState, ap.Fixed = Fixed, rel.FixedVersion
			ap.Ranges = []Range{{Introduced: "0", Fixed: rel.FixedVersion}}
		default:
			ap.FixState, ap.Note = NotFixed, rel.NoDSAReason
			if rel.NoDSAReason == "ignored" || rel.Urgency == "end-of-life" {
				ap.FixState = WontFix
			}
			if ap.Note == "" && rel.Urgency == "end-of-life" {
				ap.Note = rel.Urgency
			}
			ap.Ranges = []Range{{Introduced: "0"}}
		}
		adv.Affected = append(adv.Affected, ap)
	}
	return adv
}

func debianEntry(release, src string) AffectedPackage {
	return AffectedPackage{
		Ecosystem: "Debian:" + release, Distro: "debian", Release: release, Scheme: SchemeDpkg,
		Package: src, IsSource: true,
	}
}

// DecodeDebianList reads the security tracker's source lists: data/DSA/list, data/DLA/list
// ("[07 Feb 2023] DSA-5343-1 openssl - security update", "\t{CVE-…}",
// "\t[bullseye] - openssl 1.1.1n-0+deb11u4") and data/CVE/list ("CVE-2023-5981 (…)",
// "\t[bookworm] - gnutls28 3.7.9-2+deb12u1", "\t- gnutls28 3.8.2-1" for sid). Each entry
// becomes one Advisory with one Affected per release line.
func DecodeDebianList(r io.Reader, fn func(Advisory) error) error {
	sc := bufio.NewScanner(io.LimitReader(r, MaxFeedBytes))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var cur *Advisory
	flush := func() error {
		if cur == nil || cur.ID == "" {
			return nil
		}
		sortStrings(cur.CVEs)
		adv := *cur
		cur = nil
		return fn(adv)
	}
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		if line[0] != ' ' && line[0] != '\t' {
			if err := flush(); err != nil {
				return err
			}
			cur = listHeader(line)
			continue
		}
		if cur != nil {
			cur.listBody(strings.TrimSpace(line))
		}
	}
	if err := sc.Err(); err != nil {
		return appliance.Invalid("debian_list", "format", "reading the list: %v", err)
	}
	return flush()
}

// listHeader parses "[07 Feb 2023] DSA-5343-1 openssl - …" or "CVE-2023-5981 (…)".
func listHeader(line string) *Advisory {
	adv := &Advisory{Source: SourceDebian}
	if strings.HasPrefix(line, "[") {
		date, rest, ok := strings.Cut(line[1:], "]")
		if !ok {
			return adv
		}
		adv.Published, _ = time.Parse("02 Jan 2006", strings.TrimSpace(date))
		line = strings.TrimSpace(rest)
	}
	id, rest, _ := strings.Cut(line, " ")
	adv.ID = id
	if isCVE(id) {
		adv.CVEs = []string{id}
	}
	if _, text, ok := strings.Cut(rest, " - "); ok {
		adv.Summary = strings.TrimSpace(text)
	} else {
		adv.Summary = strings.Trim(strings.TrimSpace(rest), "()")
	}
	return adv
}

// listBody reads one indented line of an entry.
func (adv *Advisory) listBody(line string) {
	switch {
	case strings.HasPrefix(line, "{"):
		for _, id := range strings.Fields(strings.Trim(line, "{}")) {
			if isCVE(id) {
				adv.CVEs = appendUnique(adv.CVEs, id)
			} else if id != adv.ID {
				adv.Aliases = appendUnique(adv.Aliases, id)
			}
		}
	case strings.HasPrefix(line, "["):
		rel, rest, ok := strings.Cut(line[1:], "]")
		if ok {
			adv.listPackage(DebianRelease(strings.TrimSpace(rel)), strings.TrimSpace(rest))
		}
	case strings.HasPrefix(line, "- "):
		adv.listPackage("sid", line)
	}
}

// listPackage reads "- src version (note)" or "- src <state> (note)" for release.
func (adv *Advisory) listPackage(release, s string) {
	f := strings.Fields(strings.TrimPrefix(s, "-"))
	if len(f) < 2 {
		return
	}
	ap := debianEntry(release, f[0])
	state := f[1]
	switch {
	case !strings.HasPrefix(state, "<"):
		ap.FixState, ap.Fixed = Fixed, state
		ap.Ranges = []Range{{Introduced: "0", Fixed: state}}
	case state == "<not-affected>":
		ap.FixState = NotAffected
	case state == "<ignored>" || state == "<end-of-life>":
		ap.FixState, ap.Note = WontFix, strings.Trim(state, "<>")
		ap.Ranges = []Range{{Introduced: "0"}}
	case state == "<unfixed>" || state == "<no-dsa>" || state == "<postponed>" || state == "<undetermined>":
		ap.FixState, ap.Note = NotFixed, strings.Trim(state, "<>")
		ap.Ranges = []Range{{Introduced: "0"}}
	default: // <removed>, <itp>: the package is not in the release
		return
	}
	adv.Affected = append(adv.Affected, ap)
}

func appendUnique(s []string, v string) []string {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}
