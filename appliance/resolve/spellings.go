package resolve

import (
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// productSpellings are the product names worth an exact lookup, best first: as reported,
// without plain numbers ("postgresql 15"), with "-" and "_" swapped, then, for one-word
// names such as distribution packages, the upstream name behind the package.
func productSpellings(words []string) []string {
	if len(words) == 0 {
		return nil
	}
	joined := strings.Join(words, "_")
	forms := []string{joined, strings.Join(withoutNumbers(words), "_"), strings.Join(expandAbbreviations(words), "_"),
		strings.ReplaceAll(joined, "_", "-"), strings.ReplaceAll(joined, "-", "_")}
	if len(words) == 1 {
		forms = append(forms, packageSpellings(words[0])...)
	}
	// A synonym goes before the form it replaces: "libc" names glibc, not gnu:libc.
	spellings := make([]string, 0, 2*len(forms))
	for _, s := range forms {
		if syn, ok := productSynonyms[s]; ok {
			spellings = append(spellings, syn)
		}
		spellings = append(spellings, s)
	}
	return unique(spellings)
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
	"cli": "command-line_interface", // NVD: microsoft:azure_command-line_interface, docker:command_line_interface
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
// openssl-libs), library sonames (libssl3, libidn2-0, zlib1g) and the "lib" prefix (libgmp10).
func packageSpellings(name string) []string {
	base := stripSubpackage(name)
	names := []string{base, stripSoname(name), stripSoname(base)}
	for _, n := range names {
		if strings.HasPrefix(n, "lib") && len(n) > 4 {
			names = append(names, n[3:])
		}
	}
	return names
}

func stripSubpackage(name string) string {
	parts := strings.Split(name, "-")
	for len(parts) > 1 && subpackageSuffixes[parts[len(parts)-1]] {
		parts = parts[:len(parts)-1]
	}
	return strings.Join(parts, "-")
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
	"headless", "full", "light", "nox", "x11", "gui")

// productSynonyms map a distribution's or user's name to NVD's product name. One line each:
var productSynonyms = map[string]string{
	"libssl":                  "openssl",     // libssl is OpenSSL's TLS library package
	"libcrypto":               "openssl",     // OpenSSL's crypto library package
	"libc":                    "glibc",       // Debian/Ubuntu libc6 and libc-bin are the GNU C Library
	"glibc-common":            "glibc",       // RPM's split of the GNU C Library
	"lzma":                    "xz",          // liblzma is built from XZ Utils
	"zstd":                    "zstandard",   // NVD names Facebook's zstd "zstandard"
	"udev":                    "systemd",     // udev has been part of systemd since 2012
	"krb5":                    "kerberos_5",  // MIT Kerberos is packaged as krb5
	"gssapi-krb5":             "kerberos_5",  // libgssapi-krb5 is MIT Kerberos' GSS-API library
	"k5crypto":                "kerberos_5",  // libk5crypto is MIT Kerberos' crypto library
	"pcre3":                   "pcre",        // Debian's libpcre3 is PCRE1
	"pcre2-8":                 "pcre2",       // Debian's libpcre2-8 is PCRE2 (8-bit)
	"ncursesw":                "ncurses",     // wide-character build of ncurses
	"tinfo":                   "ncurses",     // libtinfo is split from ncurses
	"bz2":                     "bzip2",       // libbz2 is bzip2's library
	"pam":                     "linux-pam",   // Linux distributions ship Linux-PAM as pam
	"pam0g":                   "linux-pam",   // Debian's libpam0g
	"expat":                   "libexpat",    // NVD names Expat "libexpat"
	"db":                      "berkeley_db", // libdb is Oracle Berkeley DB
	"glib2":                   "glib",        // GLib 2.x package name
	"nodejs":                  "node.js",     // distribution and installer name of Node.js
	"gnupg2":                  "gnupg",       // GnuPG 2.x package name
	"gpg":                     "gnupg",       // gpg is GnuPG's command
	"curl-minimal":            "curl",        // RPM's minimal curl build
	"libcurl-minimal":         "libcurl",     // RPM's minimal libcurl build
	"platform-python":         "python",      // RHEL 8's system Python
	"vim-minimal":             "vim",         // RPM's minimal vim build
	"coreutils-single":        "coreutils",   // RPM's single-binary coreutils
	"java_se_development_kit": "jdk",         // JDK is the "Java SE Development Kit"
	"java_development_kit":    "jdk",         // (older installer name)
	"java_update":             "jre",         // Oracle's JRE installs as "Java <n> Update <m>"
}

// upstreamVendors publish many products whose names are not their own (GNU tar, Apache
// Maven); among several vendors spelling the same product they are the likely upstream.
var upstreamVendors = set("gnu", "apache", "mozilla", "gnome", "kde", "freedesktop", "openbsd", "isc", "mit",
	"debian", "kernel")

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
