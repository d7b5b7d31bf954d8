package collect

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"howett.net/plist"
)

const systemVersion = "System/Library/CoreServices/SystemVersion.plist"

// MacOS reads the version and build of macOS from SystemVersion.plist.
func MacOS(fsys fs.FS) (OS, error) {
	b, err := fs.ReadFile(fsys, systemVersion)
	if err != nil {
		return OS{}, wrapRead(systemVersion, err)
	}
	var v struct {
		ProductName         string `plist:"ProductName"`
		ProductVersion      string `plist:"ProductVersion"`
		ProductBuildVersion string `plist:"ProductBuildVersion"`
	}
	if _, err := plist.Unmarshal(b, &v); err != nil {
		return OS{}, fmt.Errorf("parse /%s: %w", systemVersion, err)
	}
	return OS{Name: strings.TrimSpace(v.ProductName + " " + v.ProductVersion), Version: v.ProductVersion,
		ID: "macos", VersionID: v.ProductVersion, Build: v.ProductBuildVersion}, nil
}

// bundleInfo is the part of Contents/Info.plist that names an application.
type bundleInfo struct {
	Name         string `plist:"CFBundleName"`
	DisplayName  string `plist:"CFBundleDisplayName"`
	Identifier   string `plist:"CFBundleIdentifier"`
	ShortVersion string `plist:"CFBundleShortVersionString"`
	Version      string `plist:"CFBundleVersion"`
}

// MacApps lists the application bundles in /Applications, /System/Applications and each
// user's ~/Applications, and one level of subfolders (/Applications/Utilities/…).
func MacApps(fsys fs.FS) ([]Product, error) {
	dirs := []string{"Applications", "System/Applications"}
	users, err := fs.Glob(fsys, "Users/*/Applications")
	if err != nil {
		return nil, err
	}
	dirs = append(dirs, users...)
	var out []Product
	for _, d := range dirs {
		apps, err := appsIn(fsys, d, true)
		if err != nil {
			return nil, err
		}
		out = append(out, apps...)
	}
	return out, nil
}

func appsIn(fsys fs.FS, dir string, descend bool) ([]Product, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, wrapRead(dir, err)
	}
	var out []Product
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		switch {
		case strings.HasSuffix(e.Name(), ".app"):
			app, ok, err := readBundle(fsys, p)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, app)
			}
		case descend && e.IsDir() && !strings.HasPrefix(e.Name(), "."):
			sub, err := appsIn(fsys, p, false)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
	}
	return out, nil
}

// readBundle reads one app's Info.plist (XML or binary). A bundle without one, or with an
// unreadable one, is skipped: it is not an installed application we can name.
func readBundle(fsys fs.FS, dir string) (Product, bool, error) {
	b, ok, err := readOptional(fsys, path.Join(dir, "Contents/Info.plist"))
	if err != nil || !ok {
		return Product{}, false, err
	}
	var info bundleInfo
	if _, err := plist.Unmarshal(b, &info); err != nil {
		return Product{}, false, nil
	}
	name := firstNonEmpty(info.DisplayName, info.Name, strings.TrimSuffix(path.Base(dir), ".app"))
	ver := firstNonEmpty(info.ShortVersion, info.Version)
	return Product{Product: name, Version: ver, BundleID: info.Identifier, Source: "macos"}, true, nil
}

// EncodePlist writes v as a plist in the given format (plist.XMLFormat or plist.BinaryFormat);
// tests and tools use it to build bundles.
func EncodePlist(v any, format int) ([]byte, error) {
	var buf bytes.Buffer
	enc := plist.NewEncoderForFormat(&buf, format)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if s := strings.TrimSpace(v); s != "" {
			return s
		}
	}
	return ""
}
