package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/cpe"
)

// nvdProduct is one element of "products" in an NVD CPE API 2.0 response; fields the
// catalogue does not keep (refs, deprecatedBy, dates) are not decoded.
type nvdProduct struct {
	CPE struct {
		Name       string        `json:"cpeName"`
		Deprecated bool          `json:"deprecated"`
		Titles     []sourceTitle `json:"titles"`
	} `json:"cpe"`
}

// parseJSON walks the top-level object token by token: an NVD CPE API 2.0 document's
// "products" array is decoded one element at a time, so a full dump never sits in memory as
// JSON; a package-to-CPE index (Syft's cpe-index.json) is read one ecosystem at a time.
func parseJSON(ctx context.Context, r io.Reader, fn func(appliance.CatalogEntry) error) (int, error) {
	dec := json.NewDecoder(r)
	if err := expectDelim(dec, '{'); err != nil {
		return 0, err
	}
	set, found := newProductSet(), false
	for dec.More() {
		key, err := objectKey(dec)
		if err != nil {
			return 0, err
		}
		switch key {
		case "products":
			err = readProducts(ctx, dec, set)
		case "ecosystems":
			err = readEcosystems(ctx, dec, set)
		default:
			err = skipValue(dec)
		}
		if err != nil {
			return 0, err
		}
		found = found || key == "products" || key == "ecosystems"
	}
	if !found {
		return 0, appliance.Invalid("catalog", "format",
			`JSON has no "products" array (an NVD CPE API 2.0 document) and no "ecosystems" (a package-to-CPE index)`)
	}
	return set.emit(ctx, fn)
}

func readProducts(ctx context.Context, dec *json.Decoder, set *productSet) error {
	if err := expectDelim(dec, '['); err != nil {
		return err
	}
	for i := 0; dec.More(); i++ {
		if i%ctxCheckEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		var p nvdProduct
		if err := dec.Decode(&p); err != nil {
			return jsonError(dec, fmt.Errorf("product %d: %w", i, err))
		}
		id, err := productIdentity(p)
		if err != nil {
			return jsonError(dec, fmt.Errorf("product %d: %w", i, err))
		}
		set.add(id)
	}
	return expectDelim(dec, ']')
}

func productIdentity(p nvdProduct) (appliance.CatalogEntry, error) {
	name, err := cpe.Parse(p.CPE.Name)
	if err != nil {
		return appliance.CatalogEntry{}, err
	}
	return identityFromName(name, englishTitle(p.CPE.Titles), p.CPE.Deprecated)
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return jsonError(dec, err)
	}
	if got, ok := tok.(json.Delim); !ok || got != want {
		return jsonError(dec, fmt.Errorf("want %q, got %v", want, tok))
	}
	return nil
}

func objectKey(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", jsonError(dec, err)
	}
	key, ok := tok.(string)
	if !ok {
		return "", jsonError(dec, fmt.Errorf("want an object key, got %v", tok))
	}
	return key, nil
}

func skipValue(dec *json.Decoder) error {
	var ignored json.RawMessage
	if err := dec.Decode(&ignored); err != nil {
		return jsonError(dec, err)
	}
	return nil
}

// jsonError reports malformed JSON as a validation error at the decoder's byte offset.
func jsonError(dec *json.Decoder, err error) error {
	return appliance.Invalid("catalog", "format", "JSON near byte %d: %v", dec.InputOffset(), err)
}
