package containers

import (
	"strings"
	"testing"
)

const (
	sha256Hex = "4f380adfc10f4cd34f775ae57a17d2835385efd5251d6dfe0f246b0018fb0399"
	digest256 = "sha256:" + sha256Hex
)

func TestParseImageRef(t *testing.T) {
	digest512 := "sha512:" + strings.Repeat("ab", 64)
	tests := []struct {
		ref, name, tag, digest string
	}{
		{"nginx:1.21", "nginx", "1.21", ""},
		{"nginx", "nginx", "latest", ""},
		{"nginx:1.21.0", "nginx", "1.21.0", ""},
		{"library/nginx:stable-alpine", "library/nginx", "stable-alpine", ""},
		{"registry.example.com:5000/team/app:2.3", "registry.example.com:5000/team/app", "2.3", ""},
		{"registry.example.com:5000/team/app", "registry.example.com:5000/team/app", "latest", ""},
		{"localhost/app", "localhost/app", "latest", ""},
		{"localhost:5000/app:v1_RC.2", "localhost:5000/app", "v1_RC.2", ""},
		{"Registry.Example.com/app", "Registry.Example.com/app", "latest", ""},
		{"[::1]:5000/app:1", "[::1]:5000/app", "1", ""},
		{"ghcr.io/aquasecurity/trivy-test-images:alpine-310", "ghcr.io/aquasecurity/trivy-test-images", "alpine-310", ""},
		{"repo/app@" + digest256, "repo/app", "", digest256},
		{"host.example/app:tag@" + digest256, "host.example/app", "tag", digest256},
		{"host.example:443/app@" + digest512, "host.example:443/app", "", digest512},
		{"my_org/my__app/a-b--c.d:_x", "my_org/my__app/a-b--c.d", "_x", ""},
		{"a:" + strings.Repeat("t", 128), "a", strings.Repeat("t", 128), ""},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			name, tag, digest, err := ParseImageRef(tt.ref)
			if err != nil {
				t.Fatalf("ParseImageRef: %v", err)
			}
			if name != tt.name || tag != tt.tag || digest != tt.digest {
				t.Fatalf("got (%q, %q, %q), want (%q, %q, %q)", name, tag, digest, tt.name, tt.tag, tt.digest)
			}
		})
	}
}

func TestParseImageRefRejects(t *testing.T) {
	tests := []struct {
		ref, constraint string
	}{
		{"", "required"},
		{" ", "format"},
		{"nginx :1", "format"},
		{"nginx\t", "format"},
		{"nginx\n", "format"},
		{"nginx:", "format"},
		{"host:5000/app:", "format"},
		{":1.0", "format"},
		{"Nginx:1", "format"},
		{"team/App", "format"},
		{"team//app", "format"},
		{"/app", "format"},
		{"app/", "format"},
		{"-app", "format"},
		{"a..b", "format"},
		{"a___b", "format"},
		{"app:-x", "format"},
		{"app:.x", "format"},
		{"app:a/b@", "format"},
		{"app:a+b", "format"},
		{"app:" + strings.Repeat("t", 129), "format"},
		{strings.Repeat("a", 256), "format"},
		{"host:port/app", "format"},
		{"host:123456/app", "format"},
		{"-host.example/app", "format"},
		{"[zz]:5000/app", "format"},
		{"app@", "format"},
		{"app@sha256:", "format"},
		{"app@sha256:abc", "format"},
		{"app@sha256:" + strings.ToUpper(sha256Hex), "format"},
		{"app@sha256:" + sha256Hex + "00", "format"},
		{"app@md5:" + sha256Hex, "format"},
		{"app@" + sha256Hex, "format"},
		{"@" + digest256, "format"},
		{"app@" + digest256 + "@" + digest256, "format"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			name, tag, digest, err := ParseImageRef(tt.ref)
			requireValidation(t, err, "image_name", tt.constraint)
			if name != "" || tag != "" || digest != "" {
				t.Fatalf("refused reference returned (%q, %q, %q)", name, tag, digest)
			}
		})
	}
}

func TestValidImageID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{digest256, true},
		{"sha256:" + strings.Repeat("0", 64), true},
		{"", false},
		{sha256Hex, false},
		{"sha256:" + strings.ToUpper(sha256Hex), false},
		{"sha256:" + sha256Hex[:63], false},
		{"sha256:" + sha256Hex + "0", false},
		{"sha256:" + sha256Hex[:63] + "g", false},
		{"SHA256:" + sha256Hex, false},
		{"sha512:" + sha256Hex, false},
		{" " + digest256, false},
	}
	for _, tt := range tests {
		if got := ValidImageID(tt.id); got != tt.want {
			t.Errorf("ValidImageID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestValidateImageID(t *testing.T) {
	if err := ValidateImageID(0, digest256); err != nil {
		t.Fatalf("valid id refused: %v", err)
	}
	requireValidation(t, ValidateImageID(3, "sha256:abc"), "images[3].image_id", "format")
}
