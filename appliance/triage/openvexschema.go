package triage

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// openVEXSchemaJSON is vulnkeeper's own JSON Schema (draft 2020-12) of an OpenVEX 0.2.0
// document, written from the specification's text.
//
//go:embed openvex-0.2.0.schema.json
var openVEXSchemaJSON []byte

// openVEXSchema compiles the embedded schema once; timestamps are checked as date-times.
var openVEXSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(openVEXSchemaJSON))
	if err != nil {
		return nil, fmt.Errorf("read the OpenVEX schema: %w", err)
	}
	const url = "urn:vulnkeeper:schema:openvex-0.2.0"
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("add the OpenVEX schema: %w", err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compile the OpenVEX schema: %w", err)
	}
	return s, nil
})

var schemaPrinter = message.NewPrinter(language.English)

// validateOpenVEX checks an OpenVEX document against the schema: a refusal names the field
// (as statements[0].justification) and the constraint "schema".
func validateOpenVEX(data []byte) error {
	schema, err := openVEXSchema()
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return appliance.Invalid("document", "format", "the document is not JSON")
	}
	err = schema.Validate(doc)
	var ve *jsonschema.ValidationError
	if err == nil || !errors.As(err, &ve) {
		return err
	}
	leaf, missing := schemaLeaf(ve)
	field := schemaField(leaf.InstanceLocation, missing)
	return appliance.Invalid(field, "schema", "%s does not follow the OpenVEX 0.2.0 schema: %s", field, schemaMessage(leaf))
}

// schemaMessage says what is wrong at leaf; an unmet anyOf lists its alternatives.
func schemaMessage(leaf *jsonschema.ValidationError) string {
	if _, anyOf := leaf.ErrorKind.(*kind.AnyOf); !anyOf || len(leaf.Causes) == 0 {
		return leaf.ErrorKind.LocalizedString(schemaPrinter)
	}
	var alts []string
	for _, c := range leaf.Causes {
		alts = append(alts, c.ErrorKind.LocalizedString(schemaPrinter))
	}
	return "none of the alternatives holds: " + strings.Join(alts, "; ")
}

// schemaLeaf is the most specific failure under e: the deepest one in the document, the first
// among equals; an unmet anyOf counts as one failure of the object. missing is the property a
// required or additionalProperties failure is about, "" otherwise.
func schemaLeaf(e *jsonschema.ValidationError) (leaf *jsonschema.ValidationError, missing string) {
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if _, anyOf := e.ErrorKind.(*kind.AnyOf); len(e.Causes) == 0 || anyOf {
			if leaf == nil || len(e.InstanceLocation) > len(leaf.InstanceLocation) {
				leaf = e
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(e)
	switch k := leaf.ErrorKind.(type) {
	case *kind.Required:
		if len(k.Missing) > 0 {
			missing = k.Missing[0]
		}
	case *kind.AdditionalProperties:
		if len(k.Properties) > 0 {
			missing = k.Properties[0]
		}
	}
	return leaf, missing
}

// schemaField writes a location in the document as statements[0].products[1].@id; the whole
// document is "document".
func schemaField(location []string, property string) string {
	if property != "" {
		location = append(location[:len(location):len(location)], property)
	}
	var b strings.Builder
	for _, seg := range location {
		if _, err := strconv.Atoi(seg); err == nil {
			b.WriteString("[" + seg + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	if b.Len() == 0 {
		return "document"
	}
	return b.String()
}
