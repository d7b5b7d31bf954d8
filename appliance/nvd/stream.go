package nvd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// wireEntry is one element of a vulnerabilities array: an NVD {"cve":…} wrapper or a KEV entry.
type wireEntry struct {
	CVE *wireCVE `json:"cve"`
	wireKEV
}

// records streams the vulnerabilities array, decoding and handing on one element at a time.
func (im *importer) records() error {
	if err := im.expectDelim('[', "vulnerabilities"); err != nil {
		return err
	}
	for i := 0; im.dec.More(); i++ {
		if err := im.ctx.Err(); err != nil {
			return err
		}
		if err := im.record(i); err != nil {
			return err
		}
	}
	return im.expectDelim(']', "vulnerabilities")
}

func (im *importer) record(i int) error {
	where := fmt.Sprintf("vulnerabilities[%d] (byte %d)", i, im.dec.InputOffset())
	var e wireEntry
	if err := im.dec.Decode(&e); err != nil {
		return im.syntax(where, err)
	}
	switch {
	case e.CVE != nil:
		return im.emitCVE(e.CVE, where)
	case e.CVEID != "":
		return im.emitKEV(&e.wireKEV, where)
	}
	return fmt.Errorf("%s: %w", where, invalidRecord("neither a CVE nor a KEV entry"))
}

func (im *importer) emitCVE(w *wireCVE, where string) error {
	if err := im.settle(kindNVD); err != nil {
		return err
	}
	c, err := w.toCVE()
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return im.handCVE(c)
}

// handCVE gives a decoded record to the handler and counts it.
func (im *importer) handCVE(c CVE) error {
	if err := im.h.CVE(im.ctx, c); err != nil {
		return fmt.Errorf("%s: %w", c.ID, err)
	}
	im.stats.CVEs++
	return nil
}

func (im *importer) emitKEV(w *wireKEV, where string) error {
	if err := im.settle(kindKEV); err != nil {
		return err
	}
	e, err := w.toEntry()
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if err := im.h.KEV(im.ctx, e); err != nil {
		return fmt.Errorf("%s: %w", e.CVEID, err)
	}
	im.stats.KEV++
	return nil
}

func (im *importer) expectDelim(want json.Delim, where string) error {
	tok, err := im.dec.Token()
	if err != nil {
		return im.syntax(where, err)
	}
	if got, ok := tok.(json.Delim); !ok || got != want {
		return im.syntax(where, fmt.Errorf("expected %q, found %v", want, tok))
	}
	return nil
}

// expectEnd refuses trailing data after the document.
func (im *importer) expectEnd() error {
	tok, err := im.dec.Token()
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		return im.syntax("end of document", err)
	}
	return im.syntax("end of document", fmt.Errorf("unexpected trailing %v", tok))
}

func (im *importer) decodeValue(key string, target any) error {
	if err := im.dec.Decode(target); err != nil {
		return im.syntax(key, err)
	}
	return nil
}

func (im *importer) skip(key string) error {
	var raw json.RawMessage
	return im.decodeValue(key, &raw)
}

// syntax names the position of malformed input; offsets count bytes of the decompressed JSON.
func (im *importer) syntax(where string, err error) error {
	offset := im.dec.InputOffset()
	var se *json.SyntaxError
	if errors.As(err, &se) {
		offset = se.Offset
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%s: malformed JSON at byte %d: %w", where, offset, err)
}
