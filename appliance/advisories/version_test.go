package advisories

import (
	"os/exec"
	"testing"
)

// dpkgOracle asks this machine's dpkg how a and b order.
func dpkgOracle(t *testing.T, a, b string) int {
	t.Helper()
	for _, op := range []struct {
		rel string
		res int
	}{{"lt", -1}, {"eq", 0}, {"gt", 1}} {
		err := exec.Command("dpkg", "--compare-versions", a, op.rel, b).Run()
		if err == nil {
			return op.res
		}
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("dpkg: %v", err)
		}
	}
	t.Fatalf("dpkg orders %q and %q no way", a, b)
	return 0
}

// TestDpkgAgreesWithDpkg checks the dpkg comparison against `dpkg --compare-versions` on real
// version pairs: every installed/fixed pair of expected/ubuntu-host-matches.tsv, the Debian
// cases of the README, and the edge forms (epoch, '~', '+', native versions).
func TestDpkgAgreesWithDpkg(t *testing.T) {
	pairs := [][2]string{
		{"1.1.1w-0+deb11u2", "1.1.1n-0+deb11u4"},   // case 8
		{"5.2.5-2.1~deb11u1", "5.2.5-2.1~deb11u1"}, // case 8
		{"3.7.9-2+deb12u3", "3.7.9-2+deb12u1"},     // case 9
		{"3.7.1-5+deb11u6", "3.7.1-5+deb11u5"},     // case 9
		{"1:2.37.2-4ubuntu3", "2.37.2-4ubuntu3.3"}, // case 6, the trap
		{"1.34+dfsg-1build3", "1.34+dfsg-1ubuntu0.1.22.04.1"},
		{"2:3.3.12-3ubuntu1.2", "2:3.3.12-3ubuntu1.2+esm1"},
		{"1.1.1-1ubuntu2.1~18.04.20", "1.1.1-1ubuntu2.1"},
		{"0~20160408.ffea0a2c-2", "0~20150106.5c2d456b-2"},
		{"1.0~rc1", "1.0"}, {"1.0", "1.0-0"}, {"1.21.1ubuntu2.1", "1.21.1ubuntu2"},
		{"98.0.4758.80-1~deb11u1", "90.0.4430.212-1"},
	}
	for _, r := range readTSV(t, advDir+"/expected/ubuntu-host-matches.tsv") {
		pairs = append(pairs, [2]string{r["host_version"], r["fixed_binary_version"]},
			[2]string{r["host_version"], r["fixed_source_version"]})
	}
	for _, p := range pairs {
		got, err := Compare(SchemeDpkg, p[0], p[1])
		if err != nil {
			t.Errorf("%s vs %s: %v", p[0], p[1], err)
			continue
		}
		if want := dpkgOracle(t, p[0], p[1]); got != want {
			t.Errorf("%s vs %s: library %d, dpkg %d", p[0], p[1], got, want)
		}
	}
	t.Logf("%d pairs agree with dpkg", len(pairs))
}

// TestSchemes checks the other orderings on the README's facts.
func TestSchemes(t *testing.T) {
	cases := []struct {
		s    Scheme
		a, b string
		want int
	}{
		{SchemeRPM, "1:6.1.2-12.el8", "1:6.1.2-11.el8", 1},
		{SchemeRPM, "2.34-168.el9_6.14", "2.34-274.el9_8", -1},
		{SchemeRPM, "1:3.2.2-6.el9_5.1", "1:3.2.2-6.el9_5.1", 0},
		{SchemeAPK, "1.1.1s-r0", "1.1.1d-r0", 1},
		{SchemeAPK, "1.1.22-r3", "1.1.23-r2", -1},
		{SchemeAPK, "2.0_rc1-r0", "2.0-r0", -1},
		{SchemeMaven, "2.10.1", "2.9.10.7", 1},
		{SchemeMaven, "2.10.0.0", "2.10.0", 0},
		{SchemeMaven, "5.0.9.RELEASE", "5.2.20.RELEASE", -1},
		{SchemeMaven, "9.4.27.v20200227", "9.4.51.v20230217", -1},
		{SchemeMaven, "4.1.45.Final", "4.1.68.Final", -1},
		{SchemeSemver, "v0.3.5-0.20201125200606-c27b9fd57aec", "0.3.3", 1},
		{SchemeSemver, "v0.3.5-0.20201125200606-c27b9fd57aec", "0.3.7", -1},
		{SchemeSemver, "v3.0.0-20200313", "3.0.0", -1},
		{SchemeSemver, "v7.30.6", "7.30.6", 0},
		{SchemePEP440, "2.0.0rc1", "2.0.0", -1},
		{SchemePEP440, "1.10", "1.9.post1", 1},
	}
	for _, c := range cases {
		got, err := Compare(c.s, c.a, c.b)
		if err != nil || got != c.want {
			t.Errorf("%s %s vs %s: %d, %v; want %d", c.s, c.a, c.b, got, err, c.want)
		}
	}
	for eco, want := range map[string]Scheme{
		"Ubuntu:Pro:18.04:LTS": SchemeDpkg, "Debian:11": SchemeDpkg, "AlmaLinux:9": SchemeRPM,
		"Rocky Linux:8": SchemeRPM, "Red Hat:rhel_eus:9.2::appstream": SchemeRPM, "Alpine:v3.18": SchemeAPK,
		"PyPI": SchemePEP440, "Maven": SchemeMaven, "npm": SchemeSemver, "Go": SchemeSemver,
	} {
		if got := SchemeOf(eco); got != want {
			t.Errorf("SchemeOf(%q) = %s, want %s", eco, got, want)
		}
	}
	if _, err := Compare(SchemeDpkg, "", "1.0"); err == nil {
		t.Error("an empty dpkg version compared without error")
	}
	if got := StripRebuildTag("3.6.8-62.el8_10.rocky.0"); got != "3.6.8-62.el8_10" {
		t.Errorf("StripRebuildTag: %q", got)
	}
}
