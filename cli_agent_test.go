package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/collect"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// servedInstance is `vulnkeeper serve` running in this process until stop.
type servedInstance struct {
	stop func()
}

func startServe(t *testing.T, dataDir, addr string) servedInstance {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var out, errw bytes.Buffer
	go func() {
		done <- execute(ctx, []string{"serve", "--data-dir", dataDir, "--listen", addr}, strings.NewReader(""), &out, &errw)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("serve did not listen on %s: %s", addr, errw.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	waitReady(t, addr)
	return servedInstance{stop: func() { cancel(); <-done }}
}

// waitReady polls /healthz until the indexes are loaded.
func waitReady(t *testing.T, addr string) {
	t.Helper()
	for range 400 {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			_, _ = c.Write([]byte("GET /healthz HTTP/1.0\r\n\r\n"))
			buf := make([]byte, 16)
			n, _ := c.Read(buf)
			c.Close()
			if strings.Contains(string(buf[:n]), " 200") {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("serve never became ready")
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// hostProducts reads what the server stored for hostname: its live (product, version) set.
func hostProducts(t *testing.T, dataDir, hostname string) (appliance.Asset, map[string]bool) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(dataDir, "vulnkeeper.db"), sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var a appliance.Asset
	got := map[string]bool{}
	err = st.InTx(ctx, func(tx appliance.Tx) error {
		if a, err = tx.AssetByHostname(ctx, hostname); err != nil {
			return err
		}
		ips, err := tx.LiveInstalledProducts(ctx, a.ID)
		for _, ip := range ips {
			got[ip.Product.Name+"@"+ip.Product.Version] = true
		}
		return err
	})
	if err != nil {
		t.Fatalf("read host %s: %v", hostname, err)
	}
	return a, got
}

// The agent against a real `serve` on localhost, collecting a root made of this machine's
// dpkg database and os-release: the first run posts every package, the second (nothing
// changed) only a heartbeat; with the server stopped a changed inventory is spooled and
// delivered after the restart, even when that run's collection fails.
func TestAgentAgainstServe(t *testing.T) {
	dataDir, stateDir, root := t.TempDir(), t.TempDir(), t.TempDir()
	status := copyInto(t, root, "/var/lib/dpkg/status", "var/lib/dpkg/status")
	copyInto(t, root, "/etc/os-release", "etc/os-release")
	if r := runCLI(t, dataDir, "", "org", "create", "acme"); r.code != 0 {
		t.Fatalf("org create: %s", r.stderr)
	}
	r := runCLI(t, dataDir, "", "agent-key", "create", "--org", "acme")
	if r.code != 0 {
		t.Fatalf("agent-key create: %s", r.stderr)
	}
	keyFile := filepath.Join(t.TempDir(), "agent.key")
	if err := os.WriteFile(keyFile, []byte(lastLine(r.stdout)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	agent := func() cliResult {
		var out, errw bytes.Buffer
		code := execute(context.Background(), []string{"agent", "--once", "--server", "http://" + addr, "--key-file", keyFile,
			"--state-dir", stateDir, "--root", root, "--attempts", "1"}, strings.NewReader(""), &out, &errw)
		return cliResult{code, out.String(), errw.String()}
	}
	wantPkgs := func() map[string]bool {
		prods, err := collect.Dpkg(os.DirFS(root))
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]bool{}
		for _, p := range prods {
			m[p.Product+"@"+p.Version] = true
		}
		return m
	}
	hostname, _ := os.Hostname()
	srv := startServe(t, dataDir, addr)

	res := agent()
	if res.code != 0 || !strings.HasPrefix(res.stdout, "sent") {
		t.Fatalf("first run: %d %q %s", res.code, res.stdout, res.stderr)
	}
	asset, got := hostProducts(t, dataDir, hostname)
	want := wantPkgs()
	if len(want) < 50 || !sameSet(got, want) {
		t.Fatalf("server holds %d packages, host has %d", len(got), len(want))
	}
	if asset.OSName == "" || asset.AgentID == "" || asset.AgentVersion != version {
		t.Errorf("asset %+v", asset)
	}

	res = agent()
	if res.code != 0 || !strings.HasPrefix(res.stdout, "heartbeat") {
		t.Fatalf("second run: %d %q %s", res.code, res.stdout, res.stderr)
	}
	again, _ := hostProducts(t, dataDir, hostname)
	if !again.LastInventoryAt.Equal(asset.LastInventoryAt) || !again.LastSeenAt.After(asset.LastSeenAt) {
		t.Errorf("heartbeat run: inventory at %v→%v, seen at %v→%v", asset.LastInventoryAt, again.LastInventoryAt,
			asset.LastSeenAt, again.LastSeenAt)
	}

	srv.stop()
	removed := dropFirstPackage(t, status)
	res = agent()
	if res.code == 0 || !strings.Contains(res.stderr, "kept in") {
		t.Fatalf("run with the server down: %d %q %s", res.code, res.stdout, res.stderr)
	}
	if _, err := os.Stat(filepath.Join(stateDir, "spool.json")); err != nil {
		t.Fatalf("nothing spooled: %v", err)
	}
	// The next run cannot even collect: the spooled inventory is what it delivers.
	if err := os.Rename(status, status+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(status, 0o755); err != nil {
		t.Fatal(err)
	}
	srv = startServe(t, dataDir, addr)
	defer srv.stop()
	res = agent()
	if res.code != 0 || !strings.HasPrefix(res.stdout, "sent") {
		t.Fatalf("run after restart: %d %q %s", res.code, res.stdout, res.stderr)
	}
	_, got = hostProducts(t, dataDir, hostname)
	delete(want, removed)
	if !sameSet(got, want) {
		t.Fatalf("after the restart the server holds %d packages, want %d (without %s)", len(got), len(want), removed)
	}
	if _, err := os.Stat(filepath.Join(stateDir, "spool.json")); err == nil {
		t.Error("spool left after delivery")
	}
}

func copyInto(t *testing.T, root, src, rel string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// dropFirstPackage removes the first installed package's stanza (an uninstall) and returns
// its name@version.
func dropFirstPackage(t *testing.T, status string) string {
	t.Helper()
	b, err := os.ReadFile(status)
	if err != nil {
		t.Fatal(err)
	}
	stanzas := strings.Split(string(b), "\n\n")
	for i, s := range stanzas {
		if !strings.Contains(s, "Status: install ok installed") {
			continue
		}
		var name, ver string
		for _, l := range strings.Split(s, "\n") {
			if v, ok := strings.CutPrefix(l, "Package: "); ok {
				name = v
			}
			if v, ok := strings.CutPrefix(l, "Version: "); ok {
				ver = v
			}
		}
		rest := append(stanzas[:i:i], stanzas[i+1:]...)
		if err := os.WriteFile(status, []byte(strings.Join(rest, "\n\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		return name + "@" + ver
	}
	t.Fatal("no installed package")
	return ""
}

func sameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
