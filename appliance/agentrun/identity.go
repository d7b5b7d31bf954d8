package agentrun

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/collect"
)

// LocalHost collects this machine: its packages and OS from its root filesystem (or the
// registry on Windows, given as reg; rpm sqlite databases read with rpm), and its names and
// primary address.
func LocalHost(root string, reg collect.Registry, rpm collect.RPMHeaders) (collect.Inventory, error) {
	h := collect.Host{FS: os.DirFS(root), Root: root, GOOS: runtime.GOOS, Arch: runtime.GOARCH, Registry: reg, RPMHeaders: rpm}
	o, prods, err := collect.Collect(h)
	if err != nil {
		return collect.Inventory{}, err
	}
	name, err := os.Hostname()
	if err != nil {
		return collect.Inventory{}, fmt.Errorf("hostname: %w", err)
	}
	return collect.Inventory{Hostname: name, FQDN: fqdn(name), IPAddress: primaryIP(), OS: o, Products: prods}, nil
}

// fqdn: the name itself when qualified, else the canonical name the resolver gives.
func fqdn(name string) string {
	if strings.Contains(name, ".") {
		return name
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cname, err := net.DefaultResolver.LookupCNAME(ctx, name)
	if err != nil || !strings.Contains(strings.TrimSuffix(cname, "."), ".") {
		return ""
	}
	return strings.TrimSuffix(cname, ".")
}

// primaryIP is the source address of the default route (a UDP "connection" sends nothing),
// else the first global unicast address of an interface.
func primaryIP() string {
	if c, err := net.Dial("udp", "192.0.2.1:9"); err == nil {
		defer c.Close()
		if a, ok := c.LocalAddr().(*net.UDPAddr); ok && !a.IP.IsLoopback() {
			return a.IP.String()
		}
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.IsGlobalUnicast() {
			return n.IP.String()
		}
	}
	return ""
}
