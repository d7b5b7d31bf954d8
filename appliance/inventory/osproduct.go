package inventory

import (
	"regexp"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// sourceOS marks the item that stands for the host's operating system.
const sourceOS = "os"

// osItem is the operating system as a product of the host, when the report says enough to name
// the identity NVD files its CVEs under:
//   - Windows 10/11 with a feature release and a build (CurrentBuild.UBR): windows_10_22h2 at
//     10.0.<build>, which NVD's build ranges compare;
//   - Windows Server 2016/2019/2022/2025 with a build: windows_server_<year> at 10.0.<build>;
//   - macOS with its version: apple:macos at that version.
//
// Distribution releases are matched package by package (their advisories, or upstream
// identities) and get no OS item.
func osItem(rep Report) (Item, bool) {
	os := rep.OS
	name := strings.ToLower(rep.OSName)
	switch {
	case os.ID == "windows" || strings.Contains(name, "windows"):
		build := strings.TrimSpace(os.Build)
		if !windowsBuild.MatchString(build) {
			return Item{}, false
		}
		if m := windowsServer.FindStringSubmatch(name); m != nil {
			return osProduct("Microsoft", "Windows Server "+m[1], "10.0."+build), true
		}
		release := strings.ToLower(strings.TrimSpace(rep.OSVersion))
		if !featureRelease.MatchString(release) {
			return Item{}, false
		}
		edition := "10"
		if strings.Contains(name, "windows 11") || buildNumber(build) >= 22000 {
			edition = "11"
		}
		return osProduct("Microsoft", "Windows "+edition+" "+strings.ToUpper(release), "10.0."+build), true
	case os.ID == "macos" || strings.Contains(name, "macos") || strings.Contains(name, "mac os x"):
		v := strings.TrimSpace(os.VersionID)
		if v == "" {
			v = strings.TrimSpace(rep.OSVersion)
		}
		if !macVersion.MatchString(v) {
			return Item{}, false
		}
		return osProduct("Apple", "macOS", v), true
	}
	return Item{}, false
}

var (
	windowsBuild   = regexp.MustCompile(`^\d{5}\.\d+$`)
	featureRelease = regexp.MustCompile(`^(1[5-9]0[39]|2[0-9]h[12])$`)
	windowsServer  = regexp.MustCompile(`windows server (2016|2019|2022|2025)`)
	macVersion     = regexp.MustCompile(`^\d+(\.\d+){0,2}$`)
)

func buildNumber(build string) int {
	n := 0
	for _, c := range build {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

func osProduct(vendor, name, version string) Item {
	return Item{Vendor: vendor, Product: name, Version: version, Package: appliance.PackageInfo{Source: sourceOS}}
}

// osIdentity is the identity of an OS item: its name in NVD's spelling ("Windows 10 22H2" →
// microsoft:windows_10_22h2, "macOS" → apple:macos).
func osIdentity(it Item) (appliance.Identity, bool) {
	if it.Package.Source != sourceOS {
		return appliance.Identity{}, false
	}
	product := strings.ReplaceAll(strings.ToLower(it.Product), " ", "_")
	return appliance.Identity{Part: "o", Vendor: strings.ToLower(it.Vendor), Product: product}, true
}
