// Package collect reads what a host has installed from its own files (an fs.FS rooted at the
// host's root) and, on Windows, its registry (behind the Registry interface). Collectors only
// read; they never run commands and never talk to the network.
package collect

import (
	"errors"
	"io/fs"
	"net/url"
	"sort"
	"strings"
)

// Inventory is what the agent reports for one host.
type Inventory struct {
	Hostname  string
	FQDN      string
	IPAddress string
	Agent     Agent
	OS        OS
	Products  []Product
}

// Agent identifies the reporting agent.
type Agent struct {
	ID      string
	Version string
}

// OS describes the operating system (os-release, SystemVersion.plist or CurrentVersion).
type OS struct {
	Name      string
	Version   string
	ID        string
	VersionID string
	Codename  string
	Build     string
	Arch      string
	Kernel    string
}

// Product is one installed package or application.
type Product struct {
	Vendor        string
	Product       string
	Version       string
	Source        string // deb, rpm, apk, macos, brew, windows
	PURL          string
	SourcePackage string
	SourceVersion string
	Arch          string
	BundleID      string
}

// Host says where to read: the root filesystem (os.DirFS("/") on a real host), its path on
// disk (for the rpm database, which is opened as a file, through RPMHeaders when it is a
// SQLite one), the platform, and the registry on Windows.
type Host struct {
	FS         fs.FS
	Root       string
	GOOS       string
	Arch       string
	Registry   Registry
	RPMHeaders RPMHeaders
}

// Collect gathers the operating system and every product the platform's collectors find.
// A source that is absent (no dpkg on an rpm host) is no error; a source that exists but
// cannot be read is.
func Collect(h Host) (OS, []Product, error) {
	var (
		osInfo OS
		prods  []Product
		err    error
	)
	switch h.GOOS {
	case "windows":
		if h.Registry == nil {
			return OS{}, nil, errors.New("collect windows: no registry reader")
		}
		if osInfo, err = WindowsOS(h.Registry); err != nil {
			return OS{}, nil, err
		}
		prods, err = WindowsPrograms(h.Registry)
	case "darwin":
		osInfo, prods, err = collectDarwin(h.FS)
	default:
		osInfo, prods, err = collectLinux(h)
	}
	if err != nil {
		return OS{}, nil, err
	}
	if osInfo.Arch == "" {
		osInfo.Arch = h.Arch
	}
	addPURLs(osInfo, prods)
	sortProducts(prods)
	return osInfo, prods, nil
}

func collectLinux(h Host) (OS, []Product, error) {
	osInfo, err := OSRelease(h.FS)
	if err != nil {
		return OS{}, nil, err
	}
	var prods []Product
	for _, c := range []func(fs.FS) ([]Product, error){Dpkg, Apk} {
		p, err := c(h.FS)
		if err != nil {
			return OS{}, nil, err
		}
		prods = append(prods, p...)
	}
	p, err := RPM(h.FS, h.Root, h.RPMHeaders)
	if err != nil {
		return OS{}, nil, err
	}
	return osInfo, append(prods, p...), nil
}

func collectDarwin(fsys fs.FS) (OS, []Product, error) {
	osInfo, err := MacOS(fsys)
	if err != nil {
		return OS{}, nil, err
	}
	apps, err := MacApps(fsys)
	if err != nil {
		return OS{}, nil, err
	}
	brew, err := Homebrew(fsys)
	if err != nil {
		return OS{}, nil, err
	}
	return osInfo, append(apps, brew...), nil
}

// readOptional reads a file that may legitimately be absent.
func readOptional(fsys fs.FS, name string) ([]byte, bool, error) {
	b, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return b, err == nil, err
}

// addPURLs names distribution packages exactly: pkg:deb/debian/libc6@2.36-9?arch=amd64&distro=debian-12.
func addPURLs(o OS, prods []Product) {
	for i := range prods {
		p := &prods[i]
		typ, ns := p.Source, o.ID
		switch p.Source {
		case "deb", "rpm", "apk":
		case "brew":
			typ, ns = "brew", ""
		default:
			continue
		}
		if ns == "" && typ != "brew" {
			continue
		}
		q := url.Values{}
		if p.Arch != "" {
			q.Set("arch", p.Arch)
		}
		if o.ID != "" && o.VersionID != "" && typ != "brew" {
			q.Set("distro", o.ID+"-"+o.VersionID)
		}
		path := url.PathEscape(p.Product)
		if ns != "" {
			path = url.PathEscape(ns) + "/" + path
		}
		p.PURL = "pkg:" + typ + "/" + path + "@" + url.QueryEscape(p.Version)
		if len(q) > 0 {
			p.PURL += "?" + q.Encode()
		}
	}
}

func sortProducts(prods []Product) {
	sort.SliceStable(prods, func(i, j int) bool {
		a, b := prods[i], prods[j]
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		if a.Product != b.Product {
			return a.Product < b.Product
		}
		if a.Arch != b.Arch {
			return a.Arch < b.Arch
		}
		return a.Version < b.Version
	})
}

// unquote strips one pair of matching quotes from an os-release style value.
func unquote(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
		v = strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\$`, `$`, "\\`", "`").Replace(v)
	}
	return v
}
