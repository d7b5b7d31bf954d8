package catalog

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/cpe"
)

// dictItem gathers one <cpe-item> of the official CPE dictionary (schema 2.3).
type dictItem struct {
	name22     string // name attribute: CPE 2.2 URI
	name23     string // <cpe-23:cpe23-item name>: CPE 2.3 formatted string
	deprecated bool
	titles     []sourceTitle
	offset     int64 // where the item starts, for error messages
}

// dictReader is a small state machine over raw tokens. Raw tokens skip the namespace
// bookkeeping of xml.Decoder.Token, which makes the import about four times faster; elements
// are therefore matched by local name, whatever prefix the producer chose.
type dictReader struct {
	dec     *xml.Decoder
	set     *productSet
	sawRoot bool
	item    *dictItem // nil outside a <cpe-item>
	title   *sourceTitle
	text    strings.Builder
}

// parseDictionary streams the dictionary token by token; memory grows with the number of
// distinct products, not with the file.
func parseDictionary(ctx context.Context, r io.Reader, fn func(appliance.CatalogEntry) error) (int, error) {
	d := &dictReader{dec: xml.NewDecoder(r), set: newProductSet()}
	for tokens := 1; ; tokens++ {
		if tokens%(ctxCheckEvery*16) == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		tok, err := d.dec.RawToken()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, xmlError(d.dec, err)
		}
		if err := d.handle(tok); err != nil {
			return 0, err
		}
	}
	if err := d.finish(); err != nil {
		return 0, err
	}
	return d.set.emit(ctx, fn)
}

func (d *dictReader) handle(tok xml.Token) error {
	switch t := tok.(type) {
	case xml.StartElement:
		return d.start(t)
	case xml.EndElement:
		return d.end(t)
	case xml.CharData:
		if d.title != nil {
			d.text.Write(t)
		}
	}
	return nil
}

func (d *dictReader) start(t xml.StartElement) error {
	if !d.sawRoot {
		d.sawRoot = true
		if t.Name.Local != "cpe-list" {
			return appliance.Invalid("catalog", "format",
				"XML root element <%s> is not <cpe-list>: not a CPE dictionary", t.Name.Local)
		}
	}
	switch t.Name.Local {
	case "cpe-item":
		return d.startItem(t)
	case "title":
		if d.item != nil {
			d.title = &sourceTitle{Lang: attr(t, "lang")}
			d.text.Reset()
		}
	case "cpe23-item":
		if d.item != nil {
			d.item.name23 = attr(t, "name")
		}
	}
	return nil
}

func (d *dictReader) startItem(t xml.StartElement) error {
	offset := d.dec.InputOffset()
	if d.item != nil {
		return itemError(offset, errors.New("cpe-item inside cpe-item"))
	}
	deprecated, err := parseFlag(attr(t, "deprecated"))
	if err != nil {
		return itemError(offset, err)
	}
	d.item = &dictItem{name22: attr(t, "name"), deprecated: deprecated, offset: offset}
	return nil
}

func (d *dictReader) end(t xml.EndElement) error {
	switch {
	case t.Name.Local == "title" && d.title != nil && d.item != nil:
		d.title.Text = d.text.String()
		d.item.titles = append(d.item.titles, *d.title)
		d.title = nil
	case t.Name.Local == "cpe-item" && d.item != nil:
		id, err := itemIdentity(d.item)
		if err != nil {
			return itemError(d.item.offset, err)
		}
		d.set.add(id)
		d.item, d.title = nil, nil // a title left open ends with its item
	}
	return nil
}

// finish refuses documents that are empty or stop inside an item.
func (d *dictReader) finish() error {
	if d.item != nil {
		return itemError(d.item.offset, errors.New("document ends inside the item"))
	}
	if !d.sawRoot {
		return appliance.Invalid("catalog", "format", "XML document has no elements")
	}
	return nil
}

// itemIdentity prefers the 2.3 name; dictionaries before 2.3 carry only the 2.2 URI.
func itemIdentity(item *dictItem) (appliance.CatalogEntry, error) {
	raw := item.name23
	if raw == "" {
		raw = item.name22
	}
	name, err := cpe.Parse(raw)
	if err != nil {
		return appliance.CatalogEntry{}, err
	}
	return identityFromName(name, englishTitle(item.titles), item.deprecated)
}

func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

func parseFlag(value string) (bool, error) {
	if value == "" {
		return false, nil
	}
	return strconv.ParseBool(value)
}

func itemError(offset int64, err error) error {
	return appliance.Invalid("catalog", "format", "cpe-item at byte %d: %v", offset, err)
}

// xmlError names the line for syntax errors and the byte offset otherwise.
func xmlError(dec *xml.Decoder, err error) error {
	var syntax *xml.SyntaxError
	if errors.As(err, &syntax) {
		return appliance.Invalid("catalog", "format", "XML line %d: %s", syntax.Line, syntax.Msg)
	}
	return appliance.Invalid("catalog", "format", "XML near byte %d: %v", dec.InputOffset(), err)
}
