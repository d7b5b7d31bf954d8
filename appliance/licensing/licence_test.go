package licensing

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func samplePayload() Payload {
	issued := time.Date(2026, 3, 15, 8, 30, 0, 0, time.UTC)
	return Payload{
		LicenseID: "lic-0001", InstallationID: "3f0c9a1e-7d42-4b8e-9a51-2f6d0c1b7e44",
		Edition: appliance.EditionProfessional, Customer: "Example GmbH",
		IssuedAt: issued, ExpiresAt: issued.AddDate(1, 0, 0),
	}
}

func TestSignVerifyRoundTrip(t *testing.T) {
	priv := testKey("licence")
	p := samplePayload()
	p.IssuedAt = p.IssuedAt.In(time.FixedZone("CET", 3600)).Add(123 * time.Millisecond)
	lic, err := Sign(priv, p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Verify(publicOf(priv), lic)
	if err != nil {
		t.Fatal(err)
	}
	want := samplePayload() // times come back in UTC at second precision
	if got != want {
		t.Fatalf("Verify = %+v, want %+v", got, want)
	}
	if cred := Credential(lic); len(cred) != CredentialLength || !strings.HasPrefix(lic, cred) {
		t.Fatalf("Credential = %q", cred)
	}
}

// Changing any single character of a licence makes it invalid.
func TestVerifyRefusesEveryTamperedByte(t *testing.T) {
	priv := testKey("licence")
	lic, _ := Sign(priv, samplePayload())
	for i := range len(lic) {
		for _, flip := range []byte{0x01, 0x20, 0x80} {
			tampered := []byte(lic)
			tampered[i] ^= flip
			if _, err := Verify(publicOf(priv), string(tampered)); !errors.Is(err, ErrBadSignature) {
				t.Fatalf("byte %d ^ %#x: err = %v, want ErrBadSignature", i, flip, err)
			}
		}
	}
}

func TestVerifyRefusesDefects(t *testing.T) {
	priv := testKey("licence")
	lic, _ := Sign(priv, samplePayload())
	generic, _ := SignBytes(priv, []byte(`{"license_id":"x"}`))
	tests := map[string]struct {
		key     []byte
		license string
	}{
		"wrong key":              {publicOf(testKey("other")), lic},
		"short key":              {publicOf(priv)[:31], lic},
		"no key":                 {nil, lic},
		"truncated":              {publicOf(priv), lic[:len(lic)-4]},
		"credential only":        {publicOf(priv), Credential(lic)},
		"empty":                  {publicOf(priv), ""},
		"not base64":             {publicOf(priv), "not a licence!"},
		"inner line break":       {publicOf(priv), lic[:70] + "\n" + lic[70:]},
		"extra bytes":            {publicOf(priv), lic + "AAAA"},
		"generic signed payload": {publicOf(priv), generic},
	}
	for name, tt := range tests {
		if p, err := Verify(tt.key, tt.license); !errors.Is(err, ErrBadSignature) || p != (Payload{}) {
			t.Errorf("%s: got %+v, %v; want nothing and ErrBadSignature", name, p, err)
		}
	}
}

func TestVerifyAcceptsSurroundingBlanks(t *testing.T) {
	priv := testKey("licence")
	lic, _ := Sign(priv, samplePayload())
	if _, err := Verify(publicOf(priv), " "+lic+"\n"); err != nil {
		t.Fatal(err)
	}
}

func TestSignRefusesInvalidPayload(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Payload)
		field string
	}{
		{"no licence id", func(p *Payload) { p.LicenseID = " " }, "license_id"},
		{"no installation", func(p *Payload) { p.InstallationID = "" }, "installation_id"},
		{"no expiry", func(p *Payload) { p.ExpiresAt = time.Time{} }, "expires_at"},
		{"expiry before issue", func(p *Payload) { p.ExpiresAt = p.IssuedAt.Add(-time.Hour) }, "expires_at"},
		{"unknown edition", func(p *Payload) { p.Edition = "enterprise" }, "edition"},
	}
	for _, tt := range tests {
		p := samplePayload()
		tt.edit(&p)
		_, err := Sign(testKey("licence"), p)
		var verr *appliance.ValidationError
		if !errors.As(err, &verr) || verr.Field != tt.field {
			t.Errorf("%s: err = %v, want validation error on %s", tt.name, err, tt.field)
		}
	}
	if _, err := Sign(testKey("licence")[:10], samplePayload()); err == nil {
		t.Error("Sign accepted a 10-byte key")
	}
}

func TestSignNormalizesEdition(t *testing.T) {
	p := samplePayload()
	p.Edition = " Standard "
	lic, err := Sign(testKey("licence"), p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Verify(publicOf(testKey("licence")), lic)
	if err != nil || got.Edition != appliance.EditionStandard {
		t.Fatalf("edition = %q, %v", got.Edition, err)
	}
}

func TestCredentialDiffersPerLicence(t *testing.T) {
	priv := testKey("licence")
	seen := map[string]bool{}
	for _, id := range []string{"a", "b", "c", "d"} {
		p := samplePayload()
		p.InstallationID = id
		lic, _ := Sign(priv, p)
		seen[Credential(lic)] = true
	}
	if len(seen) != 4 {
		t.Fatalf("4 licences gave %d distinct credentials", len(seen))
	}
	if Credential(strings.Repeat("A", 63)) != "" {
		t.Fatal("Credential of a 63-character string is not empty")
	}
}

func TestExpired(t *testing.T) {
	p := samplePayload()
	tests := []struct {
		name string
		now  time.Time
		want bool
	}{
		{"at issue", p.IssuedAt, false},
		{"one second before expiry", p.ExpiresAt.Add(-time.Second), false},
		{"at expiry", p.ExpiresAt, true},
		{"a day later", p.ExpiresAt.AddDate(0, 0, 1), true},
		{"same instant in another zone", p.ExpiresAt.In(time.FixedZone("PST", -8*3600)), true},
	}
	for _, tt := range tests {
		if got := p.Expired(tt.now); got != tt.want {
			t.Errorf("%s: Expired = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestParseEdition(t *testing.T) {
	tests := []struct {
		in   string
		want appliance.Edition
		ok   bool
	}{
		{"professional", appliance.EditionProfessional, true},
		{"Professional", appliance.EditionProfessional, true},
		{" standard\n", appliance.EditionStandard, true},
		{"", "", false},
		{"pro", "", false},
		{"enterprise", "", false},
	}
	for _, tt := range tests {
		got, err := ParseEdition(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParseEdition(%q) = %q, %v", tt.in, got, err)
		}
	}
}

func TestSignBytesRoundTripAndSeparation(t *testing.T) {
	priv := testKey("payload")
	payloads := [][]byte{{}, []byte("release 1.4.2"), []byte(strings.Repeat("x", 1<<16))}
	for _, payload := range payloads {
		signed, err := SignBytes(priv, payload)
		if err != nil {
			t.Fatal(err)
		}
		got, err := VerifyBytes(publicOf(priv), signed)
		if err != nil || string(got) != string(payload) {
			t.Fatalf("VerifyBytes = %d bytes, %v; want %d bytes", len(got), err, len(payload))
		}
		if _, err := VerifyBytes(publicOf(testKey("other")), signed); !errors.Is(err, ErrBadSignature) {
			t.Fatalf("wrong key: %v", err)
		}
	}
	lic, _ := Sign(priv, samplePayload())
	if _, err := VerifyBytes(publicOf(priv), lic); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("a licence verified as a generic payload: %v", err)
	}
}
