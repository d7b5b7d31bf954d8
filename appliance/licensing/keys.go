package licensing

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Key file names inside the data directory. The private key is PKCS#8 PEM (what
// `openssl genpkey -algorithm ed25519` writes), mode 0600; the public key file holds
// EncodePublicKey's text and is rewritten from the private key whenever it differs.
const (
	PrivateKeyFile = "license-signing.key"
	PublicKeyFile  = "license-signing.pub"
)

// LoadOrCreateKey returns the licence signing key kept in dir, creating dir (0700) and a new
// key when none exists; created says which happened. A key file readable or writable by group
// or others is refused with ErrInsecureKeyFile.
func LoadOrCreateKey(dir string) (ed25519.PrivateKey, bool, error) {
	return LoadOrCreateKeyFiles(dir, PrivateKeyFile, PublicKeyFile)
}

// Feed bundle key file names: a connected installation signs the bundles it writes with a key
// of its own, separate from any licence key.
const (
	BundlePrivateKeyFile = "feed-bundle.key"
	BundlePublicKeyFile  = "feed-bundle.pub"
)

// LoadOrCreateKeyFiles is LoadOrCreateKey for a key pair under other file names in dir.
func LoadOrCreateKeyFiles(dir, privateName, publicName string) (ed25519.PrivateKey, bool, error) {
	path := filepath.Join(dir, privateName)
	priv, err := loadPrivateKey(path)
	created := false
	if errors.Is(err, fs.ErrNotExist) {
		priv, created, err = createPrivateKey(dir, path)
	}
	if err != nil {
		return nil, false, err
	}
	if err := syncPublicKeyFile(filepath.Join(dir, publicName), priv.Public().(ed25519.PublicKey)); err != nil {
		return nil, false, err
	}
	return priv, created, nil
}

// EncodePublicKey is the stable text form of a public key (base64 StdEncoding of its 32 bytes),
// printed by `vulnkeeper license public-key` and configured on installations.
func EncodePublicKey(pub ed25519.PublicKey) string {
	return strictBase64.EncodeToString(pub)
}

// ParsePublicKey reads EncodePublicKey's form, ignoring surrounding blanks.
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	s = strings.TrimSpace(s)
	raw, err := strictBase64.DecodeString(s)
	// The decoder skips inner line breaks; a key written across lines is not the stable form.
	if err != nil || len(raw) != ed25519.PublicKeySize || strings.ContainsAny(s, "\r\n") {
		return nil, appliance.Invalid("public_key", "format", "public key must be %d bytes in base64", ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(raw), nil
}

func loadPrivateKey(path string) (ed25519.PrivateKey, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("licence key: %w", err)
	}
	if err := checkKeyFileMode(path, info); err != nil {
		return nil, err
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("licence key: %w", err)
	}
	return decodePrivateKey(path, text)
}

func checkKeyFileMode(path string, info fs.FileInfo) error {
	if !info.Mode().IsRegular() {
		return fmt.Errorf("licence key %s is not a regular file", path)
	}
	// Windows has no Unix permission bits to check.
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("licence key %s has mode %04o, want 0600: %w", path, info.Mode().Perm(), ErrInsecureKeyFile)
	}
	return nil
}

func decodePrivateKey(path string, text []byte) (ed25519.PrivateKey, error) {
	block, _ := pem.Decode(text)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("licence key %s: no PKCS#8 PEM block", path)
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("licence key %s: %w", path, err)
	}
	priv, ok := key.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("licence key %s: %T is not an Ed25519 key", path, key)
	}
	return priv, nil
}

func createPrivateKey(dir, path string) (ed25519.PrivateKey, bool, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, fmt.Errorf("licence key directory: %w", err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, false, fmt.Errorf("generate licence key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, false, fmt.Errorf("encode licence key: %w", err)
	}
	err = writeFileOnce(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if errors.Is(err, fs.ErrExist) {
		// Another process created the key first; use theirs.
		priv, err = loadPrivateKey(path)
		return priv, false, err
	}
	if err != nil {
		return nil, false, err
	}
	return priv, true, nil
}

// writeFileOnce writes a complete 0600 file at path, or fails with fs.ErrExist when path exists:
// the bytes go to a temporary file first, which is then hard-linked into place.
func writeFileOnce(path string, data []byte) error {
	tmp, err := writeTemp(filepath.Dir(path), data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		return fmt.Errorf("licence key: %w", err)
	}
	return nil
}

// writeTemp writes data to a new 0600 file in dir, synced to disk, and returns its name.
func writeTemp(dir string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, ".license-key-*")
	if err != nil {
		return "", fmt.Errorf("licence key: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("licence key: %w", err)
	}
	return f.Name(), nil
}

// syncPublicKeyFile (re)writes the public key file when it is missing or differs.
func syncPublicKeyFile(path string, pub ed25519.PublicKey) error {
	want := EncodePublicKey(pub) + "\n"
	if have, err := os.ReadFile(path); err == nil && string(have) == want {
		return nil
	}
	tmp, err := writeTemp(filepath.Dir(path), []byte(want))
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("licence public key: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("licence public key: %w", err)
	}
	return nil
}
