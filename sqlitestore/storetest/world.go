// Package storetest holds the test fixtures shared by the packages whose tests run on a real
// store: a fresh SQLite file with two organizations, their people and the container and
// remediation services, real scanner reports and seeding helpers. Only tests import it.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
	"github.com/vulnkeeper/vulnkeeper/appliance/containers"
	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// Real reports, by path relative to a package two levels below the repository root.
const (
	TrivyDir = "../../../shared/data/trivy"
	GrypeDir = "../../../shared/data/trivy/grype"
)

const (
	DigestA = "sha256:4f380adfc10f4cd34f775ae57a17d2835385efd5251d6dfe0f246b0018fb0399"
	DigestB = "sha256:9b2a1f4c0d3e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8"
)

// Today is the fixed clock of every test (noon UTC).
var Today = time.Date(2025, 3, 10, 12, 0, 0, 0, time.UTC)

// World is a fresh store with two organizations, their people and both services.
type World struct {
	Store       *sqlitestore.Store
	Containers  *containers.Containers
	Remediation *remediation.Remediation
	Clock       *time.Time
	Acme        int64
	Globex      int64
	Alice       appliance.User // acme org_admin
	Bob         appliance.User // acme member
	Carol       appliance.User // globex org_admin
}

func NewWorld(t testing.TB) *World {
	t.Helper()
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "scans.db"), sqlitestore.Options{Readers: 4}, nil)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	clock := Today
	w := &World{Store: st, Containers: containers.NewContainers(st, nil), Remediation: remediation.NewRemediation(st, nil), Clock: &clock}
	w.Containers.SetClock(func() time.Time { return *w.Clock })
	w.Remediation.SetClock(func() time.Time { return *w.Clock })
	acc := accounts.NewAccounts(st, accounts.AuthOptions{ConcurrentHashes: 2})
	w.Acme, w.Globex = CreateOrg(t, acc, "acme"), CreateOrg(t, acc, "globex")
	w.Alice = CreateUser(t, acc, "acme", "alice", appliance.RoleOrgAdmin)
	w.Bob = CreateUser(t, acc, "acme", "bob", appliance.RoleMember)
	w.Carol = CreateUser(t, acc, "globex", "carol", appliance.RoleOrgAdmin)
	return w
}

func CreateOrg(t testing.TB, acc *accounts.Accounts, name string) int64 {
	t.Helper()
	o, err := acc.CreateOrganization(context.Background(), name)
	if err != nil {
		t.Fatalf("create organization %q: %v", name, err)
	}
	return o.ID
}

func CreateUser(t testing.TB, acc *accounts.Accounts, org, name string, role appliance.Role) appliance.User {
	t.Helper()
	u, err := acc.CreateUser(context.Background(), org, name, role, "correct horse battery")
	if err != nil {
		t.Fatalf("create user %q: %v", name, err)
	}
	return u
}

// ReadFile reads a shared fixture; a missing file fails the test.
func ReadFile(tb testing.TB, path string) []byte {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("read fixture: %v", err)
	}
	return raw
}

func JSONFiles(tb testing.TB, dir string) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no fixtures in %s (err %v)", dir, err)
	}
	return files
}

// TrivyReport is a minimal Trivy report with one finding per (id, severity) pair.
func TrivyReport(tb testing.TB, findings ...[2]string) []byte {
	tb.Helper()
	vulns := make([]map[string]string, len(findings))
	for i, f := range findings {
		vulns[i] = map[string]string{"VulnerabilityID": f[0], "Severity": f[1], "PkgName": fmt.Sprintf("pkg%d", i),
			"InstalledVersion": "1.0", "FixedVersion": "1.1", "Title": "t " + f[0]}
	}
	raw, err := json.Marshal(map[string]any{"SchemaVersion": 2,
		"Results": []any{map[string]any{"Target": "os", "Class": "os-pkgs", "Type": "debian", "Vulnerabilities": vulns}}})
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

func (w *World) Submit(t testing.TB, orgID int64, host string, images ...containers.ImageScan) containers.SubmitResult {
	t.Helper()
	res, err := w.Containers.Submit(context.Background(), orgID, host, images)
	if err != nil {
		t.Fatalf("submit %s: %v", host, err)
	}
	return res
}

// seedCVE stores a CVE with a CVSS severity and score; kevDue non-zero lists it in KEV.
func (w *World) SeedCVE(t testing.TB, id, severity string, score float64, kevDue time.Time) {
	t.Helper()
	err := w.Store.InTx(context.Background(), func(tx appliance.Tx) error {
		rec := appliance.CVERecord{ID: id, Severity: severity, Score: score, HasScore: true, Description: "d " + id}
		if err := tx.UpsertCVE(context.Background(), rec, Today); err != nil {
			return err
		}
		if kevDue.IsZero() {
			return nil
		}
		return tx.UpsertKEV(context.Background(), appliance.KEVRecord{CVEID: id, DateAdded: kevDue.AddDate(0, 0, -21), DueDate: kevDue})
	})
	if err != nil {
		t.Fatalf("seed %s: %v", id, err)
	}
}

// Installed is a product Installed on a host of an organization, with its matches.
type Installed struct {
	ProductID, InstallationID int64
	MatchIDs                  map[string]int64
}

// seedProduct creates a product on host with matches for cves.
func (w *World) SeedProduct(t testing.TB, orgID int64, host, name string, cves ...string) Installed {
	t.Helper()
	ctx := context.Background()
	var out Installed
	err := w.Store.InTx(ctx, func(tx appliance.Tx) error {
		assetID, err := w.asset(ctx, tx, orgID, host)
		if err != nil {
			return err
		}
		p := appliance.Product{OrganizationID: orgID, Vendor: "v", Name: name, Version: "1", Criticality: 2,
			Resolution: appliance.ResolutionExact, CreatedAt: Today, UpdatedAt: Today}
		if out.ProductID, err = tx.CreateProduct(ctx, p); err != nil {
			return err
		}
		in := appliance.Installation{AssetID: assetID, ProductID: out.ProductID, CreatedAt: Today}
		if out.InstallationID, err = tx.CreateInstallation(ctx, in); err != nil {
			return err
		}
		return w.match(ctx, tx, out.ProductID, cves)
	})
	if err != nil {
		t.Fatalf("seed product %s: %v", name, err)
	}
	vulns, err := w.Store.ProductVulnerabilities(ctx, orgID, out.ProductID)
	if err != nil {
		t.Fatal(err)
	}
	out.MatchIDs = map[string]int64{}
	for _, v := range vulns {
		out.MatchIDs[v.CVEID] = v.MatchID
	}
	return out
}

func (w *World) asset(ctx context.Context, tx appliance.Tx, orgID int64, host string) (int64, error) {
	a, err := tx.AssetByHostname(ctx, host)
	if errors.Is(err, appliance.ErrNotFound) {
		return tx.CreateAsset(ctx, appliance.Asset{OrganizationID: orgID, Hostname: host, CreatedAt: Today, LastSeenAt: Today})
	}
	return a.ID, err
}

func (w *World) match(ctx context.Context, tx appliance.Tx, productID int64, cves []string) error {
	ms := make([]appliance.MatchInput, len(cves))
	for i, c := range cves {
		ms[i] = appliance.MatchInput{CVEID: c, Criteria: "cpe:2.3:a:v:p:1:*:*:*:*:*:*:*"}
	}
	_, err := tx.ReplaceMatches(ctx, productID, ms, 1, Today)
	return err
}

// rematch replaces a product's matches with cves.
func (w *World) Rematch(t testing.TB, productID int64, cves ...string) {
	t.Helper()
	ctx := context.Background()
	if err := w.Store.InTx(ctx, func(tx appliance.Tx) error { return w.match(ctx, tx, productID, cves) }); err != nil {
		t.Fatal(err)
	}
}

// uninstall removes an installation (the product was upgraded away).
func (w *World) Uninstall(t testing.TB, installationID int64) {
	t.Helper()
	ctx := context.Background()
	if err := w.Store.InTx(ctx, func(tx appliance.Tx) error { return tx.RemoveInstallation(ctx, installationID, Today) }); err != nil {
		t.Fatal(err)
	}
}

func Ptr[T any](v T) *T { return &v }

// WantValidation asserts err is a ValidationError on field.
func WantValidation(t testing.TB, err error, field string) {
	t.Helper()
	var ve *appliance.ValidationError
	if !errors.As(err, &ve) || ve.Field != field {
		t.Fatalf("err = %v, want a ValidationError on %q", err, field)
	}
}

func Day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}
