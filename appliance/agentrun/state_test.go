package agentrun

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestAgentIDStableAndSpoolReplaced(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s1, err := OpenState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(s1.AgentID) {
		t.Fatalf("agent id %q", s1.AgentID)
	}
	if err := s1.Spool([]byte("old")); err != nil {
		t.Fatal(err)
	}
	if err := s1.Spool([]byte("new")); err != nil {
		t.Fatal(err)
	}
	s2, err := OpenState(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s2.Spooled()
	if s2.AgentID != s1.AgentID || err != nil || string(b) != "new" {
		t.Fatalf("second open: id %q spool %q %v", s2.AgentID, b, err)
	}
	if err := s2.Ack("d1"); err != nil || s2.HasSpool() {
		t.Fatalf("ack: %v, spool left %v", err, s2.HasSpool())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 { // agent-id and last-acked.sha256, no temporary files
		t.Errorf("state files %v", entries)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("state directory mode %v", fi.Mode())
	}
}

func TestKeyFileMustBePrivate(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		mode os.FileMode
		ok   bool
	}{{0o600, true}, {0o640, true}, {0o644, false}, {0o602, false}} {
		p := filepath.Join(dir, "key")
		_ = os.Remove(p)
		if err := os.WriteFile(p, []byte("vk_abc\n"), c.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, c.mode); err != nil {
			t.Fatal(err)
		}
		key, err := ReadKeyFile(p)
		if c.ok && (err != nil || key != "vk_abc") {
			t.Errorf("mode %o: %q %v", c.mode, key, err)
		}
		if !c.ok && (err == nil || !strings.Contains(err.Error(), "chmod 600")) {
			t.Errorf("mode %o accepted: %v", c.mode, err)
		}
	}
}
