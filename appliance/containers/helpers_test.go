package containers

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

const (
	trivyDir        = "../../../shared/data/trivy"
	grypeDir        = "../../../shared/data/trivy/grype"
	conformanceScan = "../../../shared/conformance/fixtures/container-scan.json"
)

// readFile reads a shared fixture; a missing file fails the test rather than skipping it.
func readFile(tb testing.TB, path string) []byte {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("read fixture: %v", err)
	}
	return raw
}

// jsonFiles lists the .json files of a fixture directory and fails when there are none.
func jsonFiles(tb testing.TB, dir string) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no fixtures in %s (err %v)", dir, err)
	}
	return files
}

// requireValidation asserts err is a ValidationError with the given field and constraint.
func requireValidation(t *testing.T, err error, field, constraint string) {
	t.Helper()
	var ve *appliance.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v (%T), want *appliance.ValidationError", err, err)
	}
	if ve.Field != field || ve.Constraint != constraint {
		t.Fatalf("ValidationError{%q, %q, %q}, want field %q constraint %q",
			ve.Field, ve.Constraint, ve.Message, field, constraint)
	}
}
