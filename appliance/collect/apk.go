package collect

import (
	"io/fs"
	"strings"
)

const apkInstalled = "lib/apk/db/installed"

// Apk lists the packages of Alpine's installed database (P: name, V: version, A: arch,
// o: origin (source) package, m: maintainer), one blank-line separated record each.
func Apk(fsys fs.FS) ([]Product, error) {
	b, ok, err := readOptional(fsys, apkInstalled)
	if err != nil || !ok {
		return nil, wrapRead(apkInstalled, err)
	}
	var out []Product
	var cur Product
	flush := func() {
		if cur.Product != "" {
			if cur.SourcePackage == cur.Product {
				cur.SourcePackage = ""
			}
			out = append(out, cur)
		}
		cur = Product{}
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" {
			flush()
			continue
		}
		if len(line) < 2 || line[1] != ':' {
			continue
		}
		v := line[2:]
		switch line[0] {
		case 'P':
			cur.Product, cur.Source = v, "apk"
		case 'V':
			cur.Version = v
		case 'A':
			cur.Arch = v
		case 'o':
			cur.SourcePackage = v
		case 'm':
			cur.Vendor = v
		}
	}
	flush()
	return out, nil
}
