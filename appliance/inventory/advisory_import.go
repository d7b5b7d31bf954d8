package inventory

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"regexp"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/advisories"
	"github.com/vulnkeeper/vulnkeeper/appliance/epss"
)

// ImportStats counts what one import input held.
type ImportStats struct {
	FeedStats
	Format     string // nvd (CVE feed, record or KEV), cve5 (directory or zip of CVE JSON 5 records), epss, osv, osv-zip, osv-dir, debian-tracker, debian-list, secdb
	EPSS       int    // EPSS scores read
	Advisories int    // advisory entries read
	Changed    int    // of which new or changed
}

// peekSize is how much of a file content detection reads.
const peekSize = 64 << 10

var debianListHeader = regexp.MustCompile(`(?m)^(\[\d{1,2} [A-Za-z]{3} \d{4}\] (DSA|DLA|DTSA)-\d+|CVE-\d{4}-\d+ )`)

// Import reads one vulnerability data file, recognised by its content: an NVD CVE 2.0 feed or
// the CISA KEV catalogue, FIRST's EPSS CSV, an OSV record or an OSV all.zip dump, the Debian Security Tracker
// JSON, a Debian DSA/DLA/CVE list, or an Alpine-style secdb (YAML or JSON); gzip'ed too.
// Each file is one transaction; advisories identical to the stored ones change nothing.
func (im *Importer) Import(ctx context.Context, name string, r io.ReaderAt, size int64) (ImportStats, error) {
	var magic [4]byte
	n, _ := r.ReadAt(magic[:], 0)
	if n == 4 && string(magic[:]) == "PK\x03\x04" {
		if zr, err := zip.NewReader(r, size); err == nil && IsCVE5Tree(zr) {
			st, err := im.ImportCVE5(ctx, name, zr)
			return ImportStats{FeedStats: st, Format: "cve5"}, err
		}
		return im.importAdvisories(ctx, name, "osv-zip", func(fn func(advisories.Advisory) error) error {
			return advisories.ReadOSVZip(r, size, fn)
		})
	}
	var in io.Reader = io.NewSectionReader(r, 0, size)
	if n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(in)
		if err != nil {
			return ImportStats{}, appliance.Invalid("file", "format", "%s: %v", name, err)
		}
		defer gz.Close()
		in = gz
	}
	br := bufio.NewReaderSize(in, peekSize)
	head, _ := br.Peek(peekSize)
	if epss.Header(head) {
		n, err := im.ImportEPSS(ctx, name, br)
		return ImportStats{Format: "epss", EPSS: n}, err
	}
	format := detectFormat(head)
	if format == "" && kevCSVHeader.Match(head) {
		return ImportStats{}, appliance.Invalid("file", "format", "%s: the KEV CSV is not supported, use the JSON catalogue (known_exploited_vulnerabilities.json)", name)
	}
	var decode func(fn func(advisories.Advisory) error) error
	switch format {
	case "osv":
		decode = func(fn func(advisories.Advisory) error) error {
			adv, err := advisories.DecodeOSV(br)
			if err != nil {
				return err
			}
			return fn(adv)
		}
	case "debian-tracker":
		decode = func(fn func(advisories.Advisory) error) error { return advisories.DecodeDebianTracker(br, fn) }
	case "debian-list":
		decode = func(fn func(advisories.Advisory) error) error { return advisories.DecodeDebianList(br, fn) }
	case "secdb":
		distro := secdbDistro(head)
		decode = func(fn func(advisories.Advisory) error) error { return advisories.DecodeSecDB(br, distro, fn) }
	default:
		st, err := im.ImportFeed(ctx, name, br)
		return ImportStats{FeedStats: st, Format: "nvd"}, err
	}
	return im.importAdvisories(ctx, name, format, decode)
}

// ImportDir imports a directory: the cvelistV5 layout of CVE JSON 5 records, or OSV records.
func (im *Importer) ImportDir(ctx context.Context, name string, fsys fs.FS) (ImportStats, error) {
	if IsCVE5Tree(fsys) {
		st, err := im.ImportCVE5(ctx, name, fsys)
		return ImportStats{FeedStats: st, Format: "cve5"}, err
	}
	return im.ImportOSVDir(ctx, name, fsys)
}

// ImportOSVDir reads every OSV record (*.json) under a directory, in one transaction.
func (im *Importer) ImportOSVDir(ctx context.Context, name string, fsys fs.FS) (ImportStats, error) {
	return im.importAdvisories(ctx, name, "osv-dir", func(fn func(advisories.Advisory) error) error {
		return advisories.ReadOSVDir(fsys, ".", fn)
	})
}

// detectFormat recognises an advisory format from the start of a file ("" for NVD/KEV and
// anything else, which the feed importer judges).
// kevCSVHeader is the first line of CISA's KEV catalogue in CSV, which carries the same data
// as the JSON one that is imported.
var kevCSVHeader = regexp.MustCompile(`^\s*"?cveID"?,"?vendorProject"?,`)

func detectFormat(head []byte) string {
	t := bytes.TrimSpace(head)
	has := func(s string) bool { return bytes.Contains(t, []byte(s)) }
	switch {
	case len(t) == 0:
		return ""
	case debianListHeader.Match(t):
		return "debian-list"
	case t[0] == '{' || t[0] == '[':
		switch {
		case has(`"secfixes"`):
			return "secdb"
		case has(`"vulnerabilities"`) || has(`"CVE_Items"`) || has(`"catalogVersion"`) || has(`"cveMetadata"`):
			return ""
		case has(`"affected"`) && has(`"id"`):
			return "osv"
		case has(`"releases"`):
			return "debian-tracker"
		}
	case has("secfixes:"):
		return "secdb"
	}
	return ""
}

// secdbDistro tells Alpine's secdb from Wolfi's and Chainguard's (reponame "os" /
// "chainguard", no distroversion).
func secdbDistro(head []byte) string {
	switch {
	case bytes.Contains(head, []byte("distroversion")):
		return "alpine"
	case bytes.Contains(head, []byte("libraries.cgr.dev")) || bytes.Contains(head, []byte(`"reponame": "chainguard"`)):
		return "chainguard"
	case bytes.Contains(head, []byte("packages.wolfi.dev")):
		return "wolfi"
	}
	return "alpine"
}

// importAdvisories stores what decode reads, in one transaction, and bumps the CVE data
// generation when anything changed (a running server then reloads and re-matches).
func (im *Importer) importAdvisories(ctx context.Context, name, format string, decode func(func(advisories.Advisory) error) error) (ImportStats, error) {
	var st ImportStats
	err := im.store.InTx(ctx, func(tx appliance.Tx) error {
		st = ImportStats{Format: format}
		at := im.now().UTC()
		err := decode(func(adv advisories.Advisory) error {
			for _, e := range advisoryEntries(adv) {
				changed, err := tx.UpsertAdvisoryEntry(ctx, e, at)
				if err != nil {
					return err
				}
				st.Advisories++
				if changed {
					st.Changed++
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if st.Changed == 0 {
			return nil
		}
		_, err = tx.BumpGeneration(ctx, appliance.GenerationCVE)
		return err
	})
	return st, err
}

// advisoryEntries splits an advisory into its stored (ecosystem, package) entries; entries an
// advisory repeats for one package (one per branch) are merged.
func advisoryEntries(adv advisories.Advisory) []appliance.AdvisoryEntry {
	type key struct{ eco, pkg string }
	var order []key
	merged := map[key]*advisories.AffectedPackage{}
	cves := map[key][]string{}
	for i := range adv.Affected {
		a := adv.Affected[i]
		k := key{a.Ecosystem, a.Package}
		applies := adv.AppliesCVEs(&a)
		if m := merged[k]; m != nil {
			m.Ranges = append(m.Ranges, a.Ranges...)
			m.Versions = append(m.Versions, a.Versions...)
			for b, v := range a.Binaries {
				if m.Binaries == nil {
					m.Binaries = map[string]string{}
				}
				m.Binaries[b] = v
			}
			if a.Fixed != "" {
				m.Fixed = a.Fixed
			}
			cves[k] = append(cves[k], applies...)
			continue
		}
		order = append(order, k)
		merged[k] = &a
		cves[k] = append([]string(nil), applies...)
	}
	out := make([]appliance.AdvisoryEntry, 0, len(order))
	for _, k := range order {
		a := merged[k]
		list := uniqueSorted(cves[k])
		detail, _ := json.Marshal(advisoryDetail{Entry: *a, Summary: adv.Summary, Severity: adv.Severity,
			Aliases: adv.Aliases, Published: adv.Published, Modified: adv.Modified})
		out = append(out, appliance.AdvisoryEntry{Source: string(adv.Source), ID: adv.ID, Ecosystem: a.Ecosystem,
			Package: a.Package, Distro: a.Distro, Release: a.Release, Fixed: a.Fixed, FixState: string(a.FixState),
			ProOnly: a.ProOnly, Withdrawn: adv.Withdrawn, Binaries: a.Binaries, CVEs: list, Detail: detail})
	}
	return out
}
