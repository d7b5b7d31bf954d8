package nvd

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// ImportFile imports one NVD CVE 2.0 feed or KEV catalogue file, plain or gzip-compressed.
func ImportFile(ctx context.Context, path string, h Handler) (Stats, error) {
	f, err := os.Open(path)
	if err != nil {
		return Stats{}, fmt.Errorf("open feed: %w", err)
	}
	defer f.Close()
	stats, err := Import(ctx, f, h)
	if err != nil {
		return stats, fmt.Errorf("%s: %w", path, err)
	}
	return stats, nil
}

// Import reads one document from r — an NVD CVE 2.0 feed ({"vulnerabilities":[{"cve":…}]}),
// a single {"cve":…}, a bare CVE object, or a CISA KEV catalogue — and hands each record to h
// as soon as it is decoded. gzip input is recognised by its magic bytes. Stats count the
// records h accepted, also when an error stops the import.
func Import(ctx context.Context, r io.Reader, h Handler) (Stats, error) {
	src, err := decompressed(r)
	if err != nil {
		return Stats{}, err
	}
	im := &importer{ctx: ctx, dec: json.NewDecoder(src), h: h}
	err = im.run()
	return im.stats, err
}

// decompressed returns r itself, or a gzip reader when r starts with the gzip magic bytes.
func decompressed(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	magic, err := br.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read feed: %w", err)
	}
	if len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
		return br, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, appliance.Invalid("feed", "gzip", "corrupt gzip header: %v", err)
	}
	return zr, nil
}

// docKind is what a document turned out to be; it is settled by the first key or record that
// says so, and a document that later contradicts it is refused.
type docKind int

const (
	kindUnknown docKind = iota
	kindNVD
	kindKEV
)

func (k docKind) String() string {
	switch k {
	case kindNVD:
		return "NVD CVE feed"
	case kindKEV:
		return "KEV catalogue"
	}
	return "unknown document"
}

type importer struct {
	ctx   context.Context
	dec   *json.Decoder
	h     Handler
	kind  docKind
	stats Stats
	// bare collects the fields of a CVE object that is the document itself.
	bare     wireCVE
	bareSeen bool
	// cve5 collects a CVE JSON 5 record that is the document itself.
	cve5     wireCVE5
	cve5Seen bool
}

// run walks the top-level object key by key so that the vulnerabilities array can be
// streamed whatever the position of the envelope's other keys.
func (im *importer) run() error {
	if err := im.expectDelim('{', "document"); err != nil {
		return err
	}
	for im.dec.More() {
		if err := im.topLevelField(); err != nil {
			return err
		}
	}
	if err := im.expectDelim('}', "document"); err != nil {
		return err
	}
	if err := im.expectEnd(); err != nil {
		return err
	}
	return im.finish()
}

func (im *importer) topLevelField() error {
	tok, err := im.dec.Token()
	if err != nil {
		return im.syntax("document", err)
	}
	key, ok := tok.(string)
	if !ok {
		return im.syntax("document", fmt.Errorf("unexpected %v", tok))
	}
	return im.field(key)
}

func (im *importer) field(key string) error {
	switch key {
	case "vulnerabilities":
		return im.records()
	case "format":
		return im.format()
	case "totalResults":
		return im.decodeValue(key, &im.stats.TotalResults)
	case "catalogVersion":
		if err := im.settle(kindKEV); err != nil {
			return err
		}
		return im.skip(key)
	case "cve":
		return im.singleCVE()
	case "CVE_Items", "CVE_data_format":
		return appliance.Invalid("feed", "format", "NVD JSON 1.1 feeds are not supported; use the CVE API 2.0 feeds")
	}
	if target := im.bare.fieldFor(key); target != nil {
		im.bareSeen = true
		return im.decodeValue(key, target)
	}
	if target := im.cve5.fieldFor(key); target != nil {
		im.cve5Seen = true
		return im.decodeValue(key, target)
	}
	return im.skip(key)
}

func (im *importer) format() error {
	var format string
	if err := im.decodeValue("format", &format); err != nil {
		return err
	}
	if format != "NVD_CVE" {
		return appliance.Invalid("format", "supported", "unsupported NVD feed format %q", format)
	}
	return im.settle(kindNVD)
}

func (im *importer) singleCVE() error {
	var w wireCVE
	if err := im.decodeValue("cve", &w); err != nil {
		return err
	}
	return im.emitCVE(&w, "cve")
}

// finish emits a bare CVE document or CVE JSON 5 record and refuses a document that held
// nothing recognisable.
func (im *importer) finish() error {
	if im.cve5Seen && im.bareSeen {
		return appliance.Invalid("feed", "format", "document mixes NVD CVE and CVE JSON 5 fields")
	}
	if im.cve5Seen {
		if err := im.settle(kindNVD); err != nil {
			return err
		}
		c, err := im.cve5.toCVE()
		if err != nil {
			return fmt.Errorf("document: %w", err)
		}
		return im.handCVE(c)
	}
	if im.bareSeen {
		return im.emitCVE(&im.bare, "document")
	}
	if im.kind == kindUnknown && im.stats == (Stats{}) {
		return appliance.Invalid("feed", "format", "not an NVD CVE 2.0 feed, NVD or CVE JSON 5 record or CISA KEV catalogue")
	}
	return nil
}

func (im *importer) settle(kind docKind) error {
	if im.kind != kindUnknown && im.kind != kind {
		return appliance.Invalid("feed", "format", "document mixes %s and %s records", im.kind, kind)
	}
	im.kind = kind
	return nil
}
