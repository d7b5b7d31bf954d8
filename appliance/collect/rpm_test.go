package collect

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

const rpmQueryFormat = `%{NAME}\t%|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE}\t%{ARCH}\t%{SOURCERPM}\t%{VENDOR}\n`

// rpmQuery lists a database with Debian's rpm tool, in the collector's terms.
func rpmQuery(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("rpm", append(args, "-qa", "--qf", rpmQueryFormat)...).Output()
	if err != nil {
		t.Fatalf("rpm -qa: %v", err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.HasPrefix(l, "gpg-pubkey\t") {
			lines = append(lines, strings.ReplaceAll(l, "(none)", ""))
		}
	}
	sort.Strings(lines)
	return lines
}

func productLines(prods []Product) []string {
	var lines []string
	for _, p := range prods {
		src := ""
		if p.SourcePackage != "" {
			src = p.SourcePackage + "-" + p.SourceVersion + ".src.rpm"
		}
		lines = append(lines, strings.Join([]string{p.Product, p.Version, p.Arch, src, p.Vendor}, "\t"))
	}
	sort.Strings(lines)
	return lines
}

// buildRPM writes a tiny package with rpmbuild and returns its file.
func buildRPM(t *testing.T, top, name, epoch, version, release, vendor string) string {
	t.Helper()
	spec := fmt.Sprintf("Name: %s\nVersion: %s\nRelease: %s\nSummary: test\nLicense: MIT\nBuildArch: noarch\n", name, version, release)
	if epoch != "" {
		spec += "Epoch: " + epoch + "\n"
	}
	if vendor != "" {
		spec += "Vendor: " + vendor + "\n"
	}
	spec += "%description\ntest package\n%files\n"
	file := filepath.Join(top, name+".spec")
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("rpmbuild", "--define", "_topdir "+top, "-bb", file).CombinedOutput()
	if err != nil {
		t.Fatalf("rpmbuild: %v\n%s", err, out)
	}
	rpms, _ := filepath.Glob(filepath.Join(top, "RPMS", "noarch", name+"-*.rpm"))
	if len(rpms) != 1 {
		t.Fatalf("rpmbuild made %v", rpms)
	}
	return rpms[0]
}

// A real sqlite rpm database (as on RHEL 9) made by Debian's rpm, read by the collector and
// compared with what rpm itself lists.
func TestRPMSQLiteDatabase(t *testing.T) {
	root := t.TempDir()
	top := t.TempDir()
	dbpath := filepath.Join(root, "var/lib/rpm")
	files := []string{
		buildRPM(t, top, "openssl-libs", "1", "3.0.7", "27.el9", "Rocky Enterprise Software Foundation"),
		buildRPM(t, top, "bash", "", "5.1.8", "9.el9", "Rocky Enterprise Software Foundation"),
		buildRPM(t, top, "noepoch-novendor", "", "1.0", "1", ""),
	}
	args := append([]string{"--dbpath", dbpath, "--define", "_db_backend sqlite", "-i", "--justdb", "--nodeps", "--noscripts"}, files...)
	if out, err := exec.Command("rpm", args...).CombinedOutput(); err != nil {
		t.Fatalf("rpm -i: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dbpath, "rpmdb.sqlite")); err != nil {
		t.Fatal(err)
	}
	prods, err := RPM(os.DirFS(root), root, sqlitestore.EachRPMHeader)
	if err != nil {
		t.Fatal(err)
	}
	want := rpmQuery(t, "--dbpath", dbpath, "--define", "_db_backend sqlite")
	got := productLines(prods)
	if len(want) != 3 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("collector:\n%s\nrpm:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, p := range prods {
		if p.Product == "openssl-libs" && (p.Version != "1:3.0.7-27.el9" || p.SourcePackage != "openssl-libs" || p.SourceVersion != "3.0.7-27.el9") {
			t.Errorf("openssl-libs: %+v", p)
		}
	}
}

// A Berkeley DB rpm database (CentOS 7), the fixture shipped with the go-rpmdb module, read
// by the collector and compared with Debian's rpm reading the same file.
func TestRPMBerkeleyDatabase(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/knqyf263/go-rpmdb").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	fixture := filepath.Join(strings.TrimSpace(string(out)), "pkg", "testdata", "centos7-plain", "Packages")
	root := t.TempDir()
	dst := filepath.Join(root, "var/lib/rpm")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, "Packages"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	prods, err := RPM(os.DirFS(root), root, sqlitestore.EachRPMHeader)
	if err != nil {
		t.Fatal(err)
	}
	want := rpmQuery(t, "--dbpath", filepath.Dir(fixture), "--define", "_db_backend bdb_ro")
	got := productLines(prods)
	if len(want) < 100 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("collector %d packages, rpm %d; first difference %q", len(got), len(want), firstDiff(got, want))
	}
}

func TestRPMNDBRefused(t *testing.T) {
	_, err := RPM(mapFS(map[string]string{"usr/lib/sysimage/rpm/Packages.db": "x"}), "/nonexistent", sqlitestore.EachRPMHeader)
	if err == nil || !strings.Contains(err.Error(), "ndb") {
		t.Fatalf("err = %v", err)
	}
}
