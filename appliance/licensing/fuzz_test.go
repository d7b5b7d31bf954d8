package licensing

import (
	"errors"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"
)

// FuzzVerify feeds arbitrary licence strings: a payload or an error, never a panic.
func FuzzVerify(f *testing.F) {
	priv := testKey("licence")
	for _, r := range storetest.CPERows(f, 3) {
		p := samplePayload()
		p.Customer, p.InstallationID = r.Title+r.Vendor, r.Product
		lic, err := Sign(priv, p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(lic)
		f.Add(lic[:CredentialLength])
	}
	generic, _ := SignBytes(priv, []byte(`{"license_id":"x"}`))
	f.Add(generic)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Verify(publicOf(priv), s)
		if err != nil {
			if !errors.Is(err, ErrBadSignature) || p != (Payload{}) {
				t.Fatalf("Verify error %v with payload %+v", err, p)
			}
			return
		}
		if p.validate() != nil {
			t.Fatalf("accepted invalid payload %+v", p)
		}
		if _, err := VerifyBytes(publicOf(priv), s); err == nil {
			t.Fatal("a licence also verified as a generic signed payload")
		}
	})
}
