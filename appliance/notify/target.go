package notify

import (
	"net"
	"net/netip"
	"net/url"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// CheckURL refuses a webhook URL that is not absolute https (http with AllowHTTP), carries
// credentials, or names a loopback, link-local or unspecified address (unless AllowLoopback).
// Names are checked again on the address actually dialled (CheckAddr), so a name that
// resolves to such an address is refused too.
func (o Options) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return appliance.Invalid("url", "format", "url must be an absolute https URL")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && o.AllowHTTP:
	default:
		return appliance.Invalid("url", "scheme", "url must use https (http only when notify.allow_http is set)")
	}
	if u.User != nil {
		return appliance.Invalid("url", "format", "url must not carry a user name or password")
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		host = "127.0.0.1"
	}
	if ip, err := netip.ParseAddr(host); err == nil && !o.AllowLoopback && !Routable(ip) {
		return appliance.Invalid("url", "target", "url must not point at a loopback, link-local or unspecified address")
	}
	return nil
}

// CheckAddr is the dial-time check of one resolved "ip:port".
func (o Options) CheckAddr(hostport string) error {
	if o.AllowLoopback {
		return nil
	}
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return err
	}
	if !Routable(ip) {
		return appliance.Invalid("url", "target", "the webhook target resolves to a refused address")
	}
	return nil
}

// Routable is false for loopback, link-local (cloud metadata at 169.254.169.254 included),
// unspecified and multicast addresses. Private LAN addresses are allowed: a chat server or
// receiver inside the shop is a normal target.
func Routable(ip netip.Addr) bool {
	ip = ip.Unmap()
	return !(ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified() ||
		ip.IsMulticast() || ip.IsInterfaceLocalMulticast())
}
