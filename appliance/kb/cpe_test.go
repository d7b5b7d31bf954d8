package kb

import (
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"
)

func TestIsCPEComponent(t *testing.T) {
	tests := []struct {
		value string
		want  bool
	}{
		{"openssl", true},
		{"notepad\\+\\+", true},
		{"where\\'s_my_perry\\?_free", true},
		{"backpack\\\\crud", true},
		{"Apache_APISIX", true},
		{".net_framework", true},
		{"1.1.1k", true},
		{"", false},
		{"-", false},
		{"*", false},
		{"events_calendar*", false},
		{"who?", false},
		{"notepad++", false},
		{"open ssl", false},
		{"trailing\\", false},
		{"escaped\\letter", false},
		{"café", false},
	}
	for _, tt := range tests {
		if got := IsCPEComponent(tt.value); got != tt.want {
			t.Errorf("IsCPEComponent(%q) = %v, want %v", tt.value, got, tt.want)
		}
	}
}

// Every real identity passes except the few that NVD itself wrote with a wildcard or NA.
func TestIsCPEComponentAcceptsRealIdentities(t *testing.T) {
	rows := storetest.CPERows(t, 0)
	if len(rows) < 100_000 {
		t.Fatalf("read %d identities, want the full file", len(rows))
	}
	// A real NVD value that breaks the CPE 2.3 grammar (unescaped quotes).
	knownMalformed := map[string]bool{`noble_sticker_\\free\\""`: true}
	refused := 0
	for _, r := range rows {
		for _, v := range []string{r.Vendor, r.Product} {
			if IsCPEComponent(v) {
				continue
			}
			refused++
			t.Logf("refused %q", v)
			if v != "-" && !hasUnescapedWildcard(v) && !knownMalformed[v] {
				t.Errorf("refused real CPE value %q (%s:%s)", v, r.Vendor, r.Product)
			}
		}
	}
	// 4 × NA, 2 trailing wildcards, 1 malformed, out of 220,188 values.
	if refused != 7 {
		t.Errorf("refused %d real values, want 7", refused)
	}
}

func hasUnescapedWildcard(v string) bool {
	unescaped := strings.NewReplacer(`\\`, "", `\*`, "", `\?`, "").Replace(v)
	return strings.ContainsAny(unescaped, "*?")
}
