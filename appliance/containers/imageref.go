// Package container parses container-image references and the JSON reports of image
// vulnerability scanners (Trivy, Grype) into one scanner-neutral form.
package containers

import (
	"fmt"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// DefaultTag is what a reference without tag or digest means, as in docker pull.
const DefaultTag = "latest"

const (
	maxNameLength = 255 // docker's limit on a repository name
	maxTagLength  = 128
	imageIDPrefix = "sha256:"
)

// ParseImageRef splits an image reference into repository name, tag and digest.
// The name keeps its registry host and port (nothing is normalized to docker.io). A reference
// without tag and digest gets tag "latest"; one pinned by digest alone has an empty tag.
// Accepted digests are sha256 (64 hex) and sha512 (128 hex), lowercase.
func ParseImageRef(ref string) (name, tag, digest string, err error) {
	if ref == "" {
		return "", "", "", appliance.Invalid("image_name", "required", "image name is empty")
	}
	if strings.IndexFunc(ref, isSpaceOrControl) >= 0 {
		return "", "", "", invalidRef(ref, "contains whitespace or control characters")
	}
	rest := ref
	if at := strings.IndexByte(ref, '@'); at >= 0 {
		rest, digest = ref[:at], ref[at+1:]
		if !validDigest(digest) {
			return "", "", "", invalidRef(ref, "malformed digest (want sha256:<64 hex> or sha512:<128 hex>)")
		}
	}
	if strings.HasSuffix(rest, ":") {
		return "", "", "", invalidRef(ref, "empty tag after ':'")
	}
	name, tag = splitTag(rest)
	if problem := checkName(name); problem != "" {
		return "", "", "", invalidRef(ref, problem)
	}
	if problem := checkTag(tag); problem != "" {
		return "", "", "", invalidRef(ref, problem)
	}
	if tag == "" && digest == "" {
		tag = DefaultTag
	}
	return name, tag, digest, nil
}

// splitTag cuts the tag after the last colon, but only when that colon follows the last
// slash: in "host:5000/app" the colon belongs to the registry port.
func splitTag(ref string) (name, tag string) {
	colon := strings.LastIndexByte(ref, ':')
	if colon < 0 || colon < strings.LastIndexByte(ref, '/') {
		return ref, ""
	}
	return ref[:colon], ref[colon+1:]
}

func invalidRef(ref, problem string) error {
	return appliance.Invalid("image_name", "format", "invalid image reference %q: %s", clip(ref, 300), problem)
}

func isSpaceOrControl(r rune) bool {
	return r <= ' ' || r == 0x7f || r == 0x85 || r == 0xa0 || r == 0x2028 || r == 0x2029
}

// ValidImageID reports whether s is an image ID of the form sha256:<64 lowercase hex>.
func ValidImageID(s string) bool {
	hexPart, ok := strings.CutPrefix(s, imageIDPrefix)
	return ok && isLowerHex(hexPart, 64)
}

// ValidateImageID checks the image_id of the index-th image of a scan submission.
func ValidateImageID(index int, id string) error {
	if ValidImageID(id) {
		return nil
	}
	return appliance.Invalid(fmt.Sprintf("images[%d].image_id", index), "format",
		"image_id must be sha256:<64 lowercase hex characters>")
}

func validDigest(d string) bool {
	algorithm, hexPart, ok := strings.Cut(d, ":")
	if !ok {
		return false
	}
	switch algorithm {
	case "sha256":
		return isLowerHex(hexPart, 64)
	case "sha512":
		return isLowerHex(hexPart, 128)
	}
	return false
}

func isLowerHex(s string, length int) bool {
	if len(s) != length {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
