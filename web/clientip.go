package web

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// trustedProxies are the peers whose X-Forwarded-For is believed (server.trusted_proxies).
type trustedProxies []netip.Prefix

// parseTrustedProxies reads CIDRs or single addresses.
func parseTrustedProxies(list []string) (trustedProxies, error) {
	var out trustedProxies
	for _, s := range list {
		s = strings.TrimSpace(s)
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("server.trusted_proxies: %q is neither a CIDR nor an address", s)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// ValidateTrustedProxies checks server.trusted_proxies.
func ValidateTrustedProxies(list []string) error {
	_, err := parseTrustedProxies(list)
	return err
}

func (t trustedProxies) contains(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientAddr is the address of the client that made r. The peer is the client unless it is
// a trusted proxy; then X-Forwarded-For is walked from the right (the hops the trusted
// proxies appended) and the first address that is not a trusted proxy is the client. Hops
// left of it could be written by anyone and are never believed.
func (t trustedProxies) clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || !t.contains(peer) {
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	client := peer.Unmap()
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a malformed hop: the last good one stands
		}
		client = a.Unmap()
		if !t.contains(client) {
			break
		}
	}
	return client.String()
}

// clientIP is the client address common() resolved for r (see trustedProxies.clientAddr).
func clientIP(r *http.Request) string {
	if ip, ok := r.Context().Value(clientIPKey).(string); ok {
		return ip
	}
	return trustedProxies(nil).clientAddr(r)
}
