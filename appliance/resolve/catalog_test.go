package resolve

import (
	"context"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// realCatalog loads the full catalogue; a missing file fails the test.
func realCatalog(t testing.TB) *Catalog {
	t.Helper()
	return NewCatalog(storetest.Catalogue(t))
}

// TestExactOnRealCatalogue resolves without an index: only exact rules may answer.
func TestExactOnRealCatalogue(t *testing.T) {
	r := New(realCatalog(t), nil, nil, Options{})
	tests := []struct{ vendor, product, want string }{
		{"Mozilla", "Mozilla Firefox (x64 en-US)", "mozilla:firefox"},
		{"Igor Pavlov", "7-Zip 23.01 (x64)", "igor_pavlov:7-zip"},
		{"Notepad++ Team", "Notepad++ (64-bit x64)", "notepad++:notepad++"},
		{"", "libssl3:amd64", "openssl:openssl"},
		{"", "openssh-server", "openbsd:openssh"},
		{"", "GNU Wget", "gnu:wget"},
		{"Microsoft Corporation", "Microsoft Edge", "microsoft:edge_chromium"},
		{"Realtek Semiconductor Corp.", "Realtek High Definition Audio Driver", ":"},
		{"Contoso Ltd", "Contoso Inventory Agent", ":"},
	}
	for _, tt := range tests {
		got, err := r.Resolve(context.Background(), nil, tt.vendor, tt.product)
		if err != nil {
			t.Fatal(err)
		}
		if joinVP(appliance.Identity{Vendor: got.Vendor, Product: got.Product}) != tt.want {
			t.Errorf("Resolve(%q, %q) = %+v, want %s", tt.vendor, tt.product, got, tt.want)
		}
	}
}
