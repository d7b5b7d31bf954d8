// Package hostlist reads the package lists hosts produce without an agent: a dpkg manifest
// (`dpkg-query -W`: "name[:arch]<TAB>version"), `rpm -qa` output (name-version-release.arch,
// no epoch) and KIWI's package list (name|epoch|version|release|arch|…).
package hostlist

import (
	"bufio"
	"io"
	"os"
	"strings"
)

// Package is one installed package as the list gives it.
type Package struct {
	Name, Version, Arch string
}

// lines returns the non-empty, trimmed lines of r.
func lines(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			out = append(out, s)
		}
	}
	return out, sc.Err()
}

// Dpkg reads a dpkg manifest; the architecture qualifier stays part of the name, as dpkg prints it.
func Dpkg(r io.Reader) ([]Package, error) {
	ls, err := lines(r)
	var out []Package
	for _, l := range ls {
		if name, v, ok := strings.Cut(l, "\t"); ok {
			out = append(out, Package{Name: name, Version: strings.TrimSpace(v)})
		}
	}
	return out, err
}

// RPMQA reads `rpm -qa` lines; versions come without the epoch rpm -qa omits.
func RPMQA(r io.Reader) ([]Package, error) {
	ls, err := lines(r)
	var out []Package
	for _, l := range ls {
		nvr, arch := l, ""
		if i := strings.LastIndexByte(l, '.'); i > 0 {
			nvr, arch = l[:i], l[i+1:]
		}
		i := strings.LastIndexByte(nvr, '-')
		if i <= 0 {
			continue
		}
		j := strings.LastIndexByte(nvr[:i], '-')
		if j <= 0 {
			continue
		}
		out = append(out, Package{Name: nvr[:j], Version: nvr[j+1:], Arch: arch})
	}
	return out, err
}

// KIWI reads KIWI's package list; a known epoch is written "E:V-R". gpg-pubkey entries are skipped.
func KIWI(r io.Reader) ([]Package, error) {
	ls, err := lines(r)
	var out []Package
	for _, l := range ls {
		f := strings.Split(l, "|")
		if len(f) < 5 || f[0] == "gpg-pubkey" {
			continue
		}
		v := f[2] + "-" + f[3]
		if f[1] != "(none)" && f[1] != "" {
			v = f[1] + ":" + v
		}
		out = append(out, Package{Name: f[0], Version: v, Arch: f[4]})
	}
	return out, err
}

// ReadFile reads the list in file with parse.
func ReadFile(file string, parse func(io.Reader) ([]Package, error)) ([]Package, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parse(f)
}
