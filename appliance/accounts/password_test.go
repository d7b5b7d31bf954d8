package accounts_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
)

var phcArgon2id = regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`)

func TestPasswordHashRoundTrip(t *testing.T) {
	ctx := context.Background()
	h := accounts.NewPasswordHasher(2)
	hash, err := h.Hash(ctx, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !phcArgon2id.MatchString(hash) {
		t.Errorf("hash %q is not a PHC argon2id string with the OWASP parameters", hash)
	}
	again, err := h.Hash(ctx, "correct horse battery")
	if err != nil || again == hash {
		t.Errorf("second hash of the same password = %q, %v; want a different salt", again, err)
	}
	tests := []struct {
		password string
		want     bool
	}{
		{"correct horse battery", true},
		{"correct horse battery ", false},
		{"Correct horse battery", false},
		{"", false},
	}
	for _, tt := range tests {
		if ok, err := h.Verify(ctx, hash, tt.password); ok != tt.want || err != nil {
			t.Errorf("Verify(%q) = %v, %v; want %v", tt.password, ok, err, tt.want)
		}
	}
}

func TestPasswordVerifyMalformedHash(t *testing.T) {
	ctx := context.Background()
	h := accounts.NewPasswordHasher(1)
	good, err := h.Hash(ctx, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(good, "$")
	malformed := map[string]string{
		"empty":          "",
		"bcrypt":         "$2a$10$abcdefghijklmnopqrstuuJ2y5c1h6jGqkq7r1vYy0k0b0n3xG0y",
		"argon2i":        strings.Replace(good, "argon2id", "argon2i", 1),
		"other version":  strings.Replace(good, "v=19", "v=16", 1),
		"bad parameters": strings.Join([]string{"", parts[1], parts[2], "m=x,t=2,p=1", parts[4], parts[5]}, "$"),
		"bad salt":       strings.Join([]string{"", parts[1], parts[2], parts[3], "!!!", parts[5]}, "$"),
		"empty key":      strings.Join([]string{"", parts[1], parts[2], parts[3], parts[4], ""}, "$"),
		"too few parts":  strings.Join(parts[:5], "$"),
	}
	for name, hash := range malformed {
		if ok, err := h.Verify(ctx, hash, "correct horse battery"); ok || err == nil {
			t.Errorf("%s: Verify = %v, %v; want false and an error", name, ok, err)
		}
	}
}

func TestValidatePassword(t *testing.T) {
	tests := []struct {
		name       string
		password   string
		constraint string
	}{
		{"nine characters", "123456789", "min_length"},
		{"ten characters", "1234567890", ""},
		{"ten runes of two bytes each", strings.Repeat("é", 10), ""},
		{"nine runes of two bytes each", strings.Repeat("é", 9), "min_length"},
		{"256 characters", strings.Repeat("a", 256), ""},
		{"257 characters", strings.Repeat("a", 257), "max_length"},
	}
	for _, tt := range tests {
		err := accounts.ValidatePassword("new_password", tt.password)
		var ve *appliance.ValidationError
		switch {
		case tt.constraint == "" && err != nil:
			t.Errorf("%s: %v, want accepted", tt.name, err)
		case tt.constraint != "" && (!errors.As(err, &ve) || ve.Constraint != tt.constraint || ve.Field != "new_password"):
			t.Errorf("%s: %v, want new_password %s", tt.name, err, tt.constraint)
		}
	}
}
