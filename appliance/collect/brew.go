package collect

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
)

// Homebrew prefixes: Apple silicon, then Intel.
var brewPrefixes = []string{"opt/homebrew", "usr/local"}

// Homebrew lists formulae (Cellar/NAME/VERSION/INSTALL_RECEIPT.json) and casks
// (Caskroom/NAME/VERSION) of every Homebrew prefix present.
func Homebrew(fsys fs.FS) ([]Product, error) {
	var out []Product
	for _, pre := range brewPrefixes {
		f, err := brewFormulae(fsys, path.Join(pre, "Cellar"))
		if err != nil {
			return nil, err
		}
		c, err := brewCasks(fsys, path.Join(pre, "Caskroom"))
		if err != nil {
			return nil, err
		}
		out = append(append(out, f...), c...)
	}
	return out, nil
}

// brewFormulae: a version directory counts when its install receipt is there and parses
// (Homebrew writes it last, so a half-finished install has none).
func brewFormulae(fsys fs.FS, cellar string) ([]Product, error) {
	return brewEach(fsys, cellar, func(name, ver, dir string) (bool, error) {
		b, ok, err := readOptional(fsys, path.Join(dir, "INSTALL_RECEIPT.json"))
		if err != nil || !ok {
			return false, err
		}
		var receipt struct {
			HomebrewVersion string `json:"homebrew_version"`
		}
		if err := json.Unmarshal(b, &receipt); err != nil {
			return false, fmt.Errorf("parse %s/INSTALL_RECEIPT.json: %w", dir, err)
		}
		return true, nil
	})
}

func brewCasks(fsys fs.FS, room string) ([]Product, error) {
	return brewEach(fsys, room, func(string, string, string) (bool, error) { return true, nil })
}

// brewEach walks ROOT/NAME/VERSION and keeps the versions keep accepts.
func brewEach(fsys fs.FS, root string, keep func(name, ver, dir string) (bool, error)) ([]Product, error) {
	names, err := fs.ReadDir(fsys, root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, wrapRead(root, err)
	}
	var out []Product
	for _, n := range names {
		if !n.IsDir() || n.Name()[0] == '.' {
			continue
		}
		vers, err := fs.ReadDir(fsys, path.Join(root, n.Name()))
		if err != nil {
			return nil, wrapRead(path.Join(root, n.Name()), err)
		}
		for _, v := range vers {
			if !v.IsDir() || v.Name()[0] == '.' {
				continue
			}
			ok, err := keep(n.Name(), v.Name(), path.Join(root, n.Name(), v.Name()))
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, Product{Vendor: "homebrew", Product: n.Name(), Version: v.Name(), Source: "brew"})
			}
		}
	}
	return out, nil
}
