//go:build !windows

package collect

// LocalRegistry: only Windows has a registry.
func LocalRegistry() Registry { return nil }
