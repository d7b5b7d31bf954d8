package collect

import (
	"testing"
	"testing/fstest"
	"time"
)

// mapFS builds an in-memory host root from path → content.
func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for p, c := range files {
		m[p] = &fstest.MapFile{Data: []byte(c), Mode: 0o644, ModTime: time.Unix(0, 0)}
	}
	return m
}

// sameProducts compares two product lists in order.
func sameProducts(t *testing.T, got, want []Product) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d products %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("product %d: got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}
