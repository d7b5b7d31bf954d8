package kb

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func ptr(f float64) *float64 { return &f }

func validMapping() Mapping {
	return Mapping{VendorPattern: "Notepad++ Team", ProductPattern: "Notepad++ (64-bit x64)",
		CPEVendor: "notepad-plus-plus", CPEProduct: "notepad\\+\\+", Confidence: ptr(0.8)}
}

func mappings(n int) []Mapping {
	ms := make([]Mapping, n)
	for i := range ms {
		ms[i] = validMapping()
	}
	return ms
}

func TestValidatePush(t *testing.T) {
	tests := []struct {
		name           string
		installation   string
		edit           func(ms []Mapping) []Mapping
		field, wantErr string
	}{
		{"one mapping", "inst-1", func(ms []Mapping) []Mapping { return ms[:1] }, "", ""},
		{"500 mappings", "inst-1", func(ms []Mapping) []Mapping { return ms }, "", ""},
		{"no confidence", "inst-1", func(ms []Mapping) []Mapping { ms[0].Confidence = nil; return ms }, "", ""},
		{"confidence bounds", "inst-1", func(ms []Mapping) []Mapping { ms[0].Confidence, ms[1].Confidence = ptr(0), ptr(1); return ms }, "", ""},
		{"padded fields", "inst-1", func(ms []Mapping) []Mapping { ms[2].CPEVendor = " microsoft\t"; return ms }, "", ""},
		{"no installation", "  ", nil, "installation_id", "required"},
		{"0 mappings", "inst-1", func([]Mapping) []Mapping { return nil }, "mappings", "required"},
		{"501 mappings", "inst-1", func(ms []Mapping) []Mapping { return append(ms, validMapping()) }, "mappings", "max_items"},
		{"missing vendor pattern", "inst-1", func(ms []Mapping) []Mapping { ms[3].VendorPattern = ""; return ms }, "mappings[3].vendor_pattern", "required"},
		{"blank product pattern", "inst-1", func(ms []Mapping) []Mapping { ms[3].ProductPattern = " \t"; return ms }, "mappings[3].product_pattern", "required"},
		{"missing cpe vendor", "inst-1", func(ms []Mapping) []Mapping { ms[499].CPEVendor = ""; return ms }, "mappings[499].cpe_vendor", "required"},
		{"missing cpe product", "inst-1", func(ms []Mapping) []Mapping { ms[0].CPEProduct = ""; return ms }, "mappings[0].cpe_product", "required"},
		{"confidence -0.1", "inst-1", func(ms []Mapping) []Mapping { ms[3].Confidence = ptr(-0.1); return ms }, "mappings[3].confidence", "range"},
		{"confidence 1.1", "inst-1", func(ms []Mapping) []Mapping { ms[3].Confidence = ptr(1.1); return ms }, "mappings[3].confidence", "range"},
		{"confidence NaN", "inst-1", func(ms []Mapping) []Mapping { ms[3].Confidence = ptr(math.NaN()); return ms }, "mappings[3].confidence", "range"},
		{"257 characters", "inst-1", func(ms []Mapping) []Mapping { ms[1].ProductPattern = strings.Repeat("é", 257); return ms }, "mappings[1].product_pattern", "max_length"},
		{"control character", "inst-1", func(ms []Mapping) []Mapping { ms[1].VendorPattern = "a\x00b"; return ms }, "mappings[1].vendor_pattern", "format"},
		{"invalid UTF-8", "inst-1", func(ms []Mapping) []Mapping { ms[1].VendorPattern = "a\xffb"; return ms }, "mappings[1].vendor_pattern", "format"},
		{"space in cpe product", "inst-1", func(ms []Mapping) []Mapping { ms[2].CPEProduct = "internet explorer"; return ms }, "mappings[2].cpe_product", "format"},
		{"wildcard cpe vendor", "inst-1", func(ms []Mapping) []Mapping { ms[2].CPEVendor = "*"; return ms }, "mappings[2].cpe_vendor", "format"},
	}
	for _, tt := range tests {
		ms := mappings(MaxPushMappings)
		if tt.edit != nil {
			ms = tt.edit(ms)
		}
		err := ValidatePush(tt.installation, ms)
		checkValidation(t, tt.name, err, tt.field, tt.wantErr)
	}
}

func TestValidatePushFieldLengthBoundary(t *testing.T) {
	ms := mappings(1)
	ms[0].ProductPattern = strings.Repeat("é", MaxMappingFieldLength)
	if err := ValidatePush("inst-1", ms); err != nil {
		t.Fatalf("256 characters refused: %v", err)
	}
}

// Real identities pushed as mappings validate (NVD's few wildcard/NA values aside).
func TestValidatePushRealIdentities(t *testing.T) {
	rows := storetest.CPERows(t, 0)
	batch := make([]Mapping, 0, MaxPushMappings)
	for _, r := range rows {
		if !IsCPEComponent(r.Vendor) || !IsCPEComponent(r.Product) {
			continue
		}
		batch = append(batch, Mapping{VendorPattern: humanName(r.Vendor), ProductPattern: humanName(r.Product), CPEVendor: r.Vendor, CPEProduct: r.Product})
		if len(batch) == MaxPushMappings {
			if err := ValidatePush("inst-1", batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}

func checkValidation(t *testing.T, name string, err error, field, constraint string) {
	t.Helper()
	if constraint == "" {
		if err != nil {
			t.Errorf("%s: unexpected error %v", name, err)
		}
		return
	}
	var verr *appliance.ValidationError
	if !errors.As(err, &verr) || verr.Field != field || verr.Constraint != constraint {
		t.Errorf("%s: err = %#v, want %s/%s", name, err, field, constraint)
	}
}

func TestCapConfidence(t *testing.T) {
	tests := []struct {
		name string
		in   *float64
		want float64
	}{
		{"absent", nil, DefaultCommunityConfidence},
		{"zero", ptr(0), 0},
		{"below cap", ptr(0.42), 0.42},
		{"at cap", ptr(0.90), 0.90},
		{"above cap", ptr(0.95), CommunityConfidenceCap},
		{"one", ptr(1), CommunityConfidenceCap},
		{"negative", ptr(-1), 0},
		{"NaN", ptr(math.NaN()), DefaultCommunityConfidence},
	}
	for _, tt := range tests {
		if got := CapConfidence(tt.in); got != tt.want {
			t.Errorf("%s: CapConfidence = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTupleKey(t *testing.T) {
	base := Mapping{VendorPattern: "Microsoft Corporation", ProductPattern: "Edge", CPEVendor: "microsoft", CPEProduct: "edge"}
	same := []Mapping{
		{VendorPattern: "MICROSOFT CORPORATION", ProductPattern: "edge", CPEVendor: "Microsoft", CPEProduct: "EDGE", Confidence: ptr(0.3)},
		{VendorPattern: "  microsoft corporation ", ProductPattern: "Edge\t", CPEVendor: "microsoft", CPEProduct: "edge"},
	}
	differ := []Mapping{
		{VendorPattern: "Microsoft Corporation", ProductPattern: "Edge", CPEVendor: "microsoft", CPEProduct: "edge_chromium"},
		{VendorPattern: "Microsoft", ProductPattern: "Corporation Edge", CPEVendor: "microsoft", CPEProduct: "edge"},
		{VendorPattern: "Microsoft Corporation", ProductPattern: "Edge", CPEVendor: "microsof", CPEProduct: "tedge"},
	}
	for _, m := range same {
		if TupleKey(m) != TupleKey(base) {
			t.Errorf("TupleKey(%+v) differs from TupleKey(%+v)", m, base)
		}
	}
	for _, m := range differ {
		if TupleKey(m) == TupleKey(base) {
			t.Errorf("TupleKey(%+v) equals TupleKey(%+v)", m, base)
		}
	}
}

func TestTrimmed(t *testing.T) {
	got := Mapping{VendorPattern: " a ", ProductPattern: "\tb", CPEVendor: "c\n", CPEProduct: " d", Confidence: ptr(0.5)}.Trimmed()
	if got.VendorPattern != "a" || got.ProductPattern != "b" || got.CPEVendor != "c" || got.CPEProduct != "d" || *got.Confidence != 0.5 {
		t.Fatalf("Trimmed = %+v", got)
	}
}
