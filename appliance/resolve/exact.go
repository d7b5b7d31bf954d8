package resolve

import (
	"slices"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// query is one reported pair prepared for lookups: the catalogue vendors the publisher may
// be and the product spellings worth trying, best first.
type query struct {
	cat          *Catalog
	key          Key
	vendorWords  []string
	productWords []string
	vendors      []string
	products     []string
	weak         map[string]bool // product spellings that need their own project as owner
}

func newQuery(cat *Catalog, key Key, fullVendor string) *query {
	q := &query{cat: cat, key: key, vendorWords: Words(key.Vendor), productWords: Words(key.Product)}
	for _, v := range vendorSpellings(q.vendorWords, fullVendor) {
		if cat.HasVendor(v) {
			q.vendors = append(q.vendors, v)
		}
	}
	q.products, q.weak = packageAwareSpellings(q.productWords)
	if len(q.vendorWords) == 0 {
		q.addWithoutKindWords()
	}
	return q
}

// addWithoutKindWords adds, as a weak spelling, a publisher-less name without the kind words
// that end it ("Selenium server" → selenium): it names the project only when the project owns it.
func (q *query) addWithoutKindWords() {
	// One kind word only: a name that is its publisher's once two are gone ("Alibaba Cloud
	// CLI" → alibaba) has lost what it named.
	words := q.productWords
	if len(words) > 1 && genericWords[words[len(words)-1]] {
		words = words[:len(words)-1]
	}
	short := strings.Join(words, "_")
	if len(words) == len(q.productWords) || slices.Contains(q.products, short) {
		return
	}
	q.products = append(q.products, short)
	if q.weak == nil {
		q.weak = map[string]bool{}
	}
	q.weak[short] = true
}

// fullVendor is the publisher with its legal words kept ("the_document_foundation").
func fullVendor(vendor string) string {
	words := tokenize(vendor)
	kept := words[:0]
	for _, w := range words {
		if !isVersion(w) {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, "_")
}

// vendorSpellings are the ways NVD spells a publisher: joined words, its first word,
// the words run together ("Video LAN" → videolan), and the name with its legal words.
func vendorSpellings(words []string, full string) []string {
	if len(words) == 0 {
		return nil
	}
	spellings := []string{strings.Join(words, "_"), full, words[0], strings.Join(words, ""), strings.Join(words, "-")}
	if len(words) > 2 {
		spellings = append(spellings, words[0]+"_"+words[1])
	}
	return unique(spellings)
}

// exact tries the catalogue: publisher × product spellings, the publisher's name kept in
// the product, a publisher hidden in the product's first words, a language package's project,
// the product alone, then the product a package's group names.
func (q *query) exact() (Result, bool) {
	if res, ok := q.exactPair(q.vendors); ok {
		return res, true
	}
	if res, ok := q.vendorInProduct(); ok {
		return res, true
	}
	if res, ok := q.moduleOfProject(); ok {
		return res, true
	}
	if res, ok := q.productOnly(); ok {
		return res, true
	}
	return q.groupProduct()
}

// moduleOfProject reads a language package's namespace: a Maven group (org.keycloak,
// org.apache.cxf) or a module path (github.com/coreos/etcd) names the project, and a module
// whose name begins with the project's label (keycloak-saml-core, cxf-rt-wsdl) is a part of
// it. The project must be spelled exactly in the catalogue: its first two words
// (wildfly-elytron-digest → wildfly_elytron, spring-boot-autoconfigure → spring_boot), or
// the label, as a vendor:product pair with the label before it (apache:cxf) or a product its
// own project owns (keycloak, etcd). A label may spell the project in one word
// (org.springframework: spring_framework).
func (q *query) moduleOfProject() (Result, bool) {
	if len(q.vendorWords) != 1 || !strings.Contains(q.vendorWords[0], ".") || len(q.productWords) != 1 {
		return Result{}, false
	}
	labels := strings.Split(q.vendorWords[0], ".")
	words := strings.Split(q.productWords[0], "-")
	if namespaceNoise[words[0]] {
		return Result{}, false
	}
	i := slices.Index(labels, words[0])
	// A label that begins with the module's first word spells the project in one word
	// (org.springframework holds spring-context: spring_framework).
	joined := ""
	if i < 0 && len(words[0]) >= 4 {
		i = slices.IndexFunc(labels, func(l string) bool { return len(l) > len(words[0])+2 && strings.HasPrefix(l, words[0]) })
		if i >= 0 {
			joined = words[0] + "_" + labels[i][len(words[0]):]
		}
	}
	if i < 0 {
		return q.groupProject(labels)
	}
	var tries []func() (appliance.CatalogEntry, bool)
	if len(words) > 1 {
		// The project's first two words, also without a major version run into the last
		// (commons-lang3 is Commons Lang).
		for _, two := range unique([]string{words[0] + "_" + words[1], words[0] + "_" + withoutMajorVersion(words[1])}) {
			tries = append(tries, func() (appliance.CatalogEntry, bool) { return chooseOwner(q.cat.ByProduct(two), two) })
		}
	}
	if joined != "" {
		tries = append(tries, func() (appliance.CatalogEntry, bool) { return chooseOwner(q.cat.ByProduct(joined), joined) })
	}
	// A label after the project's names a sub-project: org.wildfly.core is WildFly Core
	// (wildfly_core), org.wildfly.wildfly-http-client its own project. A sub-project the
	// catalogue does not know is not its parent.
	if i+1 < len(labels) && joined == "" {
		next := labels[i+1]
		sub, named := labels[i]+"_"+next, strings.Contains(next, "-")
		if named {
			sub = strings.ReplaceAll(next, "-", "_")
		}
		tries = append(tries, func() (appliance.CatalogEntry, bool) { return chooseOwner(q.cat.ByProduct(sub), sub) })
		if named {
			tries = append(tries, func() (appliance.CatalogEntry, bool) { return chooseOwner(q.cat.ByProduct(next), next) })
			return q.firstOf(tries)
		}
	}
	if i > 0 {
		tries = append(tries, func() (appliance.CatalogEntry, bool) { return q.cat.Lookup(labels[i-1], words[0]) })
	}
	// The module and its group agree on the name (org.jboss.resteasy:resteasy-jaxb-provider):
	// the product's own project, or its only vendor when CVE data uses it (redhat:resteasy).
	tries = append(tries, func() (appliance.CatalogEntry, bool) {
		all := q.cat.ByProduct(words[0])
		id, ok := chooseOwner(all, words[0])
		return id, ok && (ownsByName(id.Vendor, words[0]) || joined == "" && id.CVEUsed && len(distinctVendors(all)) == 1)
	})
	return q.firstOf(tries)
}

// groupProject reads a group whose project label (the one after the top-level label:
// org.keycloak) names a project its own vendor owns, for a module not named after it
// (org.keycloak.testsuite:photoz-restful-api is Keycloak's). A later hyphenated label names a
// sub-project of its own (org.wildfly.security.elytron-web), which is not its parent.
func (q *query) groupProject(labels []string) (Result, bool) {
	if len(labels) < 2 || namespaceNoise[labels[1]] {
		return Result{}, false
	}
	for _, l := range labels[2:] {
		if strings.Contains(l, "-") {
			return Result{}, false
		}
	}
	project := labels[1]
	id, ok := chooseOwner(q.cat.ByProduct(project), project)
	if !ok || !ownsByName(id.Vendor, project) {
		return Result{}, false
	}
	return exactResult(q.usedSpelling(id), 0.8), true
}

// groupProduct reads a group that spells its project in labels after its vendor's:
// org.apache.directory.api holds the modules of Apache Directory LDAP API
// (apache:directory_ldap_api), the one product of the vendor that names every later label.
// Several such products, or none, decide nothing.
func (q *query) groupProduct() (Result, bool) {
	if len(q.vendorWords) != 1 || !strings.Contains(q.vendorWords[0], ".") {
		return Result{}, false
	}
	labels := strings.Split(q.vendorWords[0], ".")
	for i := 1; i < len(labels)-1; i++ {
		if !q.cat.HasVendor(labels[i]) {
			continue
		}
		project := labels[i+1:]
		var found []appliance.CatalogEntry
		for _, id := range q.cat.ByVendor(labels[i]) {
			if id.Part == "a" && !id.Deprecated && namesAll(id.Product, project) {
				found = append(found, id)
			}
		}
		if len(found) == 1 {
			return exactResult(q.usedSpelling(found[0]), 0.8), true
		}
		return Result{}, false
	}
	return Result{}, false
}

// namesAll reports a product whose words include every label.
func namesAll(product string, labels []string) bool {
	words := strings.FieldsFunc(product, func(r rune) bool { return r == '_' || r == '-' })
	for _, l := range labels {
		if !slices.Contains(words, l) {
			return false
		}
	}
	return true
}

// firstOf is the first identity found by tries, in its used spelling.
func (q *query) firstOf(tries []func() (appliance.CatalogEntry, bool)) (Result, bool) {
	for _, try := range tries {
		if id, ok := try(); ok {
			return exactResult(q.usedSpelling(id), 0.85), true
		}
	}
	return Result{}, false
}

// withoutMajorVersion drops one digit a word ends in after three letters or more (lang3 →
// lang); any other word is returned as it is.
func withoutMajorVersion(w string) string {
	n := len(w)
	if n < 4 || w[n-1] < '0' || w[n-1] > '9' {
		return w
	}
	for _, c := range w[:n-1] {
		if c < 'a' || c > 'z' {
			return w
		}
	}
	return w[:n-1]
}

// namespaceNoise are the labels of a namespace that name no project.
var namespaceNoise = set("org", "com", "net", "io", "github", "gitlab", "golang", "gopkg", "in", "go", "x", "de", "eu", "uk",
	"security", "core", "common", "api", "jboss", "apache", "eclipse", "google")

func (q *query) exactPair(vendors []string) (Result, bool) {
	for _, v := range vendors {
		for i, p := range q.products {
			confidence := 1.0
			if i > 0 {
				confidence = 0.95
			}
			if syn, ok := vendorSynonyms[appliance.Identity{Vendor: v, Product: p}]; ok {
				p = syn
			}
			if id, ok := q.cat.Lookup(v, p); ok {
				return exactResult(q.usedSpelling(id), confidence), true
			}
			if id, ok := q.cat.Lookup(v, v+"_"+p); ok {
				return exactResult(id, 0.95), true
			}
		}
	}
	return Result{}, false
}

// vendorInProduct handles "GNU Wget" or "Apache Maven" reported without a publisher, and a
// publisher written last ("Clang/LLVM").
func (q *query) vendorInProduct() (Result, bool) {
	words := q.productWords
	if len(q.vendors) > 0 || len(words) < 2 {
		return Result{}, false
	}
	type split struct{ vendor, product []string }
	var splits []split
	for n := 1; n <= 2 && n < len(words); n++ {
		splits = append(splits, split{words[:n], words[n:]})
	}
	splits = append(splits, split{words[len(words)-1:], words[:len(words)-1]})
	for _, sp := range splits {
		// A publisher of two words may be spelled run together ("Cloud Foundry" → cloudfoundry).
		for _, vendor := range unique([]string{strings.Join(sp.vendor, "_"), strings.Join(sp.vendor, "")}) {
			if !q.cat.HasVendor(vendor) {
				continue
			}
			rest := &query{cat: q.cat, products: productSpellings(sp.product)}
			if res, ok := rest.exactPair([]string{vendor}); ok {
				res.Confidence = 0.95
				return res, true
			}
		}
	}
	return Result{}, false
}

// productOnly accepts a product spelled exactly in the catalogue when one vendor is the
// clear owner. A publisher that was reported but disagrees lowers confidence and is accepted
// only for distinctive product names.
func (q *query) productOnly() (Result, bool) {
	for _, p := range q.products {
		id, ok := chooseOwner(q.cat.ByProduct(p), p)
		if !ok || q.weak[p] && !ownsByName(id.Vendor, p) {
			continue
		}
		if len(q.vendorWords) == 0 || q.vendorAgrees(id.Vendor) {
			return exactResult(q.usedSpelling(id), 0.9), true
		}
		// A publisher the catalogue knows, but not for this product, makes another
		// vendor's same-named product a different product (Realtek's audio driver is not Intel's).
		// A one-word publisher the catalogue does not know — a package namespace, often — leaves
		// only long or marked names to the catalogue's owner (ramsey/uuid is not uuidjs:uuid,
		// nesbot/carbon not wso2:carbon; Igor Pavlov's 7-Zip is 7-zip:7-zip).
		// A project spelled by its own name (opencv:opencv) is itself under any namespace that
		// repackages it (org.openpnp:opencv, org.webjars:jquery).
		if len(q.vendors) == 0 && !isGeneric(p) && (len(p) >= 7 || len(q.vendorWords) > 1 || strings.ContainsAny(p, "0123456789+-_.") || id.Vendor == p) {
			return exactResult(id, 0.85), true
		}
	}
	return Result{}, false
}

func (q *query) vendorAgrees(vendor string) bool {
	for _, v := range q.vendors {
		if v == vendor {
			return true
		}
	}
	for _, w := range q.vendorWords {
		if strings.Contains(vendor, w) && len(w) > 2 {
			return true
		}
	}
	return false
}

// chooseOwner picks the vendor of a product spelled by several: the product's own name
// ("curl:curl"), a well-known upstream publisher, then "<product>_project", NVD's name for
// projects without a company. A single vendor owns a product unless the name is generic.
func chooseOwner(ids []appliance.CatalogEntry, product string) (appliance.CatalogEntry, bool) {
	ids = preferUsed(withoutPluginHosts(preferApplications(ids)))
	if len(ids) == 0 {
		return appliance.CatalogEntry{}, false
	}
	if len(distinctVendors(ids)) == 1 {
		return ids[0], !isGeneric(product) && !pluginHosts[ids[0].Vendor]
	}
	if id, ok := renamedCanonical(ids); ok {
		return id, true
	}
	if c, ok := canonicalOf(ids); ok {
		for _, id := range ids {
			if id.Vendor == c.Vendor {
				return id, true
			}
		}
	}
	for _, rule := range ownerRules {
		for _, id := range ids {
			if rule(id.Vendor, product) {
				return id, true
			}
		}
	}
	return namedAfter(ids, product)
}

// ownsByName is true for a vendor named after the product (curl:curl, nettle_project:nettle),
// a well-known upstream publisher of many projects (gnu:readline), or a reviewed identity.
func ownsByName(vendor, product string) bool {
	return len(product) >= 3 && (ownerRules[0](vendor, product) || ownerRules[1](vendor, product) || ownerRules[2](vendor, product) ||
		curatedAliases(appliance.Identity{Vendor: vendor, Product: product}) != nil)
}

// preferUsed keeps the identities CVE data uses, when there are any: a spelling only a
// dictionary lists never owns a product another vendor's CVEs are filed under (xfs:acl, not
// acl:acl).
func preferUsed(ids []appliance.CatalogEntry) []appliance.CatalogEntry {
	used := make([]appliance.CatalogEntry, 0, len(ids))
	for _, id := range ids {
		if id.CVEUsed && !pluginHosts[id.Vendor] {
			used = append(used, id)
		}
	}
	if len(used) == 0 {
		return ids
	}
	return used
}

// withoutPluginHosts drops the plugin hosts' spellings when another vendor spells the product:
// jenkins:nuget is the Jenkins plugin for NuGet, not NuGet.
func withoutPluginHosts(ids []appliance.CatalogEntry) []appliance.CatalogEntry {
	kept := make([]appliance.CatalogEntry, 0, len(ids))
	for _, id := range ids {
		if !pluginHosts[id.Vendor] {
			kept = append(kept, id)
		}
	}
	if len(kept) == 0 {
		return ids
	}
	return kept
}

// pluginHosts file CVEs of plugins named after the software they drive (jenkins:nuget is
// the Jenkins NuGet plugin, mediawiki:matomo the MediaWiki extension for Matomo), so their use
// by CVE data says nothing of the software itself.
var pluginHosts = set("jenkins", "mediawiki")

var ownerRules = []func(vendor, product string) bool{
	func(v, p string) bool { return v == p || v == strings.ReplaceAll(p, "_", "-") },
	func(v, _ string) bool { return upstreamVendors[v] },
	func(v, p string) bool { return v == p+"_project" },
}

// namedAfter finds the one vendor whose name contains the product ("npmjs" for npm,
// "getcomposer" for composer); several such vendors decide nothing.
func namedAfter(ids []appliance.CatalogEntry, product string) (appliance.CatalogEntry, bool) {
	var found []appliance.CatalogEntry
	for _, id := range ids {
		if len(product) >= 3 && strings.Contains(id.Vendor, product) {
			found = append(found, id)
		}
	}
	if len(found) != 1 {
		return appliance.CatalogEntry{}, false
	}
	return found[0], true
}

func preferApplications(ids []appliance.CatalogEntry) []appliance.CatalogEntry {
	apps := make([]appliance.CatalogEntry, 0, len(ids))
	for _, id := range ids {
		if id.Part == "a" && !id.Deprecated {
			apps = append(apps, id)
		}
	}
	if len(apps) == 0 {
		return ids
	}
	return apps
}

// usedSpelling replaces a dictionary-only identity by a spelling of the same product that CVE
// data uses: the first of its reviewed group (canonical first), else the one derived spelling
// that is used. A spelling only a dictionary lists never wins over one NVD files CVEs under.
func (q *query) usedSpelling(id appliance.CatalogEntry) appliance.CatalogEntry {
	if id.CVEUsed {
		return id
	}
	for _, a := range curatedAliases(id.Identity.Pair()) {
		if e, ok := q.cat.Lookup(a.Vendor, a.Product); ok && e.CVEUsed {
			return e
		}
	}
	if e, ok := q.usedWithoutGenericTail(id); ok {
		return e
	}
	var used []appliance.CatalogEntry
	for _, a := range aliasesIn(q.cat, id.Vendor, id.Product)[1:] {
		if e, ok := q.cat.Lookup(a.Vendor, a.Product); ok && e.CVEUsed {
			used = append(used, e)
		}
	}
	if len(used) != 1 {
		return id
	}
	return used[0]
}

// usedWithoutGenericTail finds the product CVE data uses that a dictionary-only spelling only
// adds kind words to, under the same vendor: microsoft:.net_core_sdk is the SDK of
// microsoft:.net_core, whose CVEs NVD files under the shorter name.
func (q *query) usedWithoutGenericTail(id appliance.CatalogEntry) (appliance.CatalogEntry, bool) {
	words := strings.Split(id.Product, "_")
	for len(words) > 1 && genericWords[words[len(words)-1]] {
		words = words[:len(words)-1]
		if e, ok := q.cat.Lookup(id.Vendor, strings.Join(words, "_")); ok && e.CVEUsed && e.Part == id.Part {
			return e, true
		}
	}
	return appliance.CatalogEntry{}, false
}

func distinctVendors(ids []appliance.CatalogEntry) map[string]bool {
	vendors := make(map[string]bool, len(ids))
	for _, id := range ids {
		vendors[id.Vendor] = true
	}
	return vendors
}

func exactResult(id appliance.CatalogEntry, confidence float64) Result {
	return Result{Part: id.Part, Vendor: id.Vendor, Product: id.Product, Method: appliance.ResolutionExact, Confidence: confidence}
}

func unique(items []string) []string {
	seen := make(map[string]bool, len(items))
	out := items[:0]
	for _, s := range items {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
