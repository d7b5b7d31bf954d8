// Package feeds keeps the vulnerability data of a connected installation current: it pulls
// NVD's CVE API 2.0 incrementally, the CISA KEV catalogue and FIRST's daily EPSS file through
// a Fetcher (web's feed client), writes them through the same importer as `feed import`, and
// records per source when it last succeeded, how much it wrote and what failed.
package feeds

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
)

// Sources, in the order a full sync runs them.
const (
	SourceNVD  = "nvd"
	SourceKEV  = "kev"
	SourceEPSS = "epss"
	SourceOSV  = "osv"
)

// Sources lists every source a sync knows; osv takes part only with feeds.osv_ecosystems set.
var Sources = []string{SourceNVD, SourceKEV, SourceEPSS, SourceOSV}

// Options are the feeds.* settings.
type Options struct {
	// SyncInterval is how often serve syncs every source; 0 turns the scheduler off.
	SyncInterval time.Duration `mapstructure:"sync_interval"`
	// StaleAfter is the age of a source's last success past which /healthz reports stale.
	StaleAfter time.Duration `mapstructure:"stale_after"`
	// NVDAPIKey is sent as the apiKey header; a secret (redacted, never logged).
	NVDAPIKey string `mapstructure:"nvd_api_key"`
	NVDURL    string `mapstructure:"nvd_url"`
	KEVURL    string `mapstructure:"kev_url"`
	EPSSURL   string `mapstructure:"epss_url"`
	// OSVURL is the OSV bucket; each enabled ecosystem's records are {OSVURL}/{ecosystem}/all.zip.
	OSVURL string `mapstructure:"osv_url"`
	// OSVEcosystems are the OSV ecosystems a sync fetches (e.g. PyPI, npm, "Ubuntu"); none by default.
	OSVEcosystems []string `mapstructure:"osv_ecosystems"`
	// BundlePublicKey is the public key (`vulnkeeper feed bundle-key` on the connected side) that
	// feed bundles must be signed with to be imported here.
	BundlePublicKey string `mapstructure:"bundle_public_key"`
	// AllowHTTP admits http:// URLs (a local mirror); otherwise only https:// is used.
	AllowHTTP bool `mapstructure:"allow_http"`
}

// enabled lists the sources a full sync runs: every source, osv only when ecosystems are set.
func (o Options) enabled() []string {
	if len(o.OSVEcosystems) > 0 {
		return Sources
	}
	return Sources[:3]
}

// DefaultOptions point at the public services.
func DefaultOptions() Options {
	return Options{
		SyncInterval:  6 * time.Hour,
		StaleAfter:    72 * time.Hour,
		NVDURL:        "https://services.nvd.nist.gov/rest/json/cves/2.0",
		KEVURL:        "https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json",
		EPSSURL:       "https://epss.empiricalsecurity.com/epss_scores-current.csv.gz",
		OSVURL:        "https://osv-vulnerabilities.storage.googleapis.com",
		OSVEcosystems: []string{},
	}
}

// Validate refuses negative durations and URLs that are not https (http with AllowHTTP).
func (o Options) Validate() error {
	if o.SyncInterval < 0 || o.StaleAfter < 0 {
		return fmt.Errorf("feeds.sync_interval and feeds.stale_after must not be negative")
	}
	for key, raw := range map[string]string{"feeds.nvd_url": o.NVDURL, "feeds.kev_url": o.KEVURL, "feeds.epss_url": o.EPSSURL, "feeds.osv_url": o.OSVURL} {
		if err := CheckURL(raw, o.AllowHTTP); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	for _, eco := range o.OSVEcosystems {
		if strings.TrimSpace(eco) == "" || strings.ContainsAny(eco, "/\\?#") {
			return fmt.Errorf("feeds.osv_ecosystems: %q is not an OSV ecosystem name", eco)
		}
	}
	if o.BundlePublicKey != "" {
		if _, err := licensing.ParsePublicKey(o.BundlePublicKey); err != nil {
			return fmt.Errorf("feeds.bundle_public_key: %w", err)
		}
	}
	return nil
}

// CheckURL admits an absolute https URL, or http when allowHTTP is set.
func CheckURL(raw string, allowHTTP bool) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q is not an absolute URL", raw)
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && allowHTTP:
		return nil
	case u.Scheme == "http":
		return fmt.Errorf("%q is plain HTTP; set feeds.allow_http for a local mirror", raw)
	}
	return fmt.Errorf("%q: only https (or http with feeds.allow_http) is supported", raw)
}
