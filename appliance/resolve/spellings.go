package resolve

import (
	"slices"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// productSpellings are the product names worth an exact lookup, best first: as reported,
// without plain numbers ("postgresql 15"), with "-" and "_" swapped, then, for one-word
// names such as distribution packages, the upstream name behind the package.
func productSpellings(words []string) []string {
	spellings, _ := packageAwareSpellings(words)
	return spellings
}

// packageAwareSpellings are productSpellings and, among them, the weak ones: a library
// package's name without its "lib" (libuuid1 → uuid, libdrm2 → drm) names the C library,
// and only its own project, not whichever vendor happens to own a product so short.
func packageAwareSpellings(words []string) (spellings []string, weak map[string]bool) {
	if len(words) == 0 {
		return nil, nil
	}
	joined := strings.Join(words, "_")
	expanded := strings.Join(expandAbbreviations(words), "_")
	forms := []string{joined, strings.Join(withoutNumbers(words), "_"), expanded,
		strings.ReplaceAll(joined, "_", "-"), strings.ReplaceAll(joined, "-", "_"), strings.ReplaceAll(expanded, "-", "_")}
	if len(words) == 2 || len(words) == 3 { // a name written apart that its project runs together ("Gecko Driver")
		forms = append(forms, strings.Join(words, ""))
	}
	if len(words) == 1 {
		pkg, stripped := packageSpellings(words[0])
		for _, w := range stripped {
			if !slices.Contains(forms, w) {
				if weak == nil {
					weak = map[string]bool{}
				}
				weak[w] = true
			}
		}
		forms = append(forms, pkg...)
	}
	// A synonym goes before the form it replaces: "libc" names glibc, not gnu:libc. A
	// synonym is reviewed, so never weak.
	spellings = make([]string, 0, 2*len(forms))
	for _, s := range forms {
		if syn, ok := productSynonyms[s]; ok {
			spellings = append(spellings, syn)
			delete(weak, syn)
		}
		spellings = append(spellings, s)
	}
	return unique(spellings), weak
}

// expandAbbreviations spells out abbreviations NVD writes in full ("Azure CLI").
func expandAbbreviations(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		if full, ok := abbreviations[w]; ok {
			w = full
		}
		out[i] = w
	}
	return out
}

var abbreviations = map[string]string{
	"cli":  "command-line_interface", // NVD: microsoft:azure_command-line_interface, docker:command_line_interface
	"svn":  "subversion",             // Apache Subversion's command
	"nsis": "nullsoft_scriptable_install_system",
}

// vendorSynonyms rename a product only for one vendor.
var vendorSynonyms = map[appliance.Identity]string{
	// "Microsoft Edge" in an installed-programs list is the Chromium-based Edge (since 2020);
	// the legacy EdgeHTML browser was a Windows component and is never listed there.
	{Vendor: "microsoft", Product: "edge"}: "edge_chromium",
}

func withoutNumbers(words []string) []string {
	kept := make([]string, 0, len(words))
	for _, w := range words {
		if !allDigits(w) {
			kept = append(kept, w)
		}
	}
	return kept
}

// packageSpellings undoes distribution packaging: sub-package suffixes (openssh-server,
// openssl-libs), library sonames (libssl3, libidn2-0, zlib1g), Debian's Heimdal library
// names (libasn1-8-heimdal) and the "lib" prefix (libgmp10); the spellings without "lib", and
// short names left by dropping suffixes, are also returned apart as weak.
func packageSpellings(name string) (names, withoutLib []string) {
	if strings.HasSuffix(name, "-heimdal") {
		return []string{"heimdal"}, nil
	}
	// Debian's 64-bit time_t transition renamed libraries with a "t64" suffix (libssl3t64).
	if n := strings.TrimSuffix(name, "t64"); n != name && n != "" && isDigit(n[len(n)-1]) {
		name = n
	}
	stages := subpackageStages(name)
	base := stages[len(stages)-1]
	names = append(stages[1:], stripSoname(name), stripSoname(base), stripSoname(stripSoname(base)))
	for _, n := range append([]string{name}, names...) {
		if strings.HasPrefix(n, "lib") && len(n) > 4 {
			withoutLib = append(withoutLib, n[3:])
		}
	}
	// A short stage left by dropping suffixes (net-tools → net, rdma-core → rdma) is as weak.
	for _, n := range stages[1:] {
		if len(n) < 5 {
			withoutLib = append(withoutLib, n)
		}
	}
	return append(names, withoutLib...), withoutLib
}

// subpackageStages drops split-package suffixes one at a time, longest name first
// (initramfs-tools-bin → initramfs-tools → initramfs).
func subpackageStages(name string) []string {
	parts := strings.Split(name, "-")
	stages := []string{name}
	for len(parts) > 1 && subpackageSuffixes[parts[len(parts)-1]] {
		parts = parts[:len(parts)-1]
		stages = append(stages, strings.Join(parts, "-"))
	}
	return stages
}

// stripSoname removes a trailing "-<number>" (libidn2-0) or trailing digits with an optional
// "g" (libssl3, libssl1.1, zlib1g, python3); it never returns an empty or numeric name.
func stripSoname(name string) string {
	if i := strings.LastIndexByte(name, '-'); i > 0 && isNumberish(name[i+1:]) {
		return name[:i]
	}
	trimmed := strings.TrimSuffix(name, "g")
	if trimmed == name || trimmed == "" || !isDigit(trimmed[len(trimmed)-1]) {
		trimmed = name
	}
	trimmed = strings.TrimRight(trimmed, "0123456789.")
	if len(trimmed) < 2 || trimmed == name {
		return name
	}
	return trimmed
}

func isNumberish(s string) bool {
	return s != "" && strings.Trim(s, "0123456789.") == ""
}

// isGeneric is true when every word of a product is a generic word ("agent", "desktop"):
// such names are owned by many vendors and say nothing on their own.
func isGeneric(product string) bool {
	for _, w := range strings.FieldsFunc(product, func(r rune) bool { return r == '_' || r == '-' }) {
		if !genericWords[w] && !allDigits(w) {
			return false
		}
	}
	return true
}

// subpackageSuffixes are the split-package suffixes of Debian and RPM packaging.
var subpackageSuffixes = set("server", "client", "clients", "common", "libs", "lib", "bin", "base", "dev",
	"devel", "data", "doc", "minimal", "single", "runtime", "modules", "utils", "tools", "daemon", "core",
	"headless", "full", "light", "nox", "x11", "gui", "langpack", "stdlib", "locales", "i18n", "gnutls", "nss", "openssl", "extra")

// productSynonyms map a distribution's or user's name to NVD's product name. One line each:
var productSynonyms = map[string]string{
	"libssl":       "openssl",    // libssl is OpenSSL's TLS library package
	"libcrypto":    "openssl",    // OpenSSL's crypto library package
	"libc":         "glibc",      // Debian/Ubuntu libc6 and libc-bin are the GNU C Library
	"glibc-common": "glibc",      // RPM's split of the GNU C Library
	"lzma":         "xz",         // liblzma is built from XZ Utils
	"zstd":         "zstandard",  // NVD names Facebook's zstd "zstandard"
	"udev":         "systemd",    // udev has been part of systemd since 2012
	"krb5":         "kerberos_5", // MIT Kerberos is packaged as krb5
	"gssapi-krb5":  "kerberos_5", // libgssapi-krb5 is MIT Kerberos' GSS-API library
	"k5crypto":     "kerberos_5", // libk5crypto is MIT Kerberos' crypto library
	"pcre3":        "pcre",       // Debian's libpcre3 is PCRE1
	"pcre2-8":      "pcre2",      // Debian's libpcre2-8 is PCRE2 (8-bit)
	"ncursesw":     "ncurses",    // wide-character build of ncurses
	"tinfo":        "ncurses",    // libtinfo is split from ncurses
	"bz2":          "bzip2",      // libbz2 is bzip2's library
	// Libraries and tools packaged apart from the project that makes them.
	"libuuid":                     "util-linux", // util-linux's libraries and fdisk
	"libblkid":                    "util-linux",
	"libmount":                    "util-linux",
	"libfdisk":                    "util-linux",
	"libsmartcols":                "util-linux",
	"fdisk":                       "util-linux",
	"bsdutils":                    "util-linux",
	"libcom_err":                  "e2fsprogs", // e2fsprogs' libraries
	"libcomerr":                   "e2fsprogs",
	"libext2fs":                   "e2fsprogs",
	"e2fslibs":                    "e2fsprogs",
	"libss":                       "e2fsprogs",
	"libhogweed":                  "nettle",     // Nettle's public-key library
	"libsasl2":                    "cyrus-sasl", // Cyrus SASL's library
	"libselinux":                  "selinux",    // SELinux userspace libraries
	"libsepol":                    "selinux",
	"libsemanage":                 "selinux",
	"libmagic":                    "file",   // libmagic is built from file(1)
	"libjson":                     "json-c", // Debian's libjson0 was json-c
	"libldap":                     "openldap",
	"libpam":                      "linux-pam", // Linux-PAM's library and modules
	"libpam-modules":              "linux-pam",
	"libstdc++":                   "gcc", // GCC's runtime libraries
	"libgcc":                      "gcc",
	"libgcc-s":                    "gcc",
	"locales":                     "glibc", // Debian's locales and RPM's langpacks are built from glibc
	"multiarch-support":           "glibc",
	"login":                       "shadow", // shadow's login, passwd and login.defs
	"passwd":                      "shadow",
	"login.defs":                  "shadow",
	"gpgv":                        "gnupg",
	"dirmngr":                     "gnupg",
	"gpg-agent":                   "gnupg",
	"gpgsm":                       "gnupg",
	"krb5-locales":                "kerberos_5",
	"libkrb5":                     "kerberos_5",
	"libkrb5support":              "kerberos_5",
	"isc-dhcp":                    "dhcp", // ISC DHCP's client, server and common packages
	"elfutils-libelf":             "elfutils",
	"elfutils-libs":               "elfutils",
	"elfutils-default-yama-scope": "elfutils",
	"libelf":                      "elfutils",
	"libdw":                       "elfutils",
	"device-mapper":               "lvm2", // device-mapper is built from LVM2
	"libdevmapper":                "lvm2",
	"python3-rpm":                 "rpm",
	"ssl_client":                  "busybox", // Alpine's ssl_client is a busybox applet
	"busybox-initramfs":           "busybox",
	"busybox-static":              "busybox",
	"iputils-ping":                "iputils",
	"iputils-tracepath":           "iputils",
	"iputils-arping":              "iputils",
	"libusbx":                     "libusb", // libusbx merged back into libusb
	"systemd-pam":                 "systemd",
	"systemd-sysv":                "systemd",
	"systemd-timesyncd":           "systemd",
	"libnss-systemd":              "systemd",
	"libpam-systemd":              "systemd",
	"libpython":                   "python", // CPython's shared library and standard library packages
	"libslang":                    "s-lang",
	"libnewt":                     "newt",
	"whiptail":                    "newt",
	"libprocps":                   "procps-ng",
	"procps":                      "procps-ng", // Debian's and RHEL's procps is procps-ng
	"libexpat":                    "libexpat",
	"libzstd":                     "zstandard",
	"libapt-pkg":                  "apt",
	"libapt-inst":                 "apt",
	"openssl-provider-legacy":     "openssl",
	"libgnutls-openssl":           "gnutls",
	"libpam-cap":                  "libcap",
	"libcgmanager":                "cgmanager",
	"libgmp":                      "gmp",
	"libaudit":                    "linux_audit", // the Linux audit userspace
	"audit-libs":                  "linux_audit",
	"logsave":                     "e2fsprogs",
	"libcom-err":                  "e2fsprogs",
	"rpm-sign":                    "rpm",
	"rpm-build":                   "rpm",
	"librtmp":                     "rtmpdump",
	"apt-transport-https":         "apt",
	"libgomp":                     "gcc",
	"libgfortran":                 "gcc",
	"libatomic":                   "gcc",
	"libquadmath":                 "gcc",
	"ntpdate":                     "ntp",
	"psql":                        "postgresql", // PostgreSQL's client
	"python3-pip":                 "pip",
	"python3-pip-wheel":           "pip",
	"python-pip-wheel":            "pip",
	"python3-yaml":                "pyyaml",
	"elfutils-debuginfod-client":  "elfutils",
	"dmsetup":                     "lvm2",
	"cracklib-dicts":              "cracklib",
	"vim-tiny":                    "vim",
	"vim-enhanced":                "vim",
	"p11-kit-trust":               "p11-kit",
	"libsasl2-modules":            "cyrus-sasl",
	"libsasl2-modules-db":         "cyrus-sasl",
	"pcre2-syntax":                "pcre2",
	"python3-pkg-resources":       "setuptools", // Python bindings and parts packaged apart
	"platform-python-setuptools":  "setuptools",
	"python3-setuptools":          "setuptools",
	"python3-gpg":                 "gpgme",
	"python3-hawkey":              "libdnf",
	"python3-libdnf":              "libdnf",
	"python3-libcomps":            "libcomps",
	"libtool-ltdl":                "libtool-ltdl",
	"pam":                         "linux-pam",   // Linux distributions ship Linux-PAM as pam
	"pam0g":                       "linux-pam",   // Debian's libpam0g
	"expat":                       "libexpat",    // NVD names Expat "libexpat"
	"db":                          "berkeley_db", // libdb is Oracle Berkeley DB
	"glib2":                       "glib",        // GLib 2.x package name
	"nodejs":                      "node.js",     // distribution and installer name of Node.js
	"gnupg2":                      "gnupg",       // GnuPG 2.x package name
	"gpg":                         "gnupg",       // gpg is GnuPG's command
	"curl-minimal":                "curl",        // RPM's minimal curl build
	"libcurl-minimal":             "libcurl",     // RPM's minimal libcurl build
	"platform-python":             "python",      // RHEL 8's system Python
	"vim-minimal":                 "vim",         // RPM's minimal vim build
	"coreutils-single":            "coreutils",   // RPM's single-binary coreutils
	"java_se_development_kit":     "jdk",         // JDK is the "Java SE Development Kit"
	"java_development_kit":        "jdk",         // (older installer name)
	"java_update":                 "jre",         // Oracle's JRE installs as "Java <n> Update <m>"
	// Commands reported as tools (runner images, `which` lists) are their project's.
	"mongod":      "mongodb", // MongoDB's server, shell and shard router
	"mongo":       "mongodb",
	"mongos":      "mongodb",
	"bsdtar":      "libarchive", // libarchive's command-line tools
	"bsdcpio":     "libarchive",
	"bsdcat":      "libarchive",
	"rustc":       "rust", // the Rust toolchain's compiler and documentation tool
	"rustdoc":     "rust",
	"gfortran":    "gcc", // GNU Fortran is GCC's Fortran front end
	"gnu_fortran": "gcc",
	"homebrew":    "brew", // NVD names Homebrew by its command
	"mysqld":      "mysql",
	"postgres":    "postgresql",
	"sshd":        "openssh",
	"node":        "node.js",    // Node.js's command
	"kubectl":     "kubernetes", // Kubernetes' client, released with it
	"sqlite3":     "sqlite",     // SQLite 3's shell and package name
	"gnu_c++":     "gcc",        // GCC's C++ compiler
	"g++":         "gcc",
}

// upstreamVendors publish many products whose names are not their own (GNU tar, Apache
// Maven); among several vendors spelling the same product they are the likely upstream.
// A distribution (debian:shadow, redhat:openssl) is not the upstream of what it packages.
var upstreamVendors = set("gnu", "apache", "mozilla", "gnome", "kde", "freedesktop", "openbsd", "isc", "mit", "kernel")

// genericWords name kinds of software rather than software.
var genericWords = set("agent", "toolkit", "broker", "connector", "client", "server", "desktop", "manager", "tools", "tool", "service", "services",
	"update", "updater", "driver", "drivers", "app", "apps", "application", "player", "studio", "cms", "portal",
	"gateway", "connect", "mail", "webmail", "gallery", "guestbook", "shop", "login", "passwd", "password", "mount",
	"hostname", "setup", "filesystem", "info", "core", "base", "common", "utils", "helper", "helpers", "runtime",
	"launcher", "installer", "viewer", "editor", "browser", "plugin", "extension", "sdk", "api", "framework",
	"library", "suite", "center", "console", "monitor", "security", "antivirus", "backup", "sync", "files", "file",
	"search", "chat", "messenger", "vpn", "keyring", "keys", "repos", "system", "health", "check", "web", "cli",
	"assistant", "support", "audio", "video", "graphics", "fonts", "font", "data", "release", "minimal",
	"management", "software", "package", "packages", "kit", "pack", "hub", "cloud", "online",
	"mobile", "device", "network", "print", "printer", "scan", "scanner", "camera", "control", "panel", "store",
	"settings", "config", "configuration", "dashboard", "notifier", "notification", "sound", "media", "less",
	"which", "time", "date")
