package containers

import (
	"encoding/json"
	"errors"
	"reflect"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

const scanField = "scan_results"

func invalidFormat(format string, args ...any) error {
	return appliance.Invalid(scanField, "format", format, args...)
}

// invalidJSON turns a decoder error into a client-readable ValidationError without the Go
// type names that encoding/json puts in its messages.
func invalidJSON(err error) error {
	var ve *appliance.ValidationError
	if errors.As(err, &ve) {
		return err
	}
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) {
		return appliance.Invalid(scanField, "json", "malformed JSON at byte %d", syntaxErr.Offset)
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		if typeErr.Field == "" && typeErr.Type != nil && typeErr.Type.Kind() == reflect.Struct {
			return invalidFormat("report must be a JSON object, got %s", typeErr.Value)
		}
		if typeErr.Field == "" {
			return invalidFormat("an entry has the wrong type (%s)", typeErr.Value)
		}
		return invalidFormat("%s has the wrong type (%s)", typeErr.Field, typeErr.Value)
	}
	return appliance.Invalid(scanField, "json", "malformed JSON report")
}
