package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"

	"howett.net/plist"
)

func runAgentCLI(t *testing.T, args ...string) cliResult {
	t.Helper()
	var out, errw bytes.Buffer
	code := execute(context.Background(), args, strings.NewReader(""), &out, &errw)
	return cliResult{code, out.String(), errw.String()}
}

func writeKey(t *testing.T, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "agent.key")
	if err := os.WriteFile(p, []byte("vk_x\n"), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// agent install on Linux writes the systemd service, timer and environment file, which
// systemd-analyze accepts; uninstall removes them.
func TestAgentInstallSystemd(t *testing.T) {
	dest, key := t.TempDir(), writeKey(t, 0o600)
	r := runAgentCLI(t, "agent", "install", "--server", "https://vk.example.com:8443", "--key-file", key,
		"--ca-file", "/etc/vulnkeeper/ca.pem", "--dest", dest, "--no-enable")
	if r.code != 0 {
		t.Fatalf("install: %s", r.stderr)
	}
	unitDir := filepath.Join(dest, "etc/systemd/system")
	env, err := os.ReadFile(filepath.Join(dest, "etc/vulnkeeper/agent.env"))
	if err != nil {
		t.Fatal(err)
	}
	wantEnv := "# Written by vulnkeeper agent install.\nVULNKEEPER_AGENT_SERVER=\"https://vk.example.com:8443\"\n" +
		"VULNKEEPER_AGENT_KEY_FILE=\"" + key + "\"\nVULNKEEPER_AGENT_ARGS=\"--ca-file /etc/vulnkeeper/ca.pem\"\n"
	if string(env) != wantEnv {
		t.Errorf("agent.env:\n%s\nwant\n%s", env, wantEnv)
	}
	if fi, _ := os.Stat(filepath.Join(dest, "etc/vulnkeeper/agent.env")); fi.Mode().Perm() != 0o600 {
		t.Errorf("agent.env mode %v", fi.Mode())
	}
	service, err := os.ReadFile(filepath.Join(unitDir, "vulnkeeper-agent.service"))
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	if !strings.Contains(string(service), "ExecStart="+exe+" agent --once ") {
		t.Errorf("service does not run this program:\n%s", service)
	}
	if _, err := exec.LookPath("systemd-analyze"); err == nil {
		out, err := exec.Command("systemd-analyze", "verify", "--man=no",
			filepath.Join(unitDir, "vulnkeeper-agent.service"), filepath.Join(unitDir, "vulnkeeper-agent.timer")).CombinedOutput()
		if err != nil {
			t.Errorf("systemd-analyze verify: %v\n%s", err, out)
		}
	}
	if r := runAgentCLI(t, "agent", "uninstall", "--dest", dest, "--no-enable"); r.code != 0 {
		t.Fatalf("uninstall: %s", r.stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(unitDir, "*")); len(left) != 0 {
		t.Errorf("left after uninstall: %v", left)
	}
}

func TestAgentInstallRefusesReadableKey(t *testing.T) {
	r := runAgentCLI(t, "agent", "install", "--server", "https://vk", "--key-file", writeKey(t, 0o644), "--dest", t.TempDir(), "--no-enable")
	if r.code == 0 || !strings.Contains(r.stderr, "chmod 600") {
		t.Fatalf("install with a world-readable key: %d %s", r.code, r.stderr)
	}
}

var trickyFlags = agentFlags{server: "https://vk.example.com/?a=1&b=<2>", keyFile: `C:\Program Files\vulnkeeper\agent key`,
	stateDir: `C:\ProgramData\vulnkeeper-agent`, pin: "ab:cd"}

// The launchd daemon is a well-formed plist whose arguments survive XML escaping.
func TestAgentInstallLaunchdPlist(t *testing.T) {
	p, err := servicePlanFor("darwin", trickyFlags, "/usr/local/bin/vulnkeeper")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Label         string   `plist:"Label"`
		Args          []string `plist:"ProgramArguments"`
		StartInterval int      `plist:"StartInterval"`
		RunAtLoad     bool     `plist:"RunAtLoad"`
	}
	if _, err := plist.Unmarshal(p.files[0].data, &doc); err != nil {
		t.Fatalf("plist: %v\n%s", err, p.files[0].data)
	}
	want := []string{"/usr/local/bin/vulnkeeper", "agent", "--once", "--server", trickyFlags.server, "--key-file",
		trickyFlags.keyFile, "--state-dir", trickyFlags.stateDir, "--pin-sha256", "ab:cd"}
	if doc.Label != "com.vulnkeeper.agent" || !reflect.DeepEqual(doc.Args, want) || doc.StartInterval != 3600 || !doc.RunAtLoad {
		t.Errorf("plist %+v", doc)
	}
	if p.files[0].path != "/Library/LaunchDaemons/com.vulnkeeper.agent.plist" {
		t.Errorf("path %s", p.files[0].path)
	}
}

// The scheduled task is UTF-16 XML with the command line quoted as Windows splits it.
func TestAgentInstallWindowsTask(t *testing.T) {
	p, err := servicePlanFor("windows", trickyFlags, `C:\Program Files\vulnkeeper\vulnkeeper.exe`)
	if err != nil {
		t.Fatal(err)
	}
	b := p.files[0].data
	if len(b) < 2 || b[0] != 0xff || b[1] != 0xfe || len(b)%2 != 0 {
		t.Fatal("not UTF-16LE with a byte order mark")
	}
	u := make([]uint16, (len(b)-2)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2+2*i:])
	}
	text := string(utf16.Decode(u))
	var task struct {
		Command   string `xml:"Actions>Exec>Command"`
		Arguments string `xml:"Actions>Exec>Arguments"`
		Interval  string `xml:"Triggers>TimeTrigger>Repetition>Interval"`
		UserID    string `xml:"Principals>Principal>UserId"`
	}
	dec := xml.NewDecoder(strings.NewReader(text))
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	if err := dec.Decode(&task); err != nil {
		t.Fatalf("task XML: %v", err)
	}
	wantArgs := `agent --once --server https://vk.example.com/?a=1&b=<2> --key-file "C:\Program Files\vulnkeeper\agent key" ` +
		`--state-dir C:\ProgramData\vulnkeeper-agent --pin-sha256 ab:cd`
	if task.Command != `C:\Program Files\vulnkeeper\vulnkeeper.exe` || task.Arguments != wantArgs || task.Interval != "PT1H" || task.UserID != "S-1-5-18" {
		t.Errorf("task %+v", task)
	}
	if got := p.enable[0]; got[0] != "schtasks" || got[len(got)-1] != "/F" {
		t.Errorf("enable %v", got)
	}
}
