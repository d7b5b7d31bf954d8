package licensing

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestLoadOrCreateKeyCreatesThenReloads(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "var")
	priv, created, err := LoadOrCreateKey(dir)
	if err != nil || !created {
		t.Fatalf("first call: created=%v err=%v, want a new key", created, err)
	}
	again, created, err := LoadOrCreateKey(dir)
	if err != nil || created {
		t.Fatalf("second call: created=%v err=%v, want the stored key", created, err)
	}
	if !priv.Equal(again) {
		t.Fatal("reloaded key differs from the created one")
	}
	assertMode(t, filepath.Join(dir, PrivateKeyFile), 0o600)
	assertMode(t, filepath.Join(dir, PublicKeyFile), 0o644)
	assertMode(t, dir, 0o700)
	text, err := os.ReadFile(filepath.Join(dir, PublicKeyFile))
	if err != nil || string(text) != EncodePublicKey(publicOf(priv))+"\n" {
		t.Fatalf("public key file = %q, %v", text, err)
	}
}

// Processes starting together agree on one key: exactly one of them creates it.
func TestLoadOrCreateKeyConcurrentStart(t *testing.T) {
	dir := t.TempDir()
	keys := make([][]byte, 8)
	created := make([]bool, len(keys))
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			priv, c, err := LoadOrCreateKey(dir)
			if err != nil {
				t.Error(err)
			}
			keys[i], created[i] = priv, c
		})
	}
	wg.Wait()
	creators := 0
	for i := range keys {
		if !bytes.Equal(keys[i], keys[0]) {
			t.Fatalf("caller %d got a different key", i)
		}
		if created[i] {
			creators++
		}
	}
	if creators != 1 {
		t.Fatalf("%d callers say they created the key, want 1", creators)
	}
}

func TestLoadOrCreateKeyRefusesWidePermissions(t *testing.T) {
	for _, mode := range []os.FileMode{0o640, 0o604, 0o644, 0o660, 0o666} {
		dir := t.TempDir()
		if _, _, err := LoadOrCreateKey(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, PrivateKeyFile), mode); err != nil {
			t.Fatal(err)
		}
		if _, _, err := LoadOrCreateKey(dir); !errors.Is(err, ErrInsecureKeyFile) {
			t.Errorf("mode %04o: err = %v, want ErrInsecureKeyFile", mode, err)
		}
	}
}

func TestLoadOrCreateKeyAcceptsStricterMode(t *testing.T) {
	dir := t.TempDir()
	priv, _, _ := LoadOrCreateKey(dir)
	if err := os.Chmod(filepath.Join(dir, PrivateKeyFile), 0o400); err != nil {
		t.Fatal(err)
	}
	again, created, err := LoadOrCreateKey(dir)
	if err != nil || created || !priv.Equal(again) {
		t.Fatalf("0400 key: created=%v err=%v", created, err)
	}
}

func TestLoadOrCreateKeyRestoresPublicKeyFile(t *testing.T) {
	dir := t.TempDir()
	priv, _, _ := LoadOrCreateKey(dir)
	pubPath := filepath.Join(dir, PublicKeyFile)
	for _, damage := range []func() error{
		func() error { return os.Remove(pubPath) },
		func() error { return os.WriteFile(pubPath, []byte("someone else's key\n"), 0o644) },
	} {
		if err := damage(); err != nil {
			t.Fatal(err)
		}
		if _, _, err := LoadOrCreateKey(dir); err != nil {
			t.Fatal(err)
		}
		text, _ := os.ReadFile(pubPath)
		if string(text) != EncodePublicKey(publicOf(priv))+"\n" {
			t.Fatalf("public key file not restored: %q", text)
		}
	}
}

func TestLoadOrCreateKeyRefusesCorruptKey(t *testing.T) {
	for name, content := range map[string]string{
		"empty":      "",
		"not pem":    "hello",
		"wrong type": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
		"bad der":    "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, PrivateKeyFile), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if priv, _, err := LoadOrCreateKey(dir); err == nil || priv != nil {
			t.Errorf("%s: got key %v, err %v; want refusal", name, priv != nil, err)
		}
	}
}

func TestPublicKeyEncoding(t *testing.T) {
	pub := publicOf(testKey("encoding"))
	text := EncodePublicKey(pub)
	if len(text) != 44 || EncodePublicKey(pub) != text {
		t.Fatalf("encoding %q is not a stable 44-character base64 string", text)
	}
	tests := []struct {
		name, in string
		ok       bool
	}{
		{"canonical", text, true},
		{"surrounding blanks", "  " + text + "\n", true},
		{"empty", "", false},
		{"too short", text[:40], false},
		{"hex", strings.Repeat("ab", 32), false},
		{"inner line break", text[:20] + "\n" + text[20:], false},
		{"non-zero padding bits", text[:42] + "B=", false},
	}
	for _, tt := range tests {
		got, err := ParsePublicKey(tt.in)
		if tt.ok && (err != nil || !got.Equal(pub)) {
			t.Errorf("%s: ParsePublicKey = %v, %v", tt.name, got, err)
		}
		if !tt.ok && err == nil {
			t.Errorf("%s: ParsePublicKey(%q) accepted", tt.name, tt.in)
		}
	}
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != want {
		t.Errorf("%s has mode %04o, want %04o", filepath.Base(path), got, want)
	}
}
