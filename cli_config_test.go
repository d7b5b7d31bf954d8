package main

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// config show prints the effective settings (environment included) and never the admin token.
func TestConfigShowRedactsSecrets(t *testing.T) {
	t.Setenv("VULNKEEPER_LICENSE_ADMIN_TOKEN", "operator-secret-token")
	t.Setenv("VULNKEEPER_LIMITS_LOGIN_PER_MINUTE", "9")
	t.Setenv("VULNKEEPER_FEEDS_NVD_API_KEY", "nvd-secret-api-key")
	dir := t.TempDir()
	res := runCLI(t, dir, "", "config", "show")
	if res.code != 0 {
		t.Fatalf("config show: exit %d: %s", res.code, res.stderr)
	}
	if strings.Contains(res.stdout, "operator-secret-token") || strings.Contains(res.stdout, "nvd-secret-api-key") {
		t.Fatalf("the admin token leaked:\n%s", res.stdout)
	}
	var shown map[string]map[string]any
	if err := yaml.Unmarshal([]byte(res.stdout), &shown); err != nil {
		t.Fatalf("output is not YAML: %v\n%s", err, res.stdout)
	}
	if shown["license"]["admin_token"] != "<redacted>" || shown["feeds"]["nvd_api_key"] != "<redacted>" || shown["limits"]["login_per_minute"] != 9 ||
		shown["storage"]["data_dir"] != dir || shown["server"]["read_header_timeout"] != "10s" {
		t.Errorf("config show = %v", shown)
	}
}
