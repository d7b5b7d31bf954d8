package advisories

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// MaxRecordBytes bounds one OSV record (the largest real ones are well under 1 MB).
const MaxRecordBytes = 8 << 20

// osvRecord is the part of the OSV schema we read.
type osvRecord struct {
	ID               string          `json:"id"`
	Summary          string          `json:"summary"`
	Aliases          []string        `json:"aliases"`
	Related          []string        `json:"related"`
	Upstream         []string        `json:"upstream"`
	Published        string          `json:"published"`
	Modified         string          `json:"modified"`
	Withdrawn        string          `json:"withdrawn"`
	Affected         []osvAffected   `json:"affected"`
	DatabaseSpecific json.RawMessage `json:"database_specific"`
}

type osvAffected struct {
	Package struct {
		Ecosystem string `json:"ecosystem"`
		Name      string `json:"name"`
	} `json:"package"`
	Ranges []struct {
		Type   string            `json:"type"`
		Events []json.RawMessage `json:"events"`
	} `json:"ranges"`
	Versions          []string        `json:"versions"`
	EcosystemSpecific json.RawMessage `json:"ecosystem_specific"`
	DatabaseSpecific  json.RawMessage `json:"database_specific"`
}

// ubuntuSpecific is Ubuntu's ecosystem_specific; binaries comes in two shapes.
type ubuntuSpecific struct {
	Binaries       []map[string]string `json:"binaries"`
	UbuntuPriority string              `json:"ubuntu_priority"`
}

// DecodeOSV reads one OSV record (at most MaxRecordBytes).
func DecodeOSV(r io.Reader) (Advisory, error) {
	var rec osvRecord
	dec := json.NewDecoder(io.LimitReader(r, MaxRecordBytes))
	if err := dec.Decode(&rec); err != nil {
		return Advisory{}, appliance.Invalid("osv", "format", "not an OSV record: %v", err)
	}
	if rec.ID == "" {
		return Advisory{}, appliance.Invalid("osv", "format", "OSV record without id")
	}
	return rec.normalize(), nil
}

func (rec *osvRecord) normalize() Advisory {
	ids := append(append(append([]string{rec.ID}, rec.Aliases...), rec.Related...), rec.Upstream...)
	cves, aliases := splitIDs(rec.ID, ids)
	adv := Advisory{
		ID: rec.ID, Summary: rec.Summary, CVEs: cves, Aliases: aliases,
		Published: parseTime(rec.Published), Modified: parseTime(rec.Modified),
		Withdrawn: rec.Withdrawn != "",
	}
	for i := range rec.Affected {
		adv.Affected = append(adv.Affected, rec.Affected[i].normalize())
	}
	adv.Source = "osv"
	if len(adv.Affected) > 0 {
		adv.Source = sourceOf(adv.Affected[0].Ecosystem)
	}
	adv.Severity = rec.severity(adv.Affected)
	return adv
}

func (rec *osvRecord) severity(aff []AffectedPackage) string {
	var ds struct {
		Severity string `json:"severity"`
	}
	if json.Unmarshal(rec.DatabaseSpecific, &ds) == nil && ds.Severity != "" {
		return strings.ToLower(ds.Severity)
	}
	if len(aff) > 0 && aff[0].Note != "" && aff[0].Distro == "ubuntu" {
		return aff[0].Note
	}
	if word, _, ok := strings.Cut(rec.Summary, ":"); ok {
		switch w := strings.ToLower(word); w {
		case "low", "moderate", "important", "critical":
			return w
		}
	}
	return ""
}

func (a *osvAffected) normalize() AffectedPackage {
	ap := AffectedPackage{Ecosystem: a.Package.Ecosystem, Package: a.Package.Name, Versions: a.Versions}
	ap.Distro, ap.Release, ap.ProOnly = releaseOf(ap.Ecosystem)
	ap.Scheme = SchemeOf(ap.Ecosystem)
	ap.IsSource = ap.Distro == "ubuntu" || ap.Distro == "debian"
	for _, r := range a.Ranges {
		if r.Type == "GIT" {
			continue
		}
		ap.Ranges = append(ap.Ranges, eventsToRanges(r.Events)...)
	}
	for _, r := range ap.Ranges {
		if r.Fixed != "" {
			ap.Fixed = r.Fixed
		}
	}
	ap.FixState = NotFixed
	if ap.Fixed != "" {
		ap.FixState = Fixed
	}
	if ap.Distro == "ubuntu" {
		a.ubuntu(&ap)
	}
	return ap
}

// ubuntu reads Ubuntu's binaries, priority and per-release CVE list.
func (a *osvAffected) ubuntu(ap *AffectedPackage) {
	var es ubuntuSpecific // both shapes of binaries decode as a list of string maps
	_ = json.Unmarshal(a.EcosystemSpecific, &es)
	ap.Note = es.UbuntuPriority
	for _, m := range es.Binaries {
		if n, ok := m["binary_name"]; ok {
			ap.addBinary(n, m["binary_version"])
			continue
		}
		for n, v := range m {
			ap.addBinary(n, v)
		}
	}
	var ds struct {
		CvesMap struct {
			Cves []struct {
				ID string `json:"id"`
			} `json:"cves"`
		} `json:"cves_map"`
	}
	if json.Unmarshal(a.DatabaseSpecific, &ds) == nil {
		for _, c := range ds.CvesMap.Cves {
			ap.CVEs = append(ap.CVEs, c.ID)
		}
		sortStrings(ap.CVEs)
	}
}

func (ap *AffectedPackage) addBinary(name, version string) {
	if name == "" {
		return
	}
	if ap.Binaries == nil {
		ap.Binaries = map[string]string{}
	}
	ap.Binaries[name] = version
}

// eventsToRanges turns OSV events (introduced, fixed, last_affected, limit) into ranges. A range
// whose end is present but empty (a malformed "fixed": "") is dropped rather than read as open.
func eventsToRanges(events []json.RawMessage) []Range {
	var out []Range
	var cur *Range
	bad := false
	for _, raw := range events {
		var ev map[string]any
		if json.Unmarshal(raw, &ev) != nil {
			continue
		}
		for k, v := range ev {
			s, _ := v.(string)
			switch k {
			case "introduced":
				if cur != nil && !bad {
					out = append(out, *cur)
				}
				cur, bad = &Range{Introduced: s}, false
			case "fixed", "last_affected":
				if cur == nil {
					cur = &Range{Introduced: "0"}
				}
				if s == "" {
					bad = true
				} else if k == "fixed" {
					cur.Fixed = s
				} else {
					cur.LastAffected = s
				}
				if !bad {
					out = append(out, *cur)
				}
				cur, bad = nil, false
			}
		}
	}
	if cur != nil && !bad {
		out = append(out, *cur)
	}
	return out
}

// releaseOf reads the distribution release from an OSV ecosystem.
func releaseOf(eco string) (distro, release string, pro bool) {
	parts := strings.Split(eco, ":")
	switch parts[0] {
	case "Ubuntu":
		for _, p := range parts[1:] {
			if p == "Pro" || strings.HasPrefix(p, "FIPS") {
				pro = true
			}
			if len(p) == 5 && p[2] == '.' && isDigits(p[:2]) && isDigits(p[3:]) {
				release = p
			}
		}
		return "ubuntu", release, pro
	case "Debian":
		if len(parts) > 1 {
			return "debian", debianRelease(parts[1]), false
		}
	case "AlmaLinux", "Rocky Linux":
		d := "almalinux"
		if parts[0] == "Rocky Linux" {
			d = "rocky"
		}
		if len(parts) > 1 {
			return d, majorOf(parts[1]), false
		}
	case "Red Hat":
		for _, p := range parts[1:] {
			if m := majorOf(p); m != "" {
				return "rhel", m, false
			}
		}
	case "Alpine":
		if len(parts) > 1 {
			return "alpine", alpineRelease(parts[1]), false
		}
	case "Wolfi", "Chainguard":
		return strings.ToLower(parts[0]), "rolling", false
	}
	return "", "", false
}

// majorOf returns the leading number of "9", "9.2", "rhel_eus:9.2" parts; "" if none.
func majorOf(s string) string {
	i := strings.LastIndexAny(s, "_-")
	s = s[i+1:]
	major, _, _ := strings.Cut(s, ".")
	if !isDigits(major) {
		return ""
	}
	n, _ := strconv.Atoi(major)
	return strconv.Itoa(n)
}

// debianRelease normalizes "11", "6.0" → major; the old "3.0"/"3.1" keep their minor.
func debianRelease(s string) string {
	major, _, _ := strings.Cut(s, ".")
	if n, err := strconv.Atoi(major); err == nil && n < 4 {
		return s
	}
	if r, ok := debianCodenames[s]; ok {
		return r
	}
	return major
}

// alpineRelease normalizes "v3.16", "3.16.3" → "3.16"; "edge" stays.
func alpineRelease(s string) string {
	s = strings.TrimPrefix(s, "v")
	parts := strings.SplitN(s, ".", 3)
	if len(parts) >= 2 {
		return parts[0] + "." + parts[1]
	}
	return s
}

func sourceOf(eco string) Source {
	distro, _, _ := releaseOf(eco)
	switch distro {
	case "ubuntu", "debian", "almalinux", "rocky", "alpine", "wolfi", "chainguard":
		return Source(distro)
	case "rhel":
		return SourceRedHat
	}
	return OSVSource(eco)
}

func parseTime(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// ReadOSVDir decodes every *.json file under root of fsys, in lexical order.
func ReadOSVDir(fsys fs.FS, root string, fn func(Advisory) error) error {
	return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || path.Ext(p) != ".json" {
			return nil
		}
		f, err := fsys.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		adv, err := DecodeOSV(f)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		return fn(adv)
	})
}

// ReadOSVZip decodes every *.json member of an OSV all.zip dump.
func ReadOSVZip(r io.ReaderAt, size int64, fn func(Advisory) error) error {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return appliance.Invalid("osv", "format", "not a zip archive: %v", err)
	}
	var buf bytes.Buffer
	for _, f := range zr.File {
		if f.FileInfo().IsDir() || path.Ext(f.Name) != ".json" {
			continue
		}
		if f.UncompressedSize64 > MaxRecordBytes {
			return appliance.Invalid("osv", "size", "%s: record larger than %d bytes", f.Name, MaxRecordBytes)
		}
		rc, err := f.Open()
		if err != nil {
			return appliance.Invalid("osv", "format", "%s: %v", f.Name, err)
		}
		buf.Reset()
		_, err = io.Copy(&buf, io.LimitReader(rc, MaxRecordBytes))
		rc.Close()
		if err != nil {
			return appliance.Invalid("osv", "format", "%s: %v", f.Name, err)
		}
		adv, err := DecodeOSV(&buf)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		if err := fn(adv); err != nil {
			return err
		}
	}
	return nil
}
