package collect

import (
	"bufio"
	"bytes"
	"io/fs"
	"strings"
)

// OSRelease reads /etc/os-release (falling back to /usr/lib/os-release) and the kernel
// release from /proc/sys/kernel/osrelease.
func OSRelease(fsys fs.FS) (OS, error) {
	var o OS
	for _, name := range []string{"etc/os-release", "usr/lib/os-release"} {
		b, ok, err := readOptional(fsys, name)
		if err != nil {
			return OS{}, wrapRead(name, err)
		}
		if !ok {
			continue
		}
		kv := keyValues(b)
		o = OS{Name: kv["PRETTY_NAME"], Version: kv["VERSION"], ID: kv["ID"], VersionID: kv["VERSION_ID"],
			Codename: kv["VERSION_CODENAME"]}
		if o.Name == "" {
			o.Name = kv["NAME"]
		}
		if o.Version == "" {
			o.Version = o.VersionID
		}
		break
	}
	k, _, err := readOptional(fsys, "proc/sys/kernel/osrelease")
	if err != nil {
		return OS{}, wrapRead("proc/sys/kernel/osrelease", err)
	}
	o.Kernel = strings.TrimSpace(string(k))
	return o, nil
}

// keyValues parses KEY=value lines, skipping comments.
func keyValues(b []byte) map[string]string {
	kv := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			kv[strings.TrimSpace(k)] = unquote(v)
		}
	}
	return kv
}
