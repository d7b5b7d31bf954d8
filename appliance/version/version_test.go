package version

import "testing"

type ordering struct {
	older, newer string
	want         int // Compare(older, newer); -1 or 0
}

// orderings lists pairs; each is checked in both directions, as strings and pre-parsed.
var orderings = []ordering{
	{"1.2.9", "1.2.10", -1},
	{"1.1.1k", "1.1.1l", -1},
	{"1.1.1", "1.1.1a", -1},
	{"1.1.1a", "1.1.1b", -1},
	{"1.1.1z", "1.1.1za", -1},
	{"0.9.8zh", "1.0.0", -1},
	{"1.0.2u", "1.1.0", -1},
	{"1.1.1a", "1.1.2", -1},
	{"2.0-beta9", "2.0", -1},
	{"2.0rc1", "2.0", -1},
	{"2.0-alpha", "2.0-beta", -1},
	{"2.0-beta", "2.0-rc1", -1},
	{"2.0-rc1", "2.0", -1},
	{"2.0-alpha", "2.0", -1},
	{"2.0-rc1", "2.0-rc2", -1},
	{"2.0-rc2", "2.0-rc10", -1},
	{"2.0-beta2", "2.0-beta10", -1},
	{"1.0-SNAPSHOT", "1.0-alpha", -1},
	{"1.0-dev", "1.0-alpha1", -1},
	{"1.0a1", "1.0alpha1", 0},
	{"1.0b2", "1.0rc1", -1},
	{"1.0m3", "1.0-rc1", -1},
	{"1.0-pre1", "1.0-rc1", -1},
	{"2.0", "2.0.GA", 0},
	{"2.0-final", "2.0", 0},
	{"2.0", "2.0.1-beta", -1},
	{"1.0.0-alpha", "1.0.0-alpha.1", -1},
	{"1.0.0-beta.2", "1.0.0-beta.11", -1},
	{"1.0.0-rc.1", "1.0.0", -1},
	{"9.9", "1:2.3", -1},
	{"0:1.0", "1.0", 0},
	{"1:9.9", "2:1.0", -1},
	{"8.2.4000", "2:8.2.3995-1+deb12u2", -1},
	{"1.0", "1.0.0", 0},
	{"1", "1.0.0.0", 0},
	{"1.0", "1.0.1", -1},
	{"3.0.0", "3.0.0.1", -1},
	{"9.9", "10.0", -1},
	{"1.2.3", "1.2.3-1ubuntu2", -1},
	{"1.2.3-1ubuntu2", "1.2.3-1ubuntu10", -1},
	{"1.2.3-1ubuntu2", "1.2.3-2", -1},
	{"2:8.2.3995-1", "2:8.2.3995-1+deb12u2", -1},
	{"2:8.2.3995-1+deb12u2", "2:8.2.3995-1+deb12u10", -1},
	{"1.1.1k", "1.1.1k-fips", -1},
	{"1.1.1k-fips", "1.1.1l", -1},
	{"2.4.8.6", "2.4.8.6-fips", -1},
	{"1.0~rc1", "1.0", -1},
	{"1.0~rc1", "1.0~rc2", -1},
	{"1.0~~", "1.0~", -1},
	{"1.0~", "1.0", -1},
	{"1.0~beta", "1.0~rc", -1},
	{"1.0~rc1", "1.0-alpha", -1},
	{"1.0", "1.0+dfsg", -1},
	{"1.0+dfsg", "1.0.1", -1},
	{"20230101", "20230102", -1},
	{"20221231", "20230101", -1},
	{"2023.01.01", "2023.1.1", 0},
	{"1.01", "1.1", 0},
	{"1.9", "1.010", -1},
	{"007", "7", 0},
	{"1.2.3-RC1", "1.2.3-rc1", 0},
	{"1.1.1K", "1.1.1k", 0},
	{"1.1.1K", "1.1.1l", -1},
	{"1.2_3", "1.2.3", 0},
	{"1.2+3", "1.2.3", 0},
	{"1.2.3_rc1", "1.2.3", -1},
	{"116.0.5845.96", "116.0.5845.187", -1},
	{"10.0.19044.9999", "10.0.19045.7058", -1},
	{"v1.2", "1.2", 0},
	{"V1.2.0", "1.2", 0},
	{"1.2", "v1.3", -1},
	{"18446744073709551615", "18446744073709551616", -1},
	{"2", "99999999999999999999999", -1},
	{"7.4", "7.4p1", -1},
	{"7.4p1", "7.4p2", -1},
	{"7.4p1", "7.5", -1},
	{"3.5", "3.5update3", -1},
	{"4.1(6)", "4.1(10)", -1},
	{"12.2(14)sx2", "12.2(14)sx10", -1},
	{"5.1.23", "5.1.23_bk", -1},
	{"2.0", "2.0-sp1", -1},
	{"2.0-sp1", "2.0.1", -1},
	{"1.0", "1.0-1", -1},
	{"", "0", 0},
	{"", "0.1", -1},
	{"  1.2 ", "1.2", 0},
	{"0.5.0b2", "0.5.0b3.dev97", -1},
}

func TestCompare(t *testing.T) {
	for _, tc := range orderings {
		t.Run(tc.older+"_vs_"+tc.newer, func(t *testing.T) {
			assertOrder(t, tc.older, tc.newer, tc.want)
			assertOrder(t, tc.newer, tc.older, -tc.want)
		})
	}
}

func assertOrder(t *testing.T, a, b string, want int) {
	t.Helper()
	if got := Compare(a, b); got != want {
		t.Errorf("Compare(%q, %q) = %d, want %d", a, b, got, want)
	}
	if got := Parse(a).Compare(Parse(b)); got != want {
		t.Errorf("Parse(%q).Compare(Parse(%q)) = %d, want %d", a, b, got, want)
	}
}

func TestCompareIsReflexive(t *testing.T) {
	for _, tc := range orderings {
		for _, s := range []string{tc.older, tc.newer} {
			if got := Compare(s, s); got != 0 {
				t.Errorf("Compare(%q, %q) = %d, want 0", s, s, got)
			}
		}
	}
}

func TestParseKeepsText(t *testing.T) {
	for _, s := range []string{"", "1.2.3", " v1.0~rc1 "} {
		if got := Parse(s).String(); got != s {
			t.Errorf("Parse(%q).String() = %q", s, got)
		}
	}
}

func TestValid(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"1.2.3", true},
		{"2:8.2.3995-1+deb12u2", true},
		{"1.0 beta", true},
		{"version 1.0 für Windows", true},
		{"", false},
		{"   ", false},
		{"1.0\n", false},
		{"1.0\x00", false},
		{"\xff1.0", false},
	}
	for _, tc := range tests {
		if got := Valid(tc.in); got != tc.want {
			t.Errorf("Valid(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
