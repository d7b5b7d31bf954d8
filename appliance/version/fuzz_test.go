package version

import "testing"

// FuzzCompare checks the order laws on arbitrary input: reflexivity, antisymmetry,
// transitivity over three versions, and agreement of the parsed form with the strings.
func FuzzCompare(f *testing.F) {
	for _, tc := range orderings {
		f.Add(tc.older, tc.newer, "1.0")
	}
	real := realVersions(f)
	for i := 0; i+2 < len(real); i += 97 {
		f.Add(real[i], real[i+1], real[i+2])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		if got := Compare(a, a); got != 0 {
			t.Fatalf("Compare(%q, itself) = %d", a, got)
		}
		ab, ba := Compare(a, b), Compare(b, a)
		if ab != -ba {
			t.Fatalf("Compare(%q, %q) = %d but reversed = %d", a, b, ab, ba)
		}
		if got := Parse(a).Compare(Parse(b)); got != ab {
			t.Fatalf("parsed %q vs %q = %d, strings = %d", a, b, got, ab)
		}
		bc, ac := Compare(b, c), Compare(a, c)
		if ab <= 0 && bc <= 0 && ac > 0 {
			t.Fatalf("%q <= %q <= %q but Compare(a, c) = %d", a, b, c, ac)
		}
		if ab == 0 && bc == 0 && ac != 0 {
			t.Fatalf("%q == %q == %q but Compare(a, c) = %d", a, b, c, ac)
		}
	})
}
