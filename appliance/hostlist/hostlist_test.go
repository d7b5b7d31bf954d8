package hostlist

import (
	"strings"
	"testing"
)

func TestParsers(t *testing.T) {
	d, _ := Dpkg(strings.NewReader("libc6:amd64\t2.35-0ubuntu3.1\n\nbash\t5.1-6ubuntu1\n"))
	r, _ := RPMQA(strings.NewReader("gmp-6.1.2-12.el8.x86_64\ngpg-pubkey-8483c65d-5ccc5b19\n"))
	k, _ := KIWI(strings.NewReader("openssl-libs|1|3.2.2|6.el9_5.1|x86_64|obs://x|Apache-2.0\nglibc|(none)|2.34|168.el9_6.14|x86_64||LGPL\ngpg-pubkey|(none)|a|b|(none)||\n"))
	got := [][]Package{d, r, k}
	want := [][]Package{
		{{"libc6:amd64", "2.35-0ubuntu3.1", ""}, {"bash", "5.1-6ubuntu1", ""}},
		{{"gmp", "6.1.2-12.el8", "x86_64"}, {"gpg-pubkey", "8483c65d-5ccc5b19", ""}},
		{{"openssl-libs", "1:3.2.2-6.el9_5.1", "x86_64"}, {"glibc", "2.34-168.el9_6.14", "x86_64"}},
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("list %d: %+v, want %+v", i, got[i], want[i])
		}
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Errorf("list %d row %d: %+v, want %+v", i, j, got[i][j], want[i][j])
			}
		}
	}
}
