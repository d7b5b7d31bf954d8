package resolve

import (
	"context"
	"slices"
	"strings"

	"github.com/package-url/packageurl-go"

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

// ReviewedIdentities lists every identity of the reviewed bundle-id and Homebrew tables.
func ReviewedIdentities() map[string]appliance.Identity {
	all := make(map[string]appliance.Identity, len(bundleIdentities)+len(brewIdentities))
	for k, id := range bundleIdentities {
		all["bundle "+k] = id
	}
	for k, id := range brewIdentities {
		all["brew "+k] = id
	}
	return all
}

// reviewedIdentity names the identity of a Mac app by its bundle id, or of a Homebrew formula
// or cask by its name.
func reviewedIdentity(vendor, product string, pkg appliance.PackageInfo) (appliance.Identity, bool) {
	if id, ok := bundleIdentities[strings.TrimSpace(pkg.BundleID)]; ok {
		return id, true
	}
	if pkg.Source == "brew" || strings.EqualFold(vendor, "homebrew") {
		name, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(product)), "@")
		id, ok := brewIdentities[name]
		return id, ok
	}
	return appliance.Identity{}, false
}

// distributionSources are the package systems whose names alone are too weak for a guess.
var distributionSources = set("deb", "dpkg", "rpm", "apk")

// TooWeakToGuess reports a distribution package: its name alone (bash, file, less) is too
// weak for a fuzzy guess at its identity.
func TooWeakToGuess(pkg appliance.PackageInfo) bool {
	return pkg.Release != "" || distributionSources[strings.ToLower(pkg.Source)]
}

// Refuses reports a resolution the item's own facts rule out:
//   - a fuzzy guess for a distribution package (TooWeakToGuess);
//   - an identity NVD names only as a package of a language or plugin platform the item is not
//     from: chromedriver_project:chromedriver is the npm package (target_sw node.js), not the
//     ChromeDriver a Mac reports. A distribution's package of a language library is that
//     library, so distribution packages are never refused for their platform;
//   - for a language package published under a namespace (a Maven group, a Composer vendor), an
//     identity that namespace does not name: psr/container is not apple:container, nor
//     egulias/email-validator debounce:email_validator.
func (r *Resolver) Refuses(vendor string, id appliance.Identity, method appliance.ResolutionMethod, pkg appliance.PackageInfo) bool {
	if TooWeakToGuess(pkg) {
		return method == appliance.ResolutionFuzzy
	}
	if !id.Resolved() {
		return false
	}
	ecosystem := itemEcosystem(pkg)
	if languageEcosystems[ecosystem] && !namespaceNames(vendor, id) {
		return true
	}
	_, cat := r.snapshot()
	platform, bound := cat.bound[vendorProduct{id.Vendor, id.Product}]
	return bound && !slices.Contains(ecosystemPlatforms[ecosystem], platform)
}

// languageEcosystems publish packages under a namespace that is their publisher.
var languageEcosystems = set("maven", "composer", "npm", "pypi", "gem", "cargo", "golang", "nuget")

// namespaceNames reports whether a package namespace names the identity: no namespace at
// all, the identity's vendor or a word of its product among the namespace's labels
// (org.keycloak → redhat:keycloak, org.apache.tomcat → apache:tomcat, org.springframework →
// vmware:spring_framework, league → thephpleague:flysystem), or a project spelled by its own
// name, which any namespace may repackage (org.openpnp → opencv:opencv).
func namespaceNames(namespace string, id appliance.Identity) bool {
	labels := strings.FieldsFunc(strings.ToLower(namespace), func(r rune) bool { return r == '.' || r == '/' || r == '-' || r == '_' })
	if len(labels) == 0 || id.Vendor == id.Product || slices.Contains(labels, id.Vendor) {
		return true
	}
	for _, l := range labels { // the publisher's site spells its namespace (league → thephpleague)
		if len(l) >= 4 && !namespaceNoise[l] && strings.Contains(id.Vendor, l) {
			return true
		}
	}
	for _, w := range strings.FieldsFunc(id.Product, func(r rune) bool { return r == '_' || r == '-' }) {
		for _, l := range labels {
			if len(w) >= 3 && strings.HasPrefix(l, w) {
				return true
			}
		}
	}
	return false
}

// packagePlatforms are the language runtimes and plugin hosts NVD writes as a CPE's target_sw
// for packages of their ecosystems.
var packagePlatforms = set("node.js", "nodejs", "npm", "npmjs", "python", "pypi", "flask", "django", "pyramid", "ruby", "rails",
	"rust", "go", "golang", "php", "perl", "java", "wordpress", "jenkins", "joomla\\!", "joomla!", "joomla", "drupal", "typo3",
	"moodle", "roundcube", "magento", "prestashop", "mediawiki")

// ecosystemPlatforms are the platforms whose packages an ecosystem's items are.
var ecosystemPlatforms = map[string][]string{
	"npm":      {"node.js", "nodejs", "npm", "npmjs"},
	"pypi":     {"python", "pypi", "flask", "django", "pyramid"},
	"gem":      {"ruby", "rails"},
	"cargo":    {"rust"},
	"golang":   {"go", "golang"},
	"composer": {"php", "wordpress", "joomla\\!", "joomla!", "joomla", "drupal", "typo3", "moodle", "roundcube", "magento", "prestashop", "mediawiki"},
	"maven":    {"java", "jenkins"},
}

// PURLType is the type of a package URL; "" when there is none or it does not parse.
func PURLType(purl string) string {
	if purl == "" {
		return ""
	}
	u, err := packageurl.FromString(purl)
	if err != nil {
		return ""
	}
	return u.Type
}

// itemEcosystem is the package ecosystem of an item, by its purl's type or its source.
func itemEcosystem(pkg appliance.PackageInfo) string {
	kind := PURLType(pkg.PURL)
	if kind == "" {
		kind = strings.ToLower(pkg.Source)
	}
	switch kind {
	case "go", "gomod":
		return "golang"
	case "rubygems":
		return "gem"
	case "crates.io", "rust":
		return "cargo"
	case "packagist", "php":
		return "composer"
	case "jenkins":
		return "maven"
	}
	return kind
}

// SourceIdentity is what the source of a reported item says of its identity, before any
// lookup by name: a reviewed bundle id or Homebrew formula, or a Go module path naming its
// repository (github.com/coreos/etcd → etcd:etcd). ok is false when the source says nothing.
func (r *Resolver) SourceIdentity(vendor, product string, pkg appliance.PackageInfo) (Result, bool) {
	if id, ok := reviewedIdentity(vendor, product, pkg); ok {
		return Result{Part: id.Part, Vendor: id.Vendor, Product: id.Product, Method: appliance.ResolutionExact, Confidence: 1}, true
	}
	if path, ok := goModulePath(product, pkg); ok {
		_, cat := r.snapshot()
		if id, ok := goModuleIdentity(cat, path); ok {
			return exactResult(id, 0.9), true
		}
	}
	return Result{}, false
}

// ResolveItem resolves a reported item as the inventory does without an organization's
// decisions or imported advisories: what its source says, else its (vendor, product) unless
// the item's facts refuse the identity found (Refuses).
func (r *Resolver) ResolveItem(ctx context.Context, vendor, product string, pkg appliance.PackageInfo) (Result, error) {
	if res, ok := r.SourceIdentity(vendor, product, pkg); ok {
		return res, nil
	}
	res, err := r.Resolve(ctx, nil, vendor, product)
	if err == nil && r.Refuses(vendor, appliance.Identity{Part: res.Part, Vendor: res.Vendor, Product: res.Product}, res.Method, pkg) {
		res = Result{Method: appliance.ResolutionUnresolved, Confidence: res.Confidence, Candidates: res.Candidates}
	}
	return res, err
}

// goModulePath is the module path of a Go package, from its purl or, for a Go source, its name.
func goModulePath(product string, pkg appliance.PackageInfo) (string, bool) {
	if u, err := packageurl.FromString(pkg.PURL); err == nil && u.Type == packageurl.TypeGolang {
		if u.Namespace == "" {
			return u.Name, true
		}
		return u.Namespace + "/" + u.Name, true
	}
	switch strings.ToLower(pkg.Source) {
	case "go", "golang", "gomod":
		return strings.TrimSpace(product), true
	}
	return "", false
}

// goModuleIdentity reads a module path on a code host (github.com/OWNER/REPO[/vN][/sub]): the
// repository is the project, spelled in the catalogue with the owner as vendor or as its own
// project (REPO:REPO). NVD's "REPO_project" vendors name whatever project first had a CVE under
// that name (jwt_project:jwt is not github.com/nats-io/jwt), so they are not tried.
func goModuleIdentity(cat *Catalog, path string) (appliance.CatalogEntry, bool) {
	parts := strings.Split(strings.ToLower(path), "/")
	if len(parts) < 3 || !strings.Contains(parts[0], ".") {
		return appliance.CatalogEntry{}, false
	}
	owner, repo := parts[1], parts[2]
	q := &query{cat: cat}
	for _, vp := range [][2]string{{owner, repo}, {repo, repo}} {
		if id, ok := cat.Lookup(vp[0], vp[1]); ok && id.Part == "a" {
			return q.usedSpelling(id), true
		}
	}
	// A repository with a common name is spelled with its owner (github.com/miekg/dns is
	// miekg-dns), a product only its own project owns.
	both := owner + "-" + repo
	if id, ok := chooseOwner(cat.ByProduct(both), both); ok && id.Part == "a" && strings.HasPrefix(id.Vendor, both) {
		return q.usedSpelling(id), true
	}
	return appliance.CatalogEntry{}, false
}
