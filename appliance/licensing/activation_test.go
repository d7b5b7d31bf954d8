package licensing

import (
	"errors"
	"regexp"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func TestNewActivationCodeFormatAndUniqueness(t *testing.T) {
	format := regexp.MustCompile(`^VK(-[0-9A-HJKMNP-TV-Z]{5}){5}$`)
	seen := map[string]bool{}
	for range 2000 {
		code, err := NewActivationCode()
		if err != nil {
			t.Fatal(err)
		}
		if !format.MatchString(code) {
			t.Fatalf("code %q does not match %s", code, format)
		}
		if seen[code] {
			t.Fatalf("code %q repeated", code)
		}
		seen[code] = true
		if normal, err := NormalizeActivationCode(code); err != nil || normal != code {
			t.Fatalf("canonical code %q normalizes to %q, %v", code, normal, err)
		}
	}
}

// Every symbol of the 32-letter alphabet shows up, so each carries 5 bits (25 × 5 = 125 bits).
func TestNewActivationCodeUsesWholeAlphabet(t *testing.T) {
	counts := map[rune]int{}
	for range 500 {
		code, _ := NewActivationCode()
		for _, r := range code[3:] {
			if r != '-' {
				counts[r]++
			}
		}
	}
	if len(counts) != len(crockfordAlphabet) {
		t.Fatalf("saw %d distinct symbols, want %d", len(counts), len(crockfordAlphabet))
	}
}

func TestNormalizeActivationCode(t *testing.T) {
	const want = "VK-0123A-BCDEF-GHJKM-NPQRS-TVWXY"
	tests := []struct {
		name, typed string
		ok          bool
	}{
		{"canonical", want, true},
		{"lower case", "vk-0123a-bcdef-ghjkm-npqrs-tvwxy", true},
		{"no dashes", "VK0123ABCDEFGHJKMNPQRSTVWXY", true},
		{"no prefix", "0123A-BCDEF-GHJKM-NPQRS-TVWXY", true},
		{"spaces and blanks", "  vk 0123a bcdef ghjkm npqrs tvwxy \n", true},
		{"look-alikes", "VK-O123A-BCDEF-GHJKM-NPQRS-TVWXY", true},
		{"too short", "VK-0123A-BCDEF-GHJKM-NPQRS-TVWX", false},
		{"too long", want + "Z", false},
		{"U is not a symbol", "VK-0123U-BCDEF-GHJKM-NPQRS-TVWXY", false},
		{"punctuation", "VK-0123A-BCDEF-GHJKM-NPQRS-TVWX!", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		got, err := NormalizeActivationCode(tt.typed)
		if tt.ok && (err != nil || got != want) {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, want)
		}
		var verr *appliance.ValidationError
		if !tt.ok && (!errors.As(err, &verr) || verr.Field != "activation_code") {
			t.Errorf("%s: err = %v, want activation_code validation error", tt.name, err)
		}
	}
}

func TestNormalizeActivationCodeLookAlikes(t *testing.T) {
	a, _ := NormalizeActivationCode("VK-O1IL0-00000-00000-00000-00000")
	b, _ := NormalizeActivationCode("VK-01110-00000-00000-00000-00000")
	if a == "" || a != b {
		t.Fatalf("look-alike letters: %q vs %q", a, b)
	}
}

func TestHashSecret(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	}
	for _, tt := range tests {
		if got := HashSecret(tt.in); got != tt.want {
			t.Errorf("HashSecret(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
