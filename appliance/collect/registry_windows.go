//go:build windows

package collect

import (
	"errors"
	"strings"

	"golang.org/x/sys/windows/registry"
)

// SystemRegistry reads the live registry (64-bit view; the 32-bit one is under WOW6432Node).
type SystemRegistry struct{}

func openKey(path string) (registry.Key, error) {
	root, sub, _ := strings.Cut(path, `\`)
	var k registry.Key
	switch root {
	case "HKLM":
		k = registry.LOCAL_MACHINE
	case "HKU":
		k = registry.USERS
	default:
		return 0, errors.New("unknown registry root " + root)
	}
	return registry.OpenKey(k, sub, registry.READ|registry.WOW64_64KEY)
}

// withKey runs fn on the open key; a missing key gives zero values and no error.
func withKey[T any](path string, fn func(registry.Key) (T, error)) (T, error) {
	var zero T
	k, err := openKey(path)
	if errors.Is(err, registry.ErrNotExist) {
		return zero, nil
	}
	if err != nil {
		return zero, err
	}
	defer k.Close()
	return fn(k)
}

// SubKeys lists the names under path; a missing key has none.
func (SystemRegistry) SubKeys(path string) ([]string, error) {
	return withKey(path, func(k registry.Key) ([]string, error) { return k.ReadSubKeyNames(-1) })
}

// Values reads the string and integer values of path.
func (SystemRegistry) Values(path string) (map[string]any, error) {
	return withKey(path, func(k registry.Key) (map[string]any, error) {
		names, err := k.ReadValueNames(-1)
		if err != nil {
			return nil, err
		}
		out := make(map[string]any, len(names))
		for _, n := range names {
			if s, _, err := k.GetStringValue(n); err == nil {
				out[n] = s
			} else if i, _, err := k.GetIntegerValue(n); err == nil {
				out[n] = i
			}
		}
		return out, nil
	})
}

// LocalRegistry is the registry of this machine.
func LocalRegistry() Registry { return SystemRegistry{} }
