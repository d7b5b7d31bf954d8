package web

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/agentrun"
	"github.com/vulnkeeper/vulnkeeper/appliance/collect"
)

const trivyAlpine = "../../shared/data/trivy/trivy-golden_alpine-310.json"

// fakeEngine serves the Docker Engine API's container list on a unix socket.
func fakeEngine(t *testing.T, containers string) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "docker.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/containers/json" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(containers))
	}))
	hs.Listener = ln
	hs.Start()
	t.Cleanup(hs.Close)
	return sock
}

// fakeTrivy is a stand-in for trivy on PATH that prints a real Trivy report after checking
// it was called as the agent calls it.
func fakeTrivy(t *testing.T) string {
	t.Helper()
	report, err := filepath.Abs(trivyAlpine)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "trivy")
	script := "#!/bin/sh\n[ \"$1 $2 $3 $4\" = 'image --quiet --format json' ] || { echo bad args >&2; exit 2; }\n" +
		"echo \"$5\" >> \"$0.calls\"\nexec cat '" + report + "'\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// With --containers, the images of running containers (each distinct image once) are
// scanned and posted to the real container-scan route, one request for the host.
func TestAgentScansRunningContainers(t *testing.T) {
	var inv inventoryServices
	env := newTestEnv(t, withInventory(&inv, catalogMini))
	attachScans(env)
	org := env.createOrg(t, "acme")
	key, _ := env.createAgentKey(t, "acme")
	sock := fakeEngine(t, `[{"Id":"c1","Image":"alpine:3.10","ImageID":"sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","State":"running"},
		{"Id":"c2","Image":"alpine:3.10","ImageID":"sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","State":"running"},
		{"Id":"c3","Image":"registry.example.com/team/app:1.2","ImageID":"sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","State":"running"}]`)
	engine, ok := FindContainerEngine([]string{filepath.Join(t.TempDir(), "absent.sock"), sock})
	if !ok {
		t.Fatal("engine socket not found")
	}
	trivy := fakeTrivy(t)
	cli, err := NewAgentClient(AgentClientOptions{Server: env.URL, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	host := fakeInventory{collect.Inventory{Hostname: "docker-host", Products: []collect.Product{{Product: "p", Version: "1"}}}}
	r, err := agentrun.New(cli, agentrun.Options{StateDir: t.TempDir(), Version: "1.0.0", Collect: host.collect,
		Containers: &agentrun.Containers{Engine: engine, Scanner: agentrun.Scanner{Kind: "trivy", Path: trivy}}})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := r.Cycle(t.Context()); out != agentrun.Sent || err != nil {
		t.Fatalf("cycle: %q %v", out, err)
	}
	imgs, total, err := env.Server.containers.List(t.Context(), appliance.ContainerFilter{OrganizationID: org.ID, Hostname: "docker-host", Page: 1, PerPage: 50})
	if err != nil {
		t.Fatal(err)
	}
	calls, _ := os.ReadFile(trivy + ".calls")
	if total != 2 || len(imgs) != 2 || string(calls) != "alpine:3.10\nregistry.example.com/team/app:1.2\n" {
		t.Fatalf("%d images stored %+v; scanner calls %q", total, imgs, calls)
	}
	for _, img := range imgs {
		if img.Counts.Critical+img.Counts.High+img.Counts.Medium+img.Counts.Low == 0 {
			t.Errorf("image %s stored without its findings", img.Name)
		}
	}
}

func TestNoContainerEngineNoScanner(t *testing.T) {
	if _, ok := FindContainerEngine([]string{filepath.Join(t.TempDir(), "docker.sock")}); ok {
		t.Error("an absent socket was taken for an engine")
	}
	t.Setenv("PATH", t.TempDir())
	if _, ok := agentrun.FindScanner(); ok {
		t.Error("a scanner was found on an empty PATH")
	}
}
