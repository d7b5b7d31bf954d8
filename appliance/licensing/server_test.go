package licensing

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func TestActivationBindsOneInstallation(t *testing.T) {
	f := newFixture(t, DefaultOptions())
	ctx := context.Background()
	code, err := f.srv.CreateCode(ctx, "professional", 30*24*time.Hour, "Example")
	if err != nil {
		t.Fatal(err)
	}
	first, err := f.srv.Activate(ctx, code, "inst-a")
	if err != nil {
		t.Fatal(err)
	}
	f.clock.t = f.clock.t.Add(time.Hour)
	again, err := f.srv.Activate(ctx, strings.ToLower(code), "inst-a")
	if err != nil || again != first {
		t.Errorf("reactivation = %+v (%v), want the identical licence %+v", again, err, first)
	}
	if _, err := f.srv.Activate(ctx, code, "inst-b"); !errors.Is(err, appliance.ErrConflict) {
		t.Errorf("another installation: %v, want ErrConflict", err)
	}
	p, err := Verify(f.srv.PublicKey(), first.License)
	if err != nil || p.InstallationID != "inst-a" || !p.ExpiresAt.Equal(f.clock.t.Add(-time.Hour).Add(30*24*time.Hour)) {
		t.Errorf("licence payload = %+v (%v), want inst-a for 30 days from activation", p, err)
	}
	cred := Credential(first.License)
	if raw := f.fileBytes(t); bytes.Contains(raw, []byte(cred)) || !bytes.Contains(raw, []byte(HashSecret(cred))) {
		t.Error("the database files hold the raw credential, or not its hash")
	}
	if bytes.Contains(f.fileBytes(t), []byte(code)) {
		t.Error("the database files hold the raw activation code")
	}
	other, _ := f.srv.CreateCode(ctx, "standard", time.Hour, "")
	unknown, _ := NewActivationCode()
	cases := []struct {
		name, code, installation string
		want                     error
	}{
		{"unknown code", unknown, "inst-a", appliance.ErrNotFound},
		{"malformed code", strings.Repeat("A", len(code)), "inst-a", nil},
		{"bad installation id", other, "has spaces", nil},
		{"empty code", "", "inst-a", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.srv.Activate(ctx, c.code, c.installation)
			var ve *appliance.ValidationError
			if c.want != nil && !errors.Is(err, c.want) || c.want == nil && !errors.As(err, &ve) {
				t.Errorf("err = %v, want %v (nil: a validation error)", err, c.want)
			}
		})
	}
}

func TestAuthenticateAndExpiry(t *testing.T) {
	f := newFixture(t, DefaultOptions())
	ctx := context.Background()
	act := f.activate(t, "professional", time.Hour, "inst-a")
	cred := Credential(act.License)
	cases := []struct {
		name, credential, installation string
	}{
		{"unknown credential", strings.Repeat("x", 64), "inst-a"},
		{"short credential", cred[:63], "inst-a"},
		{"another installation", cred, "inst-b"},
		{"no installation", cred, ""},
	}
	for _, c := range cases {
		if _, err := f.srv.Authenticate(ctx, c.credential, c.installation); !errors.Is(err, appliance.ErrUnauthorized) {
			t.Errorf("%s: %v, want ErrUnauthorized", c.name, err)
		}
	}
	f.clock.t = act.ExpiresAt
	who, err := f.srv.Authenticate(ctx, cred, "inst-a")
	if err != nil || !who.Expired {
		t.Fatalf("at expiry: %+v (%v), want authenticated and expired", who, err)
	}
}

func TestOperatorAndReleaseSettings(t *testing.T) {
	bare := newFixture(t, DefaultOptions()).srv
	configured := newFixture(t, Options{AdminToken: "s3cret-admin-token", ReleaseVersion: "1.4.0", ReleaseURL: "https://example.test/vk-1.4.0.deb"}).srv
	for _, c := range []struct {
		srv   *Server
		token string
		ok    bool
	}{{bare, "", false}, {bare, "anything", false}, {configured, "", false}, {configured, "wrong", false}, {configured, "s3cret-admin-token", true}} {
		if err := c.srv.CheckAdmin(c.token); (err == nil) != c.ok || err != nil && !errors.Is(err, appliance.ErrUnauthorized) {
			t.Errorf("CheckAdmin(%q) = %v, want ok=%v", c.token, err, c.ok)
		}
	}
	if _, err := bare.LatestRelease(); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("unconfigured release: %v, want ErrNotFound", err)
	}
	if rel, err := configured.LatestRelease(); err != nil || rel.Version != "1.4.0" || rel.URL == "" {
		t.Errorf("release = %+v (%v)", rel, err)
	}
	signed, err := SignBytes(testKey("licensing-test"), []byte(`{"hello":"world"}`))
	if err != nil {
		t.Fatal(err)
	}
	foreign, _ := SignBytes(testKey("someone else"), []byte(`{"hello":"world"}`))
	if p, ok := bare.VerifySigned(signed); !ok || string(p) != `{"hello":"world"}` {
		t.Errorf("own signature: %q %v", p, ok)
	}
	for _, s := range []string{foreign, signed[:len(signed)-4] + "AAAA", "not base64", ""} {
		if _, ok := bare.VerifySigned(s); ok {
			t.Errorf("VerifySigned(%.20q) accepted", s)
		}
	}
}

// TestInstallationIDBelongsToOneLicence: activating another code with an installation ID that
// a licence already holds is a conflict, and no second licence is made.
func TestInstallationIDBelongsToOneLicence(t *testing.T) {
	f := newFixture(t, DefaultOptions())
	ctx := context.Background()
	f.activate(t, "professional", time.Hour, "inst-1")
	code, err := f.srv.CreateCode(ctx, "standard", time.Hour, "Someone Else")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.srv.Activate(ctx, code, "inst-1"); !errors.Is(err, appliance.ErrConflict) {
		t.Fatalf("second licence for inst-1: %v, want a conflict", err)
	}
	// The refused code is still unused: it activates another installation.
	if _, err := f.srv.Activate(ctx, code, "inst-2"); err != nil {
		t.Errorf("the refused code on a new installation: %v", err)
	}
}
