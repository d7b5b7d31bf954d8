package storetest

import (
	"encoding/json"
	"os"
	"testing"
)

// JSONFile reads a JSON file generically, so tests read their expectations from the real data
// beside the code under test rather than through it.
func JSONFile(t testing.TB, path string) any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// JSONAt walks object keys (string) and array indexes (int) through generic JSON; nil where
// the path leads nowhere.
func JSONAt(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k < 0 || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}
