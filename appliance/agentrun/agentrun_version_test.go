package agentrun

import "testing"

// TestOlderThan: only a release below the server's minimum is older; development builds and
// an unset minimum never are.
func TestOlderThan(t *testing.T) {
	cases := []struct {
		version, minimum string
		want             bool
	}{
		{"0.9.0", "1.0.0", true},
		{"v1.0.0", "1.0.0", false},
		{"1.2.3", "v1.2.10", true},
		{"1.10.0", "1.9.9", false},
		{"dev", "1.0.0", false},
		{"7864f3c", "1.0.0", false},
		{"1.0.0", "", false},
		{"1.0.0-rc.1", "1.0.0", true},
	}
	for _, c := range cases {
		if got, _ := OlderThan(c.version, c.minimum); got != c.want {
			t.Errorf("OlderThan(%q, %q) = %v, want %v", c.version, c.minimum, got, c.want)
		}
	}
}
