package inventory

import (
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// upstreamIdentities is a reviewed table of the upstream CPE identity of common Linux
// distribution packages, by source package and by the binary names Debian, Ubuntu and the
// RHEL family give them. A distribution's own vendor (debian:apache2, redhat:openssl) is
// never the upstream identity.
var upstreamIdentities = map[string]appliance.Identity{}

func init() {
	for cpe, names := range map[string]string{
		"gnu:glibc":                   "glibc eglibc libc6 libc-bin libc6-dev libc-dev-bin glibc-common glibc-minimal-langpack glibc-langpack-en",
		"openssl:openssl":             "openssl openssl1.0 libssl3 libssl3t64 libssl1.1 libssl1.0.0 openssl-libs",
		"zlib:zlib":                   "zlib zlib1g zlib1g-dev",
		"gnu:gnutls":                  "gnutls28 gnutls libgnutls30 libgnutls30t64",
		"gnu:tar":                     "tar",
		"gnu:bash":                    "bash",
		"gnu:gzip":                    "gzip",
		"gnu:coreutils":               "coreutils",
		"gnu:ncurses":                 "ncurses libncurses6 libncursesw6 libtinfo6 ncurses-base ncurses-bin ncurses-libs",
		"gnupg:gnupg":                 "gnupg2 gnupg gpgv gpg",
		"gnupg:libgcrypt":             "libgcrypt20 libgcrypt",
		"libexpat_project:libexpat":   "expat libexpat1",
		"haxx:curl":                   "curl libcurl4 libcurl3-gnutls libcurl",
		"sqlite:sqlite":               "sqlite3 libsqlite3-0 sqlite sqlite-libs",
		"xmlsoft:libxml2":             "libxml2",
		"systemd_project:systemd":     "systemd libsystemd0 libudev1 systemd-libs",
		"tukaani:xz":                  "xz-utils liblzma5 xz xz-libs",
		"sudo_project:sudo":           "sudo",
		"openbsd:openssh":             "openssh openssh-server openssh-client openssh-clients",
		"apache:http_server":          "apache2 apache2-bin httpd",
		"f5:nginx":                    "nginx nginx-core",
		"debian:dpkg":                 "dpkg",
		"perl:perl":                   "perl perl-base perl-libs",
		"gnu:binutils":                "binutils",
		"mit:kerberos_5":              "krb5 krb5-libs libkrb5-3 libgssapi-krb5-2",
		"pcre:pcre2":                  "pcre2 libpcre2-8-0 pcre2-8",
		"kernel:util-linux":           "util-linux",
		"libarchive:libarchive":       "libarchive libarchive13",
		"gnu:less":                    "less",
		"vim:vim":                     "vim vim-minimal vim-common",
		"gnome:glib":                  "glib2.0 glib2 libglib2.0-0",
		"bzip:bzip2":                  "bzip2 libbz2-1.0 bzip2-libs",
		"python:python":               "python3 python3-libs python3.9 platform-python",
		"e2fsprogs_project:e2fsprogs": "e2fsprogs",
		"nghttp2:nghttp2":             "nghttp2 libnghttp2-14 libnghttp2",
		"openldap:openldap":           "openldap libldap-2.5-0 openldap-libs",
	} {
		vendor, product, _ := strings.Cut(cpe, ":")
		for _, n := range strings.Fields(names) {
			upstreamIdentities[n] = appliance.Identity{Part: "a", Vendor: vendor, Product: product}
		}
	}
}

// upstreamIdentity looks a package up by its source package, then its own name (the dpkg
// architecture qualifier dropped).
func upstreamIdentity(source, name string) (appliance.Identity, bool) {
	if id, ok := upstreamIdentities[source]; ok && source != "" {
		return id, true
	}
	if i := strings.LastIndexByte(name, ':'); i > 0 {
		name = name[:i]
	}
	id, ok := upstreamIdentities[name]
	return id, ok
}
