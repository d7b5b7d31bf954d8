package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/agentrun"
)

// EngineSockets are where Docker and Podman listen, in order of preference.
func EngineSockets() []string {
	socks := []string{"/var/run/docker.sock", "/run/podman/podman.sock"}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		socks = append(socks, filepath.Join(d, "podman", "podman.sock"), filepath.Join(d, "docker.sock"))
	}
	return socks
}

// ContainerEngine speaks the Docker Engine API (which Podman also serves) on a unix socket.
type ContainerEngine struct {
	socket string
	hc     *http.Client
}

// FindContainerEngine returns the engine of the first socket present.
func FindContainerEngine(sockets []string) (*ContainerEngine, bool) {
	for _, s := range sockets {
		if fi, err := os.Stat(s); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return NewContainerEngine(s), true
		}
	}
	return nil, false
}

// NewContainerEngine talks to the API on socket.
func NewContainerEngine(socket string) *ContainerEngine {
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", socket)
	}}
	return &ContainerEngine{socket: socket, hc: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// RunningImages lists the images of running containers (GET /containers/json).
func (e *ContainerEngine) RunningImages(ctx context.Context) ([]agentrun.RunningImage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://engine/containers/json", nil)
	if err != nil {
		return nil, err
	}
	resp, err := e.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("container engine %s: %w", e.socket, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("container engine %s answered %d", e.socket, resp.StatusCode)
	}
	var list []struct {
		Image   string `json:"Image"`
		ImageID string `json:"ImageID"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&list); err != nil {
		return nil, fmt.Errorf("container engine %s: %w", e.socket, err)
	}
	out := make([]agentrun.RunningImage, len(list))
	for i, c := range list {
		out[i] = agentrun.RunningImage{Name: c.Image, ID: c.ImageID}
	}
	return out, nil
}
