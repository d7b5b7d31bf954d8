package licensing

import (
	"testing"
)

func BenchmarkVerify(b *testing.B) {
	priv := testKey("licence")
	lic, err := Sign(priv, samplePayload())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Verify(publicOf(priv), lic); err != nil {
			b.Fatal(err)
		}
	}
}
