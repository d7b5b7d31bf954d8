package agentrun

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/collect"
)

// countingClient records calls; inventories fail while down is set.
type countingClient struct {
	calls []string
	down  bool
}

func (c *countingClient) Config(context.Context) (ServerConfig, error) {
	return ServerConfig{ScanInterval: 3 * time.Hour}, nil
}

func (c *countingClient) Heartbeat(context.Context, string, string) (ServerConfig, error) {
	c.calls = append(c.calls, "heartbeat")
	return ServerConfig{}, nil
}

func (c *countingClient) Inventory(context.Context, []byte) error {
	c.calls = append(c.calls, "inventory")
	if c.down {
		return errors.New("connection refused")
	}
	return nil
}

func (c *countingClient) Encode(inv collect.Inventory) ([]byte, error) {
	return []byte(inv.Hostname), nil
}

func (c *countingClient) ContainerScan(context.Context, string, []ScannedImage) error { return nil }

// The running agent follows the server's scan_interval (3h): an inventory, a heartbeat each
// hour in between, then a heartbeat-only cycle since nothing changed. While the server is
// down it retries sooner than the interval, with back-off.
func TestRunFollowsIntervalWithHeartbeats(t *testing.T) {
	cli := &countingClient{}
	var waits []time.Duration
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sleep := func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		if len(waits) == 4 {
			cancel()
			return context.Canceled
		}
		return nil
	}
	r, err := New(cli, Options{StateDir: t.TempDir(), Collect: func() (collect.Inventory, error) { return collect.Inventory{Hostname: "h"}, nil },
		Sleep: sleep})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"inventory", "heartbeat", "heartbeat", "heartbeat"}
	if len(cli.calls) != len(want) || cli.calls[0] != want[0] || cli.calls[3] != want[3] {
		t.Fatalf("calls %v, want %v", cli.calls, want)
	}
	if waits[0] != time.Hour || waits[1] != time.Hour || waits[2] != time.Hour {
		t.Errorf("waits %v", waits)
	}

	down := &countingClient{down: true}
	waits = nil
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	r, err = New(down, Options{StateDir: t.TempDir(), Attempts: 1, Backoff: time.Second,
		Collect: func() (collect.Inventory, error) { return collect.Inventory{Hostname: "h"}, nil }, Sleep: sleep})
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(ctx)
	if len(waits) != 4 || waits[0] >= time.Hour || waits[2] <= waits[0] || !r.state.HasSpool() {
		t.Errorf("waits while down %v (spooled %v)", waits, r.state.HasSpool())
	}
}
