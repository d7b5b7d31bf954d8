package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

type cliResult struct {
	code           int
	stdout, stderr string
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func runCLI(t *testing.T, dataDir, stdin string, args ...string) cliResult {
	t.Helper()
	var out, errw bytes.Buffer
	args = append(args, "--data-dir", dataDir)
	code := execute(context.Background(), args, strings.NewReader(stdin), &out, &errw)
	return cliResult{code: code, stdout: out.String(), stderr: errw.String()}
}

// cliStep is one command of a CLI session and what it must print.
type cliStep struct {
	name     string
	stdin    string
	args     []string
	wantCode int
	check    func(t *testing.T, r cliResult)
}

func wantStdout(want string) func(t *testing.T, r cliResult) {
	return func(t *testing.T, r cliResult) {
		if r.stdout != want {
			t.Errorf("stdout = %q, want %q", r.stdout, want)
		}
	}
}

func wantStderr(want string) func(t *testing.T, r cliResult) {
	return func(t *testing.T, r cliResult) {
		if r.stderr != want {
			t.Errorf("stderr = %q, want %q", r.stderr, want)
		}
	}
}

func TestCLIAccounts(t *testing.T) {
	dir := t.TempDir()
	var key string
	backup := filepath.Join(t.TempDir(), "copy.db")
	steps := []cliStep{
		{"org create", "", []string{"org", "create", "acme"}, 0, wantStdout("organization \"acme\" created (id 1)\n")},
		{"duplicate org", "", []string{"org", "create", "ACME"}, 1, wantStderr("error: conflict: organization \"ACME\" already exists\n")},
		{"user create", "correct horse battery\n", []string{"user", "create", "--org", "acme", "--username", "alice", "--role", "org_admin", "--password-stdin"},
			0, wantStdout("user \"alice\" created in \"acme\" as org_admin (id 1)\n")},
		{"duplicate user", "correct horse battery\n", []string{"user", "create", "--org", "acme", "--username", "alice", "--password-stdin"},
			1, wantStderr("error: conflict: user \"alice\" already exists\n")},
		{"unknown org", "correct horse battery\n", []string{"user", "create", "--org", "initech", "--username", "bob", "--password-stdin"},
			1, wantStderr("error: not found: organization \"initech\" does not exist\n")},
		{"password not from stdin", "", []string{"user", "create", "--org", "acme", "--username", "bob"},
			1, wantStderr("error: --password-stdin is required: passwords are never taken from the command line\n")},
		{"short password", "short\n", []string{"user", "create", "--org", "acme", "--username", "bob", "--password-stdin"},
			1, wantStderr("error: password: password must have at least 10 characters\n")},
		{"agent-key create", "", []string{"agent-key", "create", "--org", "acme", "--name", "laptops"}, 0, func(t *testing.T, r cliResult) {
			key = lastLine(r.stdout)
			if !strings.HasPrefix(key, "vk_") || len(key) != 51 {
				t.Errorf("last line %q is not an agent key", key)
			}
		}},
		{"agent-key list", "", []string{"agent-key", "list", "--org", "acme"}, 0, func(t *testing.T, r cliResult) {
			row := strings.Fields(strings.Split(r.stdout, "\n")[1])
			if len(row) != 7 || row[0] != "1" || row[1] != "laptops" || row[2] != key[:9]+"…" || row[3] != "agent" || row[6] != "-" {
				t.Errorf("key row = %q", row)
			}
		}},
		{"agent-key revoke in another org", "", []string{"agent-key", "revoke", "--org", "initech", "1"}, 1,
			wantStderr("error: not found: organization \"initech\" does not exist\n")},
		{"agent-key revoke", "", []string{"agent-key", "revoke", "--org", "acme", "1"}, 0, wantStdout("agent key 1 revoked\n")},
		{"agent-key revoke twice", "", []string{"agent-key", "revoke", "--org", "acme", "1"}, 1,
			wantStderr("error: not found: organization \"acme\" has no active key 1\n")},
		{"agent-key list shows the revocation", "", []string{"agent-key", "list", "--org", "acme"}, 0, func(t *testing.T, r cliResult) {
			if row := strings.Fields(strings.Split(r.stdout, "\n")[1]); len(row) != 7 || row[6] == "-" {
				t.Errorf("key row = %q, want a revocation time", row)
			}
		}},
		{"backup", "", []string{"backup", backup}, 0, wantStdout(fmt.Sprintf("backup written to %s\n", backup))},
		{"backup onto an existing file", "", []string{"backup", backup}, 1, func(t *testing.T, r cliResult) {
			if !strings.HasPrefix(r.stderr, "error: file: ") {
				t.Errorf("stderr = %q, want a validation error on file", r.stderr)
			}
		}},
		{"version", "", []string{"version"}, 0, wantStdout(fmt.Sprintf("vulnkeeper dev (schema %d)\n", sqlitestore.SchemaVersion()))},
	}
	runSteps(t, dir, steps)
	assertBackupHoldsAccounts(t, backup, key)
}

// assertBackupHoldsAccounts opens the backup as a store: alice logs in, the key is revoked.
func assertBackupHoldsAccounts(t *testing.T, path, key string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("backup file: %v", err)
	}
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, path, sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := accounts.NewAccounts(st, accounts.DefaultAuthOptions())
	if res, err := a.Login(ctx, "alice", "correct horse battery"); err != nil || res.User.Role != appliance.RoleOrgAdmin {
		t.Errorf("login from the backup: %+v, %v", res, err)
	}
	if _, err := a.AuthenticateAgent(ctx, key, appliance.ScopeAgent); err == nil {
		t.Error("the revoked key authenticates against the backup")
	}
}

func TestCLICreatedKeyAuthenticates(t *testing.T) {
	dir := t.TempDir()
	if r := runCLI(t, dir, "", "org", "create", "acme"); r.code != 0 {
		t.Fatalf("org create: %q", r.stderr)
	}
	r := runCLI(t, dir, "", "agent-key", "create", "--org", "acme", "--scope", "metrics")
	if r.code != 0 {
		t.Fatalf("agent-key create: %q", r.stderr)
	}
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(dir, "vulnkeeper.db"), sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := accounts.NewAccounts(st, accounts.DefaultAuthOptions())
	if _, err := a.AuthenticateAgent(ctx, lastLine(r.stdout), "metrics"); err != nil {
		t.Errorf("key printed by the CLI: %v", err)
	}
}
