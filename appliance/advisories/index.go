package advisories

import "strings"

// Index holds loaded advisories by (distribution, release) or language ecosystem, ready for
// matching. It is built once (Add) and then only read; reads may run concurrently.
type Index struct {
	releases map[relKey]*releaseIndex
	count    int
}

type relKey struct{ distro, release string }

// releaseIndex is what one release's advisories say, by package name.
type releaseIndex struct {
	byName   map[string][]entryRef // by the entry's own package name (source, binary RPM, ecosystem name)
	byBinary map[string][]entryRef // by the binary names an entry lists with their own versions
	sourceOf map[string]string     // binary → source package, from the advisories' binaries lists
	epochOf  map[string]string     // rpm package → epoch its fixed versions carry
}

type entryRef struct {
	adv *Advisory
	aff int
}

func (r entryRef) entry() *AffectedPackage { return &r.adv.Affected[r.aff] }

// NewIndex returns an empty index.
func NewIndex() *Index { return &Index{releases: map[relKey]*releaseIndex{}} }

// Len is the number of advisories added.
func (ix *Index) Len() int { return ix.count }

// Add indexes one advisory (a withdrawn one is ignored).
func (ix *Index) Add(adv Advisory) {
	if adv.Withdrawn {
		return
	}
	ix.count++
	a := &adv
	for i := range a.Affected {
		e := &a.Affected[i]
		ri := ix.release(keyOf(e))
		ref := entryRef{adv: a, aff: i}
		ri.byName[e.Package] = append(ri.byName[e.Package], ref)
		for b := range e.Binaries {
			ri.byBinary[b] = append(ri.byBinary[b], ref)
			if e.IsSource {
				ri.sourceOf[b] = e.Package
			}
		}
		if e.Scheme == SchemeRPM {
			if ep, _ := rpmEpoch(e.Fixed); ep != "" {
				ri.epochOf[e.Package] = ep
			}
		}
	}
}

func keyOf(e *AffectedPackage) relKey {
	if e.Distro == "" {
		return relKey{release: e.Ecosystem}
	}
	return relKey{distro: e.Distro, release: e.Release}
}

func (ix *Index) release(k relKey) *releaseIndex {
	ri := ix.releases[k]
	if ri == nil {
		ri = &releaseIndex{
			byName: map[string][]entryRef{}, byBinary: map[string][]entryRef{},
			sourceOf: map[string]string{}, epochOf: map[string]string{},
		}
		ix.releases[k] = ri
	}
	return ri
}

// Covers tells whether any loaded advisory has an entry for the distribution release
// ("ubuntu", "22.04"); Ubuntu Pro entries cover their release too.
func (ix *Index) Covers(distro, release string) bool {
	return ix.releases[relKey{distro, release}] != nil
}

// SourceOf returns the source package the loaded advisories give for a binary package of a
// release ("libssl3" → "openssl" on ubuntu 22.04), or "".
func (ix *Index) SourceOf(distro, release, binary string) string {
	if ri := ix.releases[relKey{distro, release}]; ri != nil {
		return ri.sourceOf[trimArch(binary)]
	}
	return ""
}

// trimArch drops a dpkg architecture qualifier ("libc6:amd64" → "libc6"); other colons
// (Maven's group:artifact) stay.
func trimArch(name string) string {
	if i := strings.LastIndexByte(name, ':'); i > 0 && dpkgArchs[name[i+1:]] {
		return name[:i]
	}
	return name
}

var dpkgArchs = map[string]bool{
	"amd64": true, "i386": true, "arm64": true, "armhf": true, "armel": true, "ppc64el": true,
	"s390x": true, "mips64el": true, "riscv64": true, "all": true, "any": true, "x32": true,
}
