package resolve

import (
	"sort"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// aliasGroups list identities NVD uses for the same software; the matcher checks CVEs of
// every member. One group a line, with the reason.
var aliasGroups = [][]string{
	{"haxx:curl", "curl:curl", "daniel_stenberg:curl", "curl_project:curl"}, // curl: company, project, author
	{"haxx:libcurl", "curl:libcurl", "libcurl:libcurl"},                     // libcurl, same three spellings
	{"git-scm:git", "git:git", "git_project:git"},                           // Git by site, name and project
	{"nginx:nginx", "f5:nginx", "igor_sysoev:nginx"},                        // nginx, acquired by F5
	{"7-zip:7-zip", "igor_pavlov:7-zip"},                                    // 7-Zip by name and author
	{"notepad++:notepad++", "notepad-plus-plus:notepad++", "don_ho:notepad++", "notepad_plus_plus:notepad++"},
	{"putty:putty", "simon_tatham:putty", "greenend:putty"},                  // PuTTY by name, author, site
	{"sudo_project:sudo", "sudo:sudo", "todd_miller:sudo", "gratisoft:sudo"}, // sudo and its maintainer
	{"gnu:gzip", "gzip:gzip"},                                                // GNU gzip
	{"gnu:wget", "wget:wget"},                                                // GNU Wget
	{"systemd_project:systemd", "freedesktop:systemd", "lennart_poettering:systemd"},
	{"python:python", "python_software_foundation:python"},                 // CPython
	{"perl:perl", "larry_wall:perl"},                                       // Perl 5
	{"php:php", "php_group:php"},                                           // PHP
	{"ruby-lang:ruby", "yukihiro_matsumoto:ruby"},                          // CRuby
	{"nodejs:node.js", "node.js:node.js", "joyent:node.js"},                // Node.js, once by Joyent
	{"mono-project:mono", "mono:mono", "mono_project:mono"},                // Mono
	{"tukaani:xz", "xz_project:xz"},                                        // XZ Utils
	{"lz4_project:lz4", "yann_collet:lz4"},                                 // LZ4 and its author
	{"jq_project:jq", "jqlang:jq"},                                         // jq
	{"aria2_project:aria2", "tatsuhiro_tsujikawa:aria2"},                   // aria2 and its author
	{"kitware:cmake", "cmake_project:cmake"},                               // CMake
	{"gnu:ncurses", "invisible-island:ncurses", "ncurses_project:ncurses"}, // ncurses and its maintainer
	{"linux-pam:linux-pam", "kernel:linux-pam"},                            // Linux-PAM
	{"kernel:util-linux", "linux:util-linux", "util-linux_project:util-linux", "andries_brouwer:util-linux"},
	{"e2fsprogs_project:e2fsprogs", "ext2_filesystems_utilities:e2fsprogs"}, // e2fsprogs
	{"json-c:json-c", "json-c_project:json-c"},                              // json-c
	{"libreoffice:libreoffice", "the_document_foundation:libreoffice", "thedocumentfoundation:libreoffice"},
	{"audacityteam:audacity", "audacity:audacity"},                                 // Audacity
	{"gimp:gimp", "gnu:gimp"},                                                      // GIMP, a GNU package
	{"apache:openoffice", "openoffice:openoffice"},                                 // OpenOffice, now Apache
	{"vim:vim", "vim_development_group:vim", "vim_project:vim"},                    // Vim
	{"gnu:gpgme", "gpgme_project:gpgme"},                                           // GPGME
	{"oracle:mysql", "mysql:mysql"},                                                // MySQL, bought by Oracle
	{"rubygems:rubygems", "rubyforge:rubygems"},                                    // RubyGems
	{"microsoft:skype", "skype:skype", "skype_technologies:skype"},                 // Skype, bought by Microsoft
	{"fortinet:forticlient", "forticlient:forticlient"},                            // FortiClient
	{"tortoisesvn:tortoisesvn", "tigris:tortoisesvn"},                              // TortoiseSVN
	{"gnu:libtasn1", "free_software_foundation_inc.:libtasn1"},                     // GNU Libtasn1
	{"libarchive:libarchive", "freebsd:libarchive"},                                // libarchive, from FreeBSD
	{"foxit:pdf_reader", "foxitsoftware:pdf_reader", "foxitsoftware:foxit_reader"}, // Foxit Reader renamed
	{"brave:brave", "brave:brave_browser"},                                         // Brave browser
	{"postgresql:postgresql", "postgresql_global_development_group:postgresql"},
	{"mozilla:firefox", "mozilla:firefox_esr"},
	{"opera:opera_browser", "opera:opera"},                                                   // Opera browser, older NVD name
	{"adobe:adobe_air", "adobe:air"},                                                         // Adobe AIR spelled both ways
	{"keepass:keepass", "keepass:password_safe"},                                             // "KeePass Password Safe"
	{"logitech:options+", "logitech:logi_options+", "logitech:options_plus"},                 // Logi Options+
	{"razerzone:razer_synapse", "razer:synapse"},                                             // Razer Synapse under old and new vendor
	{"gnu:gcc", "gcc:gcc"},                                                                   // GCC, the GNU Compiler Collection
	{"gnupg:libgcrypt", "libgcrypt20_project:libgcrypt20"},                                   // Debian's libgcrypt20 package named as a vendor // ESR is a Firefox branch
	{"clamav:clamav", "cisco:clamav"},                                                        // ClamAV, acquired by Cisco
	{"procps-ng_project:procps-ng", "procps_project:procps"},                                 // procps, continued as procps-ng
	{"cmu:cyrus-sasl", "carnegie_mellon_university:cyrus-sasl", "cyrusimap:cyrus-sasl"},      // Cyrus SASL, from CMU
	{"heimdal_project:heimdal", "heimdal:heimdal", "kth:heimdal", "heimdalsecurity:heimdal"}, // Heimdal Kerberos
	{"file_project:file", "file:file", "christos_zoulas:file"},                               // file(1) and libmagic, by its author
	{"bzip:bzip2", "bzip2_project:bzip2"},                                                    // bzip2
	{"xfs:acl", "acl:acl"},                                                                   // POSIX ACL tools, from the XFS project
	{"heinz_mauelshagen:lvm2", "redhat:lvm2"},                                                // LVM2 and device-mapper, by its author
	{"logrotate_project:logrotate", "gentoo:logrotate"},                                      // logrotate's early CVEs are filed under Gentoo
	{"libexpat_project:libexpat", "libexpat:expat", "james_clark:expat"},                     // Expat, by its author
	{"jedsoft:s-lang", "s-lang:s-lang"},                                                      // S-Lang, by its publisher
	{"freedesktop:dbus", "freedesktop:libdbus"},                                              // D-Bus and its library
	{"musl-libc:musl", "etalabs:musl"},                                                       // musl, by its site and its author's company
	{"apache:subversion", "subversion:subversion"},                                           // Subversion, an Apache project
	{"hashicorp:vagrant", "vagrant_project:vagrant"},                                         // Vagrant, by HashiCorp
	{"redhat:wildfly", "wildfly:wildfly"},                                                    // WildFly, by Red Hat
	{"redhat:keycloak", "keycloak:keycloak"},                                                 // Keycloak, by Red Hat
	{"redhat:ansible", "ansible:ansible", "ansibleworks:ansible"},                            // Ansible, by AnsibleWorks, then Red Hat
	{"erlang:erlang/otp", "erlang:erlang", "erlang:otp"},                                     // Erlang/OTP, NVD's three spellings
	{"sound_exchange_project:sound_exchange", "sox:sox"},                                     // SoX, Sound eXchange
	// VirtualBox, from Sun to Oracle, which renamed it "VM VirtualBox" and files CVEs under both.
	{"oracle:vm_virtualbox", "oracle:virtualbox", "sun:virtualbox"},
}

// curatedProducts are the products the alias groups name.
var curatedProducts = func() map[string]bool {
	m := map[string]bool{}
	for _, group := range aliasGroups {
		for _, vp := range parseGroup(group) {
			m[vp.Product] = true
		}
	}
	return m
}()

// renamedVendors map a vendor NVD no longer files new CVEs under to the one it uses since an
// acquisition or rename. The same product under both is one software (sun:virtualbox is
// oracle:virtualbox), and the later vendor is its canonical spelling.
var renamedVendors = map[string]string{
	"sun":                    "oracle", // Sun Microsystems, bought by Oracle (2010)
	"pivotal_software":       "vmware", // Pivotal, merged into VMware (2019)
	"springsource":           "vmware", // SpringSource, bought by VMware (2009)
	"spring_by_vmware_tanzu": "vmware", // the Spring projects' newer dictionary vendor
}

// renamedSpellings are the other vendors' spellings of product the catalogue knows, through
// renamedVendors: the later vendor and every earlier one.
func renamedSpellings(cat *Catalog, vendor, product string) []appliance.Identity {
	current := vendor
	if later, ok := renamedVendors[vendor]; ok {
		current = later
	}
	var out []appliance.Identity
	for _, v := range append([]string{current}, earlierVendors[current]...) {
		if _, ok := cat.Lookup(v, product); ok && v != vendor {
			out = append(out, appliance.Identity{Vendor: v, Product: product})
		}
	}
	return out
}

var earlierVendors = func() map[string][]string {
	m := map[string][]string{}
	for earlier, later := range renamedVendors {
		m[later] = append(m[later], earlier)
	}
	for _, list := range m {
		sort.Strings(list)
	}
	return m
}()

// renamedCanonical is the later vendor's spelling when every identity of ids spells one
// product under vendors that renamedVendors relate to it.
func renamedCanonical(ids []appliance.CatalogEntry) (appliance.CatalogEntry, bool) {
	var best appliance.CatalogEntry
	current := ""
	for _, id := range ids {
		v := id.Vendor
		if later, ok := renamedVendors[v]; ok {
			v = later
		}
		if current != "" && v != current || id.Product != ids[0].Product {
			return appliance.CatalogEntry{}, false
		}
		current = v
		if id.Vendor == v {
			best = id
		}
	}
	return best, best.Vendor != ""
}

// Aliases returns (vendor, product) first, then the identities NVD also uses for the same
// software: its curated group, the "<name>" / "<name>_project" vendor pair NVD created when
// it renamed project vendors, and the product with the vendor's name in front or not. Only
// spellings the catalogue knows are returned.
func (r *Resolver) Aliases(vendor, product string) []appliance.Identity {
	_, cat := r.snapshot()
	return aliasesIn(cat, vendor, product)
}

func aliasesIn(cat *Catalog, vendor, product string) []appliance.Identity {
	self := appliance.Identity{Vendor: vendor, Product: product}
	others := map[appliance.Identity]bool{}
	for _, vp := range curatedAliases(self) {
		others[vp] = true
	}
	for _, vp := range renamedSpellings(cat, vendor, product) {
		others[vp] = true
	}
	for _, v := range projectSpellings(vendor, product) {
		if _, ok := cat.Lookup(v, product); ok {
			others[appliance.Identity{Vendor: v, Product: product}] = true
		}
	}
	// The vendor repeated in the product names the same product (liferay:liferay_portal is
	// liferay:portal).
	if p := prefixSpelling(vendor, product); p != "" {
		if _, ok := cat.Lookup(vendor, p); ok {
			others[appliance.Identity{Vendor: vendor, Product: p}] = true
		}
	}
	delete(others, self)
	list := make([]appliance.Identity, 0, len(others)+1)
	for vp := range others {
		list = append(list, vp)
	}
	sort.Slice(list, func(i, j int) bool { return joinVP(list[i]) < joinVP(list[j]) })
	return append([]appliance.Identity{self}, list...)
}

// canonicalOf is the first member of the curated group of every identity in ids, when they all
// belong to one group: several vendors of one product that are the same software decide
// nothing against each other, the group's canonical spelling wins.
func canonicalOf(ids []appliance.CatalogEntry) (appliance.Identity, bool) {
	var group []appliance.Identity
	for i, id := range ids {
		g := curatedAliases(appliance.Identity{Vendor: id.Vendor, Product: id.Product})
		if g == nil || i > 0 && g[0] != group[0] {
			return appliance.Identity{}, false
		}
		group = g
	}
	if group == nil {
		return appliance.Identity{}, false
	}
	return group[0], true
}

func curatedAliases(self appliance.Identity) []appliance.Identity {
	want := joinVP(self)
	for _, group := range aliasGroups {
		for _, member := range group {
			if member == want {
				return parseGroup(group)
			}
		}
	}
	return nil
}

func parseGroup(group []string) []appliance.Identity {
	out := make([]appliance.Identity, 0, len(group))
	for _, member := range group {
		vendor, product, _ := strings.Cut(member, ":")
		out = append(out, appliance.Identity{Vendor: vendor, Product: product})
	}
	return out
}

// prefixSpelling is the product with the vendor's name added in front, or taken away.
func prefixSpelling(vendor, product string) string {
	if vendor == "" || product == "" || vendor == product {
		return ""
	}
	if rest, ok := strings.CutPrefix(product, vendor+"_"); ok {
		return rest
	}
	return vendor + "_" + product
}

// projectSpellings pairs a vendor "x" with "x_project", in both directions.
func projectSpellings(vendor, product string) []string {
	base := strings.TrimSuffix(vendor, "_project")
	if base != vendor {
		return []string{base}
	}
	return []string{vendor + "_project"}
}

func aliasSet(list []appliance.Identity) map[appliance.Identity]bool {
	m := make(map[appliance.Identity]bool, len(list))
	for _, vp := range list {
		m[vp] = true
	}
	return m
}
