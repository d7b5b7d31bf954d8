package web

import (
	"encoding/csv"
	"fmt"
	"strings"
	"testing"
)

// format=csv streams every product the filters select, past the page size, with the list's
// columns; a reported name that looks like a formula is defused; other formats are refused.
func TestProductsCSVExport(t *testing.T) {
	w := newInvWorld(t, catalogMini)
	items := []inventoryItem{inv("openssl", "openssl", "1.1.1k"), inv("Evil", "=HYPERLINK(\"http://x\")", "1.0")}
	for i := 0; i < 230; i++ {
		items = append(items, inv("Acme", fmt.Sprintf("Tool %03d", i), "1.0"))
	}
	if res := w.acme.do(t, "POST", "/api/agent/inventory", inventoryBody("host-a", items...)); res.Status != 200 {
		t.Fatalf("inventory: %d %s", res.Status, res.Body)
	}
	if res := w.globex.do(t, "POST", "/api/agent/inventory", inventoryBody("host-g", inv("Globex", "Secret Tool", "1"))); res.Status != 200 {
		t.Fatalf("inventory: %d %s", res.Status, res.Body)
	}
	res := w.alice.do(t, "GET", "/api/products?format=csv&per_page=5&sort=name", nil)
	if res.Status != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("status %d, content type %q", res.Status, res.Header.Get("Content-Type"))
	}
	rows, err := csv.NewReader(strings.NewReader(string(res.Body))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != strings.Join(productCSVHeader, ",") || len(rows) != 1+len(items) {
		t.Fatalf("%d rows, header %v; want %d products", len(rows)-1, rows[0], len(items))
	}
	names := map[string]bool{}
	for _, r := range rows[1:] {
		names[r[2]] = true
	}
	if !names[`'=HYPERLINK("http://x")`] || names["Secret Tool"] || !names["Tool 229"] {
		t.Errorf("names = %v: want the formula defused, every page, no other organization's product", names)
	}
	filtered := w.alice.do(t, "GET", "/api/products?format=csv&vendor=openssl", nil)
	if rows, _ := csv.NewReader(strings.NewReader(string(filtered.Body))).ReadAll(); len(rows) != 2 || rows[1][1] != "openssl" {
		t.Errorf("vendor filter: %v", rows)
	}
	wantError(t, w.alice.do(t, "GET", "/api/products?format=xml", nil), "validation_error")
}
