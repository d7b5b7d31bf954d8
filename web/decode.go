package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Body size limits per route class.
const (
	smallBody = 64 << 10 // login, products, assignments
	// maxInventoryBody fits 10,000 products with long names, paths and package fields (about
	// 1.5 KB each); a real host of 3,000 packages sends under 1 MB.
	maxInventoryBody = 16 << 20
)

// decodeJSON reads one JSON value of at most limit bytes into dst. The body is read whole
// (it is bounded), its strings checked (checkText), then decoded; array fields that may be
// long decode through cappedArray. Malformed JSON, a wrong type or trailing data is a
// ValidationError naming the field where known; a body past limit is the 413 as soon as the
// limit is passed.
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, dst any) error {
	body, err := readBody(w, r, limit)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return appliance.Invalid("body", "json", "request body could not be read")
	}
	if err := checkText(body); err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return appliance.Invalid("body", "required", "request body is empty; a JSON object is required")
	}
	// Unmarshal decodes in place (a Decoder would copy the body into its own buffer first).
	if err := json.Unmarshal(body, dst); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) && strings.Contains(syn.Error(), "after top-level value") {
			return appliance.Invalid("body", "json", "request body must hold exactly one JSON value")
		}
		return jsonError(err)
	}
	return nil
}

// readBody reads the whole body, at most limit bytes; a declared length within the limit is
// allocated once instead of grown by doubling.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit { // refused before a byte is read
		return nil, &http.MaxBytesError{Limit: limit}
	}
	body := http.MaxBytesReader(w, r.Body, limit)
	if n := r.ContentLength; n > 0 && n <= limit && r.Header.Get("Content-Encoding") == "" {
		buf := bytes.NewBuffer(make([]byte, 0, n+1))
		_, err := buf.ReadFrom(body)
		return buf.Bytes(), err
	}
	return io.ReadAll(body)
}

func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var mbe *http.MaxBytesError
	var ve *appliance.ValidationError
	switch {
	case errors.As(err, &mbe), errors.As(err, &ve):
		return err
	case errors.Is(err, io.EOF):
		return appliance.Invalid("body", "required", "request body is empty; a JSON object is required")
	case errors.As(err, &syn):
		return appliance.Invalid("body", "json", "malformed JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "body"
		}
		return appliance.Invalid(field, "type", "%s must be %s, not %s", field, jsonTypeName(typ.Type.Kind().String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return appliance.Invalid("body", "json", "malformed JSON: unexpected end of input")
	}
	return appliance.Invalid("body", "json", "malformed JSON: %s", trimJSONPrefix(err))
}

func jsonTypeName(kind string) string {
	switch kind {
	case "int", "int64", "int32", "uint", "uint64", "float64", "float32":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return "of another type"
}

func trimJSONPrefix(err error) string {
	msg := err.Error()
	const p = "json: "
	if len(msg) > len(p) && msg[:len(p)] == p {
		return msg[len(p):]
	}
	return msg
}

// pathID parses a positive integer path parameter.
func pathID(s, field string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, appliance.NotFound("%s %q does not exist", field, s)
	}
	return id, nil
}
