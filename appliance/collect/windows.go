package collect

import (
	"fmt"
	"strconv"
	"strings"
)

// Registry reads the Windows registry. Paths are ROOT\sub\key with ROOT one of HKLM, HKU;
// values are strings or uint64 (DWORD/QWORD). A missing key is (nil, nil).
type Registry interface {
	SubKeys(path string) ([]string, error)
	Values(path string) (map[string]any, error)
}

const (
	uninstall64 = `HKLM\SOFTWARE\Microsoft\Windows\CurrentVersion\Uninstall`
	uninstall32 = `HKLM\SOFTWARE\WOW6432Node\Microsoft\Windows\CurrentVersion\Uninstall`
	userUninst  = `Software\Microsoft\Windows\CurrentVersion\Uninstall`
	currentVer  = `HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion`
)

// WindowsOS reads CurrentVersion: ProductName, DisplayVersion (22H2), CurrentBuild.UBR,
// EditionID. Windows 11 still says "Windows 10" in ProductName; its build (≥ 22000) tells.
func WindowsOS(reg Registry) (OS, error) {
	v, err := reg.Values(currentVer)
	if err != nil {
		return OS{}, fmt.Errorf("read %s: %w", currentVer, err)
	}
	name, build := str(v["ProductName"]), str(v["CurrentBuild"])
	if n, err := strconv.Atoi(build); err == nil && n >= 22000 {
		name = strings.Replace(name, "Windows 10", "Windows 11", 1)
	}
	if ubr, ok := v["UBR"]; ok && build != "" {
		build += "." + str(ubr)
	}
	display := firstNonEmpty(str(v["DisplayVersion"]), str(v["ReleaseId"]))
	o := OS{Name: name, Version: display, ID: "windows", Build: build, Codename: str(v["EditionID"])}
	if maj, ok := v["CurrentMajorVersionNumber"]; ok {
		o.VersionID = str(maj) + "." + str(v["CurrentMinorVersionNumber"])
	} else {
		o.VersionID = str(v["CurrentVersion"])
	}
	return o, nil
}

// WindowsPrograms lists the Uninstall entries of HKLM (64- and 32-bit views) and of each
// loaded user hive, skipping system components and updates of another entry.
func WindowsPrograms(reg Registry) ([]Product, error) {
	roots := []string{uninstall64, uninstall32}
	users, err := reg.SubKeys("HKU")
	if err != nil {
		return nil, fmt.Errorf("list HKU: %w", err)
	}
	for _, sid := range users {
		if !strings.HasSuffix(sid, "_Classes") {
			roots = append(roots, `HKU\`+sid+`\`+userUninst)
		}
	}
	seen := map[Product]bool{}
	var out []Product
	for _, root := range roots {
		keys, err := reg.SubKeys(root)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", root, err)
		}
		for _, k := range keys {
			v, err := reg.Values(root + `\` + k)
			if err != nil {
				return nil, fmt.Errorf("read %s\\%s: %w", root, k, err)
			}
			p, ok := uninstallEntry(v)
			if ok && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out, nil
}

func uninstallEntry(v map[string]any) (Product, bool) {
	name := strings.TrimSpace(str(v["DisplayName"]))
	if name == "" || str(v["SystemComponent"]) == "1" || str(v["ParentKeyName"]) != "" {
		return Product{}, false
	}
	return Product{Vendor: strings.TrimSpace(str(v["Publisher"])), Product: name,
		Version: strings.TrimSpace(str(v["DisplayVersion"])), Source: "windows"}, true
}

func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64: // recorded key sets decoded from JSON
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return fmt.Sprint(x)
	}
}
