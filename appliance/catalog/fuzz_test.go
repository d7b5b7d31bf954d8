package catalog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// headOfGzip returns the first n bytes of a gzipped file's content.
func headOfGzip(tb testing.TB, path string, n int64) []byte {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		tb.Fatal(err)
	}
	head, err := io.ReadAll(io.LimitReader(zr, n))
	if err != nil {
		tb.Fatal(err)
	}
	return head
}

// FuzzCatalog: any input yields identities or an error, never a panic; every identity emitted
// is well formed and emitted once, and the count returned is the count emitted.
func FuzzCatalog(f *testing.F) {
	f.Add(readFile(f, catalogMiniTSV))
	f.Add(readFile(f, nvdCPESample))
	f.Add(readFile(f, starterCatalog))
	f.Add(headOfGzip(f, vendorProductTSV, 4<<10))
	f.Add([]byte(`{"ecosystems":{"npm":{"chromedriver":["cpe:2.3:a:chromedriver_project:chromedriver:*:*:*:*:*:node.js:*:*"]},"pypi":{}}}`))
	dict := headOfGzip(f, dictionaryXML, 6<<10)
	f.Add(dict)
	f.Add(append(dict[:bytes.LastIndex(dict, []byte("</cpe-item>"))+len("</cpe-item>")], "</cpe-list>"...))
	f.Add([]byte("{\"products\":[{\"cpe\":{\"cpeName\":\"cpe:/a:acme:w\"}}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		seen := distinct{}
		n, _ := Parse(context.Background(), bytes.NewReader(data), func(id appliance.CatalogEntry) error {
			if err := checkIdentity(id); err != nil {
				t.Fatalf("emitted malformed identity %+v: %v", id, err)
			}
			if !seen.firstTime(id) {
				t.Fatalf("identity %+v emitted twice", id)
			}
			return nil
		})
		if n != len(seen) {
			t.Fatalf("Parse returned %d, callback saw %d identities", n, len(seen))
		}
	})
}
