package resolve

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// rulesCatalog spells each case of the rules below; "+" marks an identity CVE data uses, and
// "@platform" the platform its CPE names are for.
func rulesCatalog() *Catalog {
	var ids []appliance.CatalogEntry
	for _, s := range []string{
		"jenkins:nuget+", "microsoft:nuget", "mediawiki:cargo", "rust-lang:cargo",
		"microsoft:.net_core+", "microsoft:.net_core_sdk",
		"pivotal_software:spring_boot+", "vmware:spring_boot+", "pivotal_software:spring_framework+",
		"springsource:spring_framework+", "vmware:spring_framework+", "spring_by_vmware_tanzu:spring_framework",
		"oracle:virtualbox+", "sun:virtualbox+", "oracle:vm_virtualbox+",
		"llvm:clang+", "arm:clang", "llvm:llvm+",
		"selenium:selenium", "jenkins:selenium", "zeta:reporter+",
		"redhat:wildfly", "wildfly:wildfly", "redhat:wildfly_core+", "redhat:keycloak+", "keycloak:keycloak",
		"redhat:resteasy+", "shadow_project:shadow+", "file_project:file+", "file:file+", "gentoo:file+",
		"etcd:etcd+", "redhat:etcd+", "jwt_project:jwt+", "r_project:r+", "r_foundation:r+",
		"chromedriver_project:chromedriver+@node.js", "stack_project:stack@rust", "flask_project:flask+@*",
		"mongodb:mongodb+", "libarchive:libarchive+", "opencv:opencv+",
		"mozilla:gecko+", "mozilla:geckodriver", "alibaba:alibaba+", "cloudfoundry:command_line_interface", "apache:subversion+",
		"apache:directory_ldap_api+", "apache:directory_studio+", "apache:httpclient+", "apache:httpcomponents_core",
		"apple:container+", "thephpleague:flysystem+", "apache:commons_lang", "miekg-dns_prject:miekg-dns+", "miekg-dns_project:miekg-dns",
	} {
		s, platform, _ := strings.Cut(s, "@")
		vp, used := strings.CutSuffix(s, "+")
		vendor, product, _ := strings.Cut(vp, ":")
		ids = append(ids, appliance.CatalogEntry{Identity: appliance.Identity{Part: "a", Vendor: vendor, Product: product}, CVEUsed: used, Platform: platform})
	}
	return NewCatalog(ids)
}

// TestResolutionRules covers one rule a case, each failing without its rule (issue 9 §3-4).
func TestResolutionRules(t *testing.T) {
	r := New(rulesCatalog(), nil, nil, Options{})
	for _, c := range []struct {
		name, source, vendor, product, want string
	}{
		{"a plugin host's spelling never owns the product", "macos", "", "NuGet", "microsoft:nuget"},
		{"nor an extension host's", "macos", "", "Cargo", "rust-lang:cargo"},
		{"a dictionary-only spelling with kind words is the used product", "macos", "", ".NET Core SDK", "microsoft:.net_core"},
		{"renamed vendors are one software, the later vendor canonical", "maven", "org.springframework.boot", "spring-boot-autoconfigure", "vmware:spring_boot"},
		{"a label spelling the project in one word", "maven", "org.springframework", "spring-context", "vmware:spring_framework"},
		{"the reviewed VirtualBox group decides its spellings' tie", "macos", "", "VirtualBox", "oracle:virtualbox"},
		{"a publisher written last", "macos", "", "Clang/LLVM", "llvm:clang"},
		{"a name without its kind words, owned by name", "macos", "", "Selenium server", "selenium:selenium"},
		{"but not by another vendor", "macos", "", "Reporter server", ""},
		{"a sub-project label", "maven", "org.wildfly.core", "wildfly-controller", "redhat:wildfly_core"},
		{"a sub-project the catalogue does not know is not its parent", "maven", "org.wildfly.wildfly-http-client", "wildfly-http-naming-client", ""},
		{"the group's project holds a module not named after it", "maven", "org.keycloak.testsuite", "photoz-restful-api", "redhat:keycloak"},
		{"unless a named sub-project holds it", "maven", "org.wildfly.security.elytron-web", "undertow-server-servlet", ""},
		{"a module and group agreeing on a name with one used vendor", "maven", "org.jboss.resteasy", "resteasy-jaxb-provider", "redhat:resteasy"},
		{"a generic word with a reviewed synonym", "rpm", "", "login", "shadow_project:shadow"},
		{"a generic word an alias group names", "rpm", "", "file", "file:file"},
		{"a name that is only a noise word", "macos", "", "R", "r_project:r"},
		{"a Go module path names its repository", "golang", "", "github.com/coreos/etcd", "etcd:etcd"},
		{"with a major version suffix", "golang", "", "github.com/coreos/etcd/v3", "etcd:etcd"},
		{"but not NVD's placeholder project of the same name", "golang", "", "github.com/nats-io/jwt", ""},
		{"an npm package's identity is not a Mac's tool", "macos", "", "ChromeDriver", ""},
		{"nor a name reported without a source", "", "", "chromedriver", ""},
		{"an npm item of the name is the package", "npm", "", "chromedriver", "chromedriver_project:chromedriver"},
		{"a distribution's package of it is never refused for its platform", "deb", "", "chromedriver", "chromedriver_project:chromedriver"},
		{"a Rust crate is not a Mac's tool", "macos", "", "Stack", ""},
		{"an identity named for several platforms binds none", "macos", "", "Flask", "flask_project:flask"},
		{"a command is its project's", "macos", "", "mongod", "mongodb:mongodb"},
		{"libarchive's tar", "macos", "", "bsdtar", "libarchive:libarchive"},
		{"a project spelled by its own name under a repackaging namespace", "maven", "org.openpnp", "opencv", "opencv:opencv"},
		{"a name written apart that its project runs together", "windows", "", "Gecko Driver", "mozilla:geckodriver"},
		{"one kind word goes, not two", "windows", "", "Alibaba Cloud CLI", ""},
		{"a two-word publisher run together, an abbreviation spelled out", "windows", "", "Cloud Foundry CLI", "cloudfoundry:command_line_interface"},
		{"a command's abbreviation", "tool", "", "SVN", "apache:subversion"},
		{"a group names its vendor's one product that spells its later labels", "maven", "org.apache.directory.api", "api-i18n", "apache:directory_ldap_api"},
		{"after the module's own identity", "maven", "org.apache.httpcomponents", "httpclient", "apache:httpclient"},
		{"which the group's product is otherwise", "maven", "org.apache.httpcomponents", "httpcore", "apache:httpcomponents_core"},
		{"a namespace names the identity it resolves to", "composer", "psr", "container", ""},
		{"as a publisher's site may", "composer", "league", "flysystem", "thephpleague:flysystem"},
		{"the same name from a desktop is not refused for it", "windows", "", "Container", "apple:container"},
		{"a major version run into a module's word", "maven", "org.apache.commons", "commons-lang3", "apache:commons_lang"},
		{"a Go repository of a common name, with its owner", "golang", "", "github.com/miekg/dns", "miekg-dns_prject:miekg-dns"},
	} {
		res, err := r.ResolveItem(context.Background(), c.vendor, c.product, appliance.PackageInfo{Source: c.source})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if res.Method != appliance.ResolutionUnresolved {
			got = res.Vendor + ":" + res.Product
		}
		if got != c.want {
			t.Errorf("%s: %s %q/%q → %q (%s), want %q", c.name, c.source, c.vendor, c.product, got, res.Method, c.want)
		}
	}
}

func TestDerivedAliasClasses(t *testing.T) {
	r := New(rulesCatalog(), nil, nil, Options{})
	for _, c := range []struct{ vendor, product, alias string }{
		{"pivotal_software", "spring_boot", "vmware:spring_boot"},
		{"vmware", "spring_framework", "springsource:spring_framework"},
		{"vmware", "spring_framework", "spring_by_vmware_tanzu:spring_framework"},
		{"oracle", "vm_virtualbox", "sun:virtualbox"},
	} {
		var got []string
		for _, a := range r.Aliases(c.vendor, c.product) {
			got = append(got, a.Vendor+":"+a.Product)
		}
		if !slices.Contains(got, c.alias) {
			t.Errorf("aliases of %s:%s = %v, want %s among them", c.vendor, c.product, got, c.alias)
		}
	}
}
