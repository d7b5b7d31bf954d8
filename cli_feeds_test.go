package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// feed sync fetches the configured URLs (a local mirror over plain HTTP, allowed by
// feeds.allow_http) and reports each source; a plain-HTTP URL without the flag is refused.
func TestFeedSyncCommand(t *testing.T) {
	kev, err := os.ReadFile("../shared/data/kev/known_exploited_vulnerabilities.json")
	if err != nil {
		t.Fatal(err)
	}
	epss, err := os.ReadFile("../shared/data/epss/epss_scores-2026-10-07.excerpt-head.csv")
	if err != nil {
		t.Fatal(err)
	}
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".csv") {
			_, _ = w.Write(epss)
			return
		}
		_, _ = w.Write(kev)
	}))
	defer mirror.Close()
	dir := t.TempDir()
	if res := runCLI(t, dir, "", "org", "create", "acme"); res.code != 0 {
		t.Fatalf("org create: %s", res.stderr)
	}
	cfg := filepath.Join(dir, "vulnkeeper.yaml")
	write := func(allowHTTP string) {
		body := "feeds:\n  kev_url: " + mirror.URL + "/kev.json\n  epss_url: " + mirror.URL + "/epss.csv\n  allow_http: " + allowHTTP + "\n"
		if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("false")
	if res := runCLI(t, dir, "", "feed", "sync", "--source", "kev", "--config", cfg); res.code == 0 || !strings.Contains(res.stderr, "allow_http") {
		t.Errorf("plain HTTP without allow_http: exit %d, stderr %q", res.code, res.stderr)
	}
	write("true")
	res := runCLI(t, dir, "", "feed", "sync", "--source", "kev", "--source", "epss", "--config", cfg)
	if res.code != 0 || !strings.Contains(res.stdout, "kev: 1") || !strings.Contains(res.stdout, "epss: 535 records") {
		t.Errorf("feed sync: exit %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}
	if res := runCLI(t, dir, "", "feed", "sync", "--source", "osv", "--config", cfg); res.code == 0 || !strings.Contains(res.stdout, "feeds.osv_ecosystems") {
		t.Errorf("osv without enabled ecosystems: exit %d, stdout %q", res.code, res.stdout)
	}
	if res := runCLI(t, dir, "", "feed", "sync", "--source", "cve5", "--config", cfg); res.code == 0 {
		t.Error("an unknown source was accepted")
	}
}
