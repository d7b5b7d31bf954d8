package agentrun

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// ReadKeyFile reads the agent key. On Unix a key file others can read or write is refused:
// anyone on the host could post inventories in the organization's name.
func ReadKeyFile(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("key file: %w", err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o006 != 0 {
		return "", fmt.Errorf("key file %s is readable or writable by every user (mode %04o); "+
			"anyone on this host could post inventories with it: run chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("key file: %w", err)
	}
	key := strings.TrimSpace(string(b))
	if key == "" {
		return "", fmt.Errorf("key file %s is empty", path)
	}
	return key, nil
}
