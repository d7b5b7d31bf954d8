package inventory

import (
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Macs name their software by bundle identifier and Homebrew by formula or cask, neither of
// which a publisher/product lookup can read. These reviewed tables name the CPE identity NVD's
// CVEs use (every entry is checked against the catalogue's CVE-used identities by a test); a
// name they do not know goes through the ordinary resolution.
var bundleIdentities = map[string]appliance.Identity{
	"com.google.Chrome":             app("google", "chrome"),
	"org.mozilla.firefox":           app("mozilla", "firefox"),
	"org.mozilla.thunderbird":       app("mozilla", "thunderbird"),
	"com.microsoft.VSCode":          app("microsoft", "visual_studio_code"),
	"com.microsoft.teams":           app("microsoft", "teams"),
	"com.microsoft.teams2":          app("microsoft", "teams"),
	"com.microsoft.edgemac":         app("microsoft", "edge_chromium"),
	"us.zoom.xos":                   app("zoom", "zoom"),
	"com.apple.Safari":              app("apple", "safari"),
	"org.videolan.vlc":              app("videolan", "vlc_media_player"),
	"com.docker.docker":             app("docker", "desktop"),
	"com.postmanlabs.mac":           app("getpostman", "postman"),
	"org.wireshark.Wireshark":       app("wireshark", "wireshark"),
	"com.brave.Browser":             app("brave", "brave"),
	"com.operasoftware.Opera":       app("opera", "opera_browser"),
	"org.libreoffice.script":        app("libreoffice", "libreoffice"),
	"com.jetbrains.intellij":        app("jetbrains", "intellij_idea"),
	"com.jetbrains.intellij.ce":     app("jetbrains", "intellij_idea"),
	"org.virtualbox.app.VirtualBox": app("oracle", "vm_virtualbox"),
	"org.gimp.gimp-2.10":            app("gimp", "gimp"),
	"org.inkscape.Inkscape":         app("inkscape", "inkscape"),
	"com.teamviewer.TeamViewer":     app("teamviewer", "teamviewer"),
	"com.philandro.anydesk":         app("anydesk", "anydesk"),
	"com.googlecode.iterm2":         app("iterm2", "iterm2"),
}

// brewIdentities maps Homebrew formulae and casks (without their @version) to identities.
var brewIdentities = map[string]appliance.Identity{
	"openssl": app("openssl", "openssl"), "node": app("nodejs", "node.js"), "python": app("python", "python"),
	"curl": app("haxx", "curl"), "git": app("git-scm", "git"), "wget": app("gnu", "wget"),
	"sqlite": app("sqlite", "sqlite"), "postgresql": app("postgresql", "postgresql"), "mysql": app("oracle", "mysql"),
	"nginx": app("f5", "nginx"), "go": app("golang", "go"), "ruby": app("ruby-lang", "ruby"), "php": app("php", "php"),
	"openssh": app("openbsd", "openssh"), "imagemagick": app("imagemagick", "imagemagick"),
	"ffmpeg": app("ffmpeg", "ffmpeg"), "gnupg": app("gnupg", "gnupg"), "libxml2": app("xmlsoft", "libxml2"),
	"zlib": app("zlib", "zlib"), "bash": app("gnu", "bash"), "vim": app("vim", "vim"), "gnutls": app("gnu", "gnutls"),
	"libpng": app("libpng", "libpng"), "xz": app("tukaani", "xz"), "openjdk": app("oracle", "openjdk"),
	"rust": app("rust-lang", "rust"), "docker": app("docker", "docker"), "kubernetes-cli": app("kubernetes", "kubernetes"),
	"terraform": app("hashicorp", "terraform"), "vault": app("hashicorp", "vault"), "coreutils": app("gnu", "coreutils"),
	"libssh2": app("libssh2", "libssh2"), "libnghttp2": app("nghttp2", "nghttp2"), "pcre2": app("pcre", "pcre2"),
	"libarchive": app("libarchive", "libarchive"), "mongodb-community": app("mongodb", "mongodb"),
	"maven": app("apache", "maven"), "gradle": app("gradle", "gradle"), "powershell": app("microsoft", "powershell"),
	// casks
	"google-chrome": app("google", "chrome"), "firefox": app("mozilla", "firefox"),
	"thunderbird": app("mozilla", "thunderbird"), "visual-studio-code": app("microsoft", "visual_studio_code"),
	"zoom": app("zoom", "zoom"), "vlc": app("videolan", "vlc_media_player"), "wireshark": app("wireshark", "wireshark"),
	"brave-browser": app("brave", "brave"), "iterm2": app("iterm2", "iterm2"), "microsoft-teams": app("microsoft", "teams"),
	"microsoft-edge": app("microsoft", "edge_chromium"), "libreoffice": app("libreoffice", "libreoffice"),
	"gimp": app("gimp", "gimp"), "inkscape": app("inkscape", "inkscape"), "teamviewer": app("teamviewer", "teamviewer"),
	"anydesk": app("anydesk", "anydesk"), "virtualbox": app("oracle", "vm_virtualbox"), "postman": app("getpostman", "postman"),
	"opera": app("opera", "opera_browser"), "intellij-idea": app("jetbrains", "intellij_idea"),
	"intellij-idea-ce": app("jetbrains", "intellij_idea"),
}

func app(vendor, product string) appliance.Identity {
	return appliance.Identity{Part: "a", Vendor: vendor, Product: product}
}

// reviewedIdentity names the identity of a Mac app by its bundle id, or of a Homebrew formula
// or cask by its name.
func reviewedIdentity(it Item) (appliance.Identity, bool) {
	if id, ok := bundleIdentities[strings.TrimSpace(it.Package.BundleID)]; ok {
		return id, true
	}
	if it.Package.Source == "brew" || strings.EqualFold(it.Vendor, "homebrew") {
		name, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(it.Product)), "@")
		id, ok := brewIdentities[name]
		return id, ok
	}
	return appliance.Identity{}, false
}
