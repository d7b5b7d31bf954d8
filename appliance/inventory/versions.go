package inventory

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Publishers write versions into the Windows registry in schemes of their own; NVD names the
// same releases otherwise. matchVersion turns a reported version into the version and update
// NVD uses for the product's identity. The reported version itself is kept for display.
//
//   - a build or edition in parentheses is not part of the version: "5.7.4 (804)" → 5.7.4;
//   - Python's installers write micro×1000+serial as the third part: 3.9.1150.0 → 3.9.1;
//   - Oracle Java 8 and older write 8.0.3010.9 for 8u301: version 1.8.0, update update301.
func matchVersion(p appliance.Product) (version, update string) {
	v, update := strings.TrimSpace(p.Version), p.Update
	if update != "" {
		return v, update
	}
	v = strings.TrimSpace(parenthesized.ReplaceAllString(v, ""))
	switch id := p.Identity; {
	case id.Vendor == "python" && id.Product == "python":
		if m := pythonInstaller.FindStringSubmatch(v); m != nil {
			micro, _ := strconv.Atoi(m[2])
			return m[1] + "." + strconv.Itoa(micro/1000), ""
		}
	case id.Vendor == "oracle" && (id.Product == "jre" || id.Product == "jdk"):
		if m := javaInstaller.FindStringSubmatch(v); m != nil {
			return "1." + m[1] + ".0", "update" + strings.TrimLeft(m[2], "0")
		}
	}
	return v, ""
}

var (
	parenthesized   = regexp.MustCompile(`\s*\([^)]*\)`)
	pythonInstaller = regexp.MustCompile(`^(\d+\.\d+)\.(\d{4,})(?:\.\d+)?$`)
	javaInstaller   = regexp.MustCompile(`^([5-8])\.0\.(\d{2,4})0\.\d+$`)
)
