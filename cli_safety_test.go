package main

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// newInstallation is a data directory with a database, as org create leaves it.
func newInstallation(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if r := runCLI(t, dir, "", "org", "create", "setup"); r.code != 0 {
		t.Fatalf("org create: %d %s", r.code, r.stderr)
	}
	return dir
}

// TestCommandsNeedAnInstallation: every command that works on an installation refuses a data
// directory without a database, says so, and creates nothing (issue 8 §6).
func TestCommandsNeedAnInstallation(t *testing.T) {
	backup := filepath.Join(t.TempDir(), "backup.db")
	for _, args := range [][]string{
		{"backup", backup},
		{"feed", "import", filepath.Join(importFixtures, "nvd-mini.json")},
		{"catalog", "import", filepath.Join(importFixtures, "catalog-mini.tsv")},
		{"agent-key", "create", "--org", "acme"},
		{"agent-key", "list", "--org", "acme"},
		{"user", "create", "--org", "acme", "--username", "u", "--role", "member", "--password-stdin"},
		{"kb", "sync"},
		{"kb", "export", filepath.Join(t.TempDir(), "kb.snap")},
		{"license", "create-code", "--edition", "standard", "--valid-for", "1h"},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "typo")
			r := runCLI(t, dir, "correct horse battery staple\n", args...)
			if r.code == 0 || !strings.Contains(r.stderr, "no vulnkeeper database in "+dir) {
				t.Errorf("exit %d, stderr %q; want a refusal naming %s", r.code, r.stderr, dir)
			}
			if _, err := os.Stat(filepath.Join(dir, "vulnkeeper.db")); !os.IsNotExist(err) {
				t.Errorf("a database was created: %v", err)
			}
		})
	}
	if _, err := os.Stat(backup); !os.IsNotExist(err) {
		t.Errorf("a backup was written: %v", err)
	}
	// org create is what makes one.
	dir := filepath.Join(t.TempDir(), "new")
	if r := runCLI(t, dir, "", "org", "create", "acme"); r.code != 0 {
		t.Fatalf("org create on a new directory: %d %s", r.code, r.stderr)
	}
}

// TestImportsThatImportNothingFail: a catalogue without identities, the KEV CSV and kb sync
// without a licence exit non-zero with a message that says what to do.
func TestImportsThatImportNothingFail(t *testing.T) {
	dir := newInstallation(t)
	empty := filepath.Join(t.TempDir(), "empty.tsv")
	if err := os.WriteFile(empty, []byte("part\tvendor\tproduct\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"catalog", "import", empty}, "no identities"},
		{[]string{"feed", "import", "../shared/data/kev/known_exploited_vulnerabilities.csv"}, "KEV CSV is not supported, use the JSON catalogue"},
		{[]string{"kb", "sync"}, "no licence"},
	}
	for _, c := range cases {
		r := runCLI(t, dir, "", c.args...)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want non-zero mentioning %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestUnknownEnvironmentVariableIsRefused: a misspelt VULNKEEPER_ variable is an error, as an
// unknown key in the config file is.
func TestUnknownEnvironmentVariableIsRefused(t *testing.T) {
	dir := newInstallation(t)
	t.Setenv("VULNKEEPER_LIMITS_ENABLE", "false")
	r := runCLI(t, dir, "", "config", "show")
	if r.code == 0 || !strings.Contains(r.stderr, "VULNKEEPER_LIMITS_ENABLE") {
		t.Errorf("exit %d, stderr %q; want the variable named", r.code, r.stderr)
	}
	os.Unsetenv("VULNKEEPER_LIMITS_ENABLE")
	t.Setenv("VULNKEEPER_LIMITS_ENABLED", "false")
	if r := runCLI(t, dir, "", "config", "show"); r.code != 0 {
		t.Errorf("a known variable: exit %d %s", r.code, r.stderr)
	}
}

// TestQuickstartOnABusyPortCreatesNothing: the address is bound before any credential is
// made, so a failed start never loses the only copy of a password.
func TestQuickstartOnABusyPortCreatesNothing(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := filepath.Join(t.TempDir(), "qs")
	r := runCLI(t, dir, "", "quickstart", "--listen", busy.Addr().String())
	if r.code == 0 || !strings.Contains(r.stderr, "listen on "+busy.Addr().String()) {
		t.Fatalf("exit %d, stderr %q; want a listen error", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "vulnkeeper.db")); !os.IsNotExist(err) {
		t.Errorf("quickstart created a database before it could serve: %v", err)
	}
}

// countingRefresher counts refreshes.
type countingRefresher struct{ n atomic.Int32 }

func (c *countingRefresher) Refresh(context.Context) error { c.n.Add(1); return nil }

// TestImportsWhileServingRefreshOnce: four imports by another process, a little apart, lead
// to one refresh after the last has settled, not one per file.
func TestImportsWhileServingRefreshOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	path := filepath.Join(t.TempDir(), "vulnkeeper.db")
	served, err := sqlitestore.Open(ctx, path, sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer served.Close()
	var r countingRefresher
	go watchImports(ctx, served, &r, slog.New(slog.DiscardHandler), importWatch{poll: 20 * time.Millisecond, settle: 300 * time.Millisecond})
	time.Sleep(50 * time.Millisecond)
	other, err := sqlitestore.Open(ctx, path, sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	im := inventory.NewImporter(other)
	for i := range 4 {
		f, err := os.Open(filepath.Join(importFixtures, "nvd-mini.json"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := im.ImportFeed(ctx, "nvd-mini.json", f); err != nil {
			t.Fatalf("import %d: %v", i, err)
		}
		f.Close()
		time.Sleep(100 * time.Millisecond)
		if n := r.n.Load(); n != 0 {
			t.Fatalf("refreshed %d times while imports were still coming", n)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for r.n.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	if n := r.n.Load(); n != 1 {
		t.Errorf("%d refreshes after four imports, want one", n)
	}
}
