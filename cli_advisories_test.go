package main

import (
	"archive/zip"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

const advisoryData = "../shared/data/advisories"

// TestCLIAdvisoryImports imports every advisory format through `feed import`, recognised by
// content: an OSV directory, an OSV all.zip, one OSV record, the Debian tracker JSON, the
// DSA list, Alpine secdb YAML and Wolfi secdb JSON; importing them again changes nothing.
func TestCLIAdvisoryImports(t *testing.T) {
	dir := newInstallation(t)
	osvDir := filepath.Join(advisoryData, "ubuntu-osv")
	zipFile := osvZip(t, filepath.Join(advisoryData, "redhat/almalinux-osv/almalinux9"))
	one := filepath.Join(advisoryData, "alpine-secdb/format-samples/alpine-osv/CVE-2023-46850.json")
	tracker := filepath.Join(advisoryData, "debian/tracker-json-excerpts/vunnel_debian.json")
	dsa := filepath.Join(advisoryData, "debian/security-tracker-lists/DSA/list")
	secdbYAML := filepath.Join(advisoryData, "alpine-secdb/v3.11/main.yaml")
	secdbJSON := filepath.Join(advisoryData, "alpine-secdb/format-samples/wolfi-secdb/wolfi_security.json")
	files := []string{osvDir, zipFile, one, tracker, dsa, secdbYAML, secdbJSON}
	formats := []string{"osv-dir", "osv-zip", "osv", "debian-tracker", "debian-list", "secdb", "secdb"}
	line := func(i int, changed string) string {
		return regexp.QuoteMeta(files[i]) + ": " + formats[i] + `, [1-9][0-9]* advisory entries, ` + changed +
			` new or changed in [0-9.]+[µnm]?s \([0-9]+ entries/s\)`
	}
	var first, again []string
	for i := range files {
		first = append(first, line(i, "[1-9][0-9]*"))
		again = append(again, line(i, "0"))
	}
	for _, step := range []struct {
		name string
		want []string
	}{{"first import", first}, {"same data again", again}} {
		r := runCLI(t, dir, "", append([]string{"feed", "import"}, files...)...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", step.name, r.code, r.stderr)
		}
		wantLines(step.want...)(t, r)
	}
}

// startTestApp opens (creating) the database in dataDir and starts the serving app on it;
// stop closes both.
func startTestApp(t *testing.T, ctx context.Context, dataDir string) (a *app, st *sqlitestore.Store, stop func()) {
	t.Helper()
	cfg := defaultConfig()
	cfg.Storage.DataDir = dataDir
	st, err := sqlitestore.Open(ctx, filepath.Join(dataDir, "vulnkeeper.db"), sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err = newApp(cfg, st, false, slog.New(slog.DiscardHandler))
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	stop = func() { a.close(); st.Close() }
	if err := a.start(ctx); err != nil {
		stop()
		t.Fatal(err)
	}
	return a, st, stop
}

// osvZip writes the OSV records of dir into an all.zip-shaped archive.
func osvZip(t *testing.T, dir string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "all.zip")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	if err := zw.AddFS(os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestServerNoticesAdvisoryImport runs the serving app, submits an Ubuntu 22.04 host while no
// advisories are imported, imports the Ubuntu OSV records through a second handle on the
// same database (as `feed import` does from another process), and waits for the running
// app's data_version watcher to re-match the host's packages by those advisories.
func TestServerNoticesAdvisoryImport(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dataDir := t.TempDir()
	path := filepath.Join(dataDir, "vulnkeeper.db")
	a, _, stop := startTestApp(t, ctx, dataDir)
	defer stop()
	org, err := a.deps.Accounts.CreateOrganization(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	rep := inventory.Report{Hostname: "jammy", OSName: "Ubuntu", OS: appliance.HostOS{ID: "ubuntu", VersionID: "22.04"}, HasProducts: true,
		Items: []inventory.Item{{Product: "libssl3", Version: "3.0.2-0ubuntu1.6", Package: appliance.PackageInfo{Source: "deb"}}}}
	if _, err := a.deps.Inventory.Submit(ctx, org.ID, rep); err != nil {
		t.Fatal(err)
	}
	other, err := sqlitestore.Open(ctx, path, sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	osvDir := filepath.Join(advisoryData, "ubuntu-osv")
	if _, err := inventory.NewImporter(other).ImportOSVDir(ctx, osvDir, os.DirFS(osvDir)); err != nil {
		t.Fatal(err)
	}
	other.Close()
	deadline := time.Now().Add(15 * time.Second)
	for {
		list, _, err := a.deps.Inventory.Products(ctx, appliance.ProductFilter{OrganizationID: org.ID, Search: "libssl3", Page: 1, PerPage: 10})
		if err != nil || len(list) != 1 {
			t.Fatalf("products %+v, %v", list, err)
		}
		d, err := a.deps.Inventory.Product(ctx, org.ID, list[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		advisory := 0
		for _, v := range d.Vulnerabilities {
			if v.Basis == appliance.BasisAdvisory && v.Source == "ubuntu" {
				advisory++
			}
		}
		if advisory > 0 && advisory == len(d.Vulnerabilities) {
			t.Logf("re-matched by %d Ubuntu advisory findings", advisory)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the running app did not re-match after the import: %+v", d.Vulnerabilities)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
