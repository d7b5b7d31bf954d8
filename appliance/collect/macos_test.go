package collect

import (
	"testing"
	"testing/fstest"

	"howett.net/plist"
)

func plistFile(t *testing.T, v any, format int) *fstest.MapFile {
	t.Helper()
	b, err := EncodePlist(v, format)
	if err != nil {
		t.Fatal(err)
	}
	return &fstest.MapFile{Data: b, Mode: 0o644}
}

// Apps in both plist encodings, in /Applications, one subfolder deep, /System/Applications
// and a user's ~/Applications; a bundle two folders deep is not an installed app we report.
func TestMacAppsAndOS(t *testing.T) {
	info := func(name, display, id, short, ver string) map[string]string {
		m := map[string]string{"CFBundleName": name, "CFBundleIdentifier": id, "CFBundleVersion": ver}
		if display != "" {
			m["CFBundleDisplayName"] = display
		}
		if short != "" {
			m["CFBundleShortVersionString"] = short
		}
		return m
	}
	fsys := fstest.MapFS{
		"Applications/Google Chrome.app/Contents/Info.plist":                plistFile(t, info("Chrome", "Google Chrome", "com.google.Chrome", "126.0.6478.127", "6478.127"), plist.BinaryFormat),
		"Applications/Firefox.app/Contents/Info.plist":                      plistFile(t, info("Firefox", "", "org.mozilla.firefox", "127.0.2", "12724.6.20"), plist.XMLFormat),
		"Applications/Utilities/Android Studio.app/Contents/Info.plist":     plistFile(t, info("Android Studio", "", "com.google.android.studio", "", "2024.1"), plist.BinaryFormat),
		"Applications/A/B/Deep.app/Contents/Info.plist":                     plistFile(t, info("Deep", "", "x.deep", "1", "1"), plist.XMLFormat),
		"Applications/Broken.app/Contents/MacOS/Broken":                     &fstest.MapFile{Data: []byte{0}},
		"System/Applications/Safari.app/Contents/Info.plist":                plistFile(t, info("Safari", "", "com.apple.Safari", "17.5", "19618.2.12.11.6"), plist.BinaryFormat),
		"Users/ann/Applications/Visual Studio Code.app/Contents/Info.plist": plistFile(t, info("Code", "", "com.microsoft.VSCode", "1.90.2", "1.90.2"), plist.XMLFormat),
		systemVersion: plistFile(t, map[string]string{"ProductName": "macOS", "ProductVersion": "14.5", "ProductBuildVersion": "23F79"}, plist.XMLFormat),
		"opt/homebrew/Cellar/openssl@3/3.3.1/INSTALL_RECEIPT.json":             &fstest.MapFile{Data: []byte(`{"homebrew_version":"4.3.5","installed_on_request":true}`)},
		"opt/homebrew/Cellar/curl/8.8.0/INSTALL_RECEIPT.json":                  &fstest.MapFile{Data: []byte(`{"homebrew_version":"4.3.5"}`)},
		"opt/homebrew/Cellar/half/1.0/bin/half":                                &fstest.MapFile{Data: []byte{0}},
		"usr/local/Caskroom/iterm2/3.5.2/iTerm.app/Contents/Info.plist":        plistFile(t, info("iTerm2", "", "com.googlecode.iterm2", "3.5.2", "3.5.2"), plist.XMLFormat),
		"usr/local/Caskroom/iterm2/.metadata/3.5.2/20240601/Casks/iterm2.json": &fstest.MapFile{Data: []byte(`{}`)},
	}
	o, prods, err := Collect(Host{FS: fsys, GOOS: "darwin", Arch: "arm64"})
	if err != nil {
		t.Fatal(err)
	}
	wantOS := OS{Name: "macOS 14.5", Version: "14.5", ID: "macos", VersionID: "14.5", Build: "23F79", Arch: "arm64"}
	if o != wantOS {
		t.Errorf("os %+v want %+v", o, wantOS)
	}
	want := []Product{
		{Vendor: "homebrew", Product: "curl", Version: "8.8.0", Source: "brew", PURL: "pkg:brew/curl@8.8.0"},
		{Vendor: "homebrew", Product: "iterm2", Version: "3.5.2", Source: "brew", PURL: "pkg:brew/iterm2@3.5.2"},
		{Vendor: "homebrew", Product: "openssl@3", Version: "3.3.1", Source: "brew", PURL: "pkg:brew/openssl@3@3.3.1"},
		{Product: "Android Studio", Version: "2024.1", Source: "macos", BundleID: "com.google.android.studio"},
		{Product: "Code", Version: "1.90.2", Source: "macos", BundleID: "com.microsoft.VSCode"},
		{Product: "Firefox", Version: "127.0.2", Source: "macos", BundleID: "org.mozilla.firefox"},
		{Product: "Google Chrome", Version: "126.0.6478.127", Source: "macos", BundleID: "com.google.Chrome"},
		{Product: "Safari", Version: "17.5", Source: "macos", BundleID: "com.apple.Safari"},
	}
	sameProducts(t, prods, want)
}
