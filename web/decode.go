package web

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Body size limits per route class.
const (
	smallBody = 64 << 10 // login, products, assignments
)

// decodeJSON reads one JSON value of at most limit bytes into dst. Malformed JSON, a wrong
// type or trailing data is a ValidationError naming the field where known.
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, dst any) error {
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return appliance.Invalid("body", "json", "request body must hold exactly one JSON value")
	}
	return nil
}

func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
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
