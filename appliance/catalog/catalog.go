// Package catalog imports software identities — (part, vendor, product) triples of CPE 2.3
// names — from the files an operator feeds `vulnkeeper catalog import`: the project's TSV, NVD
// CPE API 2.0 JSON, the official CPE dictionary XML and package-to-CPE indexes (Syft's
// cpe-index.json, whose names carry the platform a package is for), each optionally gzipped.
//
// Importers stream their input and hand every identity to a callback once: a dictionary lists
// each product in many versions, and those collapse into one appliance.CatalogEntry per file.
package catalog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// format is one of the input kinds Parse recognizes.
type format int

const (
	formatTSV format = iota
	formatNVDJSON
	formatDictionaryXML
)

// readBufferSize is large enough to sniff a format and to read long TSV lines cheaply.
const readBufferSize = 64 << 10

// Parse reads a catalogue from r, detecting gzip by its magic bytes and the format by its first
// significant character, and calls fn once per distinct identity. It returns how many
// identities fn accepted. An error from fn stops the import and is returned as is; malformed
// input yields an *appliance.ValidationError naming the line or byte offset.
func Parse(ctx context.Context, r io.Reader, fn func(appliance.CatalogEntry) error) (int, error) {
	br := bufio.NewReaderSize(r, readBufferSize)
	if isGzip(br) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return 0, fmt.Errorf("open gzip catalogue: %w", err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, readBufferSize)
	}
	switch sniff(br) {
	case formatDictionaryXML:
		return parseDictionary(ctx, br, fn)
	case formatNVDJSON:
		return parseJSON(ctx, br, fn)
	default:
		return parseTSV(ctx, br, fn)
	}
}

// ParseFile opens path and runs Parse on it.
func ParseFile(ctx context.Context, path string, fn func(appliance.CatalogEntry) error) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("open catalogue: %w", err)
	}
	defer f.Close()
	n, err := Parse(ctx, f, fn)
	if err != nil {
		return n, fmt.Errorf("catalogue %s: %w", path, err)
	}
	return n, nil
}

func isGzip(br *bufio.Reader) bool {
	magic, _ := br.Peek(2)
	return len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b
}

// sniff looks at the first character after a byte-order mark and white space: '<' opens XML,
// '{' or '[' JSON; anything else is read as TSV, whose own errors then explain what is wrong.
func sniff(br *bufio.Reader) format {
	head, _ := br.Peek(512)
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	head = bytes.TrimLeft(head, " \t\r\n")
	switch {
	case len(head) == 0:
		return formatTSV
	case head[0] == '<':
		return formatDictionaryXML
	case head[0] == '{' || head[0] == '[':
		return formatNVDJSON
	}
	return formatTSV
}
