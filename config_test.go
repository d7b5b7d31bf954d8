package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// loadTestConfig reads the configuration from the environment and, when yaml is not empty,
// from a config file holding it.
func loadTestConfig(t *testing.T, yaml string) (Config, error) {
	t.Helper()
	file := ""
	if yaml != "" {
		file = filepath.Join(t.TempDir(), "vulnkeeper.yaml")
		if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	v, err := newViper(file)
	if err != nil {
		return Config{}, err
	}
	return loadConfig(v)
}

func TestConfigSources(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		yaml string
		want func(c *Config)
	}{
		{"defaults", nil, "", func(c *Config) {}},
		{"environment", map[string]string{
			"VULNKEEPER_LIMITS_ENABLED":             "false",
			"VULNKEEPER_SERVER_LISTEN":              "0.0.0.0:9090",
			"VULNKEEPER_SERVER_SHUTDOWN_TIMEOUT":    "5s",
			"VULNKEEPER_AUTH_PASSWORD_MAX_AGE_DAYS": "90",
			"VULNKEEPER_STORAGE_SYNCHRONOUS":        "full",
		}, "", func(c *Config) {
			c.Limits.Enabled = false
			c.Server.Listen = "0.0.0.0:9090"
			c.Server.ShutdownTimeout = 5 * time.Second
			c.Auth.PasswordMaxAgeDays = 90
			c.Storage.Synchronous = "full"
		}},
		{"file", nil, "limits:\n  login_per_minute: 10\nagent:\n  scan_interval: 3600\nlog:\n  format: json\n", func(c *Config) {
			c.Limits.LoginPerMinute = 10
			c.Agent.ScanIntervalSeconds = 3600
			c.Log.Format = "json"
		}},
		{"trusted proxies from the environment", map[string]string{"VULNKEEPER_SERVER_TRUSTED_PROXIES": "10.0.0.0/8,192.0.2.1"}, "",
			func(c *Config) { c.Server.TrustedProxies = []string{"10.0.0.0/8", "192.0.2.1"} }},
		{"trusted proxies from the file", nil, "server:\n  trusted_proxies: [127.0.0.1/32, \"::1\"]\n",
			func(c *Config) { c.Server.TrustedProxies = []string{"127.0.0.1/32", "::1"} }},
		{"environment over file", map[string]string{"VULNKEEPER_SERVER_LISTEN": "127.0.0.1:1"}, "server:\n  listen: 127.0.0.1:2\n",
			func(c *Config) { c.Server.Listen = "127.0.0.1:1" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			got, err := loadTestConfig(t, tt.yaml)
			if err != nil {
				t.Fatal(err)
			}
			want := defaultConfig()
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("config =\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

func TestConfigRefused(t *testing.T) {
	tests := []struct {
		name, yaml, wantInError string
	}{
		{"typo in a key", "limits:\n  enabeld: false\n", "enabeld"},
		{"unknown section", "serverr:\n  listen: x\n", "serverr"},
		{"empty data dir", "storage:\n  data_dir: \"\"\n", "storage.data_dir"},
		{"unknown log format", "log:\n  format: xml\n", "log.format"},
		{"scan interval too short", "agent:\n  scan_interval: 5\n", "scan_interval"},
		{"certificate without key", "server:\n  tls_cert: cert.pem\n", "tls_key"},
		{"wrong type", "limits:\n  login_per_minute: many\n", "login_per_minute"},
		{"plain HTTP feed without allow_http", "feeds:\n  kev_url: http://mirror.local/kev.json\n", "feeds.kev_url"},
		{"feed URL not absolute", "feeds:\n  nvd_url: /cves\n", "feeds.nvd_url"},
		{"negative sync interval", "feeds:\n  sync_interval: -1h\n", "feeds.sync_interval"},
		{"malformed trusted proxy", "server:\n  trusted_proxies: [10.0.0.0/40]\n", "server.trusted_proxies"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadTestConfig(t, tt.yaml)
			if err == nil || !strings.Contains(err.Error(), tt.wantInError) {
				t.Errorf("error = %v, want one naming %q", err, tt.wantInError)
			}
		})
	}
}
