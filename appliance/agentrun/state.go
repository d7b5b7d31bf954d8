package agentrun

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// State is what the agent keeps between runs: its id, the digest of the last inventory the
// server acknowledged, and at most one unsent inventory (a newer one replaces it).
type State struct {
	dir     string
	AgentID string
	Acked   string
}

const (
	idFile    = "agent-id"
	ackedFile = "last-acked.sha256"
	spoolFile = "spool.json"
)

// OpenState creates the directory (0700) and the agent id on first use.
func OpenState(dir string) (*State, error) {
	if dir == "" {
		return nil, errors.New("no state directory")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create state directory: %w", err)
	}
	s := &State{dir: dir}
	id, err := s.read(idFile)
	if err != nil {
		return nil, err
	}
	if id == "" {
		if id, err = newID(); err != nil {
			return nil, err
		}
		if err := s.write(idFile, []byte(id+"\n")); err != nil {
			return nil, err
		}
	}
	s.AgentID = id
	if s.Acked, err = s.read(ackedFile); err != nil {
		return nil, err
	}
	return s, nil
}

// Spool keeps body as the one unsent inventory.
func (s *State) Spool(body []byte) error { return s.write(spoolFile, body) }

// HasSpool says whether an inventory waits to be sent.
func (s *State) HasSpool() bool {
	_, err := os.Stat(filepath.Join(s.dir, spoolFile))
	return err == nil
}

// Spooled reads the waiting inventory.
func (s *State) Spooled() ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, spoolFile))
	if err != nil {
		return nil, fmt.Errorf("read spooled inventory: %w", err)
	}
	return b, nil
}

// Ack records the digest the server acknowledged and drops the spool.
func (s *State) Ack(d string) error {
	if err := s.write(ackedFile, []byte(d+"\n")); err != nil {
		return err
	}
	s.Acked = d
	if err := os.Remove(filepath.Join(s.dir, spoolFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove spool: %w", err)
	}
	return nil
}

func (s *State) read(name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read state %s: %w", name, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// write replaces a state file atomically (temporary file, sync, rename).
func (s *State) write(name string, b []byte) error {
	f, err := os.CreateTemp(s.dir, name+".*")
	if err != nil {
		return fmt.Errorf("write state %s: %w", name, err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(s.dir, name))
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("write state %s: %w", name, err)
	}
	return nil
}

// newID is a random UUID (version 4).
func newID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:]), nil
}
