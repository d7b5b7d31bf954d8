package collect

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"strings"
)

const dpkgStatus = "var/lib/dpkg/status"

// Dpkg lists the installed packages of /var/lib/dpkg/status ("Status: install ok installed";
// removed packages whose configuration files remain are not installed).
func Dpkg(fsys fs.FS) ([]Product, error) {
	b, ok, err := readOptional(fsys, dpkgStatus)
	if err != nil || !ok {
		return nil, wrapRead(dpkgStatus, err)
	}
	var out []Product
	err = eachStanza(b, func(f map[string]string) {
		if !dpkgInstalled(f["Status"]) || f["Package"] == "" {
			return
		}
		p := Product{Product: f["Package"], Version: f["Version"], Arch: f["Architecture"],
			Vendor: f["Maintainer"], Source: "deb"}
		if src := f["Source"]; src != "" {
			name, ver, _ := strings.Cut(src, " ")
			p.SourcePackage = name
			p.SourceVersion = strings.Trim(strings.TrimSpace(ver), "()")
		}
		out = append(out, p)
	})
	return out, wrapRead(dpkgStatus, err)
}

// dpkgInstalled reads the want/flag/status triple; only "installed" counts.
func dpkgInstalled(status string) bool {
	w := strings.Fields(status)
	return len(w) == 3 && w[2] == "installed"
}

// eachStanza calls fn with the fields of each RFC 822 style paragraph (Key: value, with
// continuation lines starting with a space or tab, which are kept out of the value).
func eachStanza(b []byte, fn func(map[string]string)) error {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	f := map[string]string{}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			if len(f) > 0 {
				fn(f)
				f = map[string]string{}
			}
		case line[0] == ' ' || line[0] == '\t':
			// continuation of a multi-line field (Description, Conffiles): not reported
		default:
			k, v, ok := strings.Cut(line, ":")
			if ok {
				f[k] = strings.TrimSpace(v)
			}
		}
	}
	if len(f) > 0 {
		fn(f)
	}
	return sc.Err()
}

func wrapRead(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("read /%s: %w", name, err)
}
