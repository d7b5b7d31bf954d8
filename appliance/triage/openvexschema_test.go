package triage

import (
	"errors"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

const validOpenVEX = `{"@context":"https://openvex.dev/ns/v0.2.0","@id":"https://example.com/vex/1","author":"vendor",
"timestamp":"2023-01-08T18:02:03Z","version":1,"statements":[{"vulnerability":{"name":"CVE-2021-3711"},
"products":[{"@id":"pkg:generic/openssl@1.1.1k","subcomponents":[{"identifiers":{"cpe23":"cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*"}}]}],
"status":"not_affected","justification":"vulnerable_code_not_present"}]}`

// FuzzValidateOpenVEX feeds arbitrary bodies to the schema check ImportOpenVEX runs first: it
// never panics, and every refusal is a validation error (a 400) naming a field, never an
// internal error (a 500).
func FuzzValidateOpenVEX(f *testing.F) {
	for _, seed := range []string{validOpenVEX, `{}`, `[]`, `null`, `"x"`, `1e999`, `{"statements":[{}]}`,
		strings.Replace(validOpenVEX, `"not_affected"`, `"affected"`, 1),
		strings.Replace(validOpenVEX, `"version":1`, `"version":1.5`, 1),
		strings.Replace(validOpenVEX, `"2023-01-08T18:02:03Z"`, `"2023-02-30T25:00:00Z"`, 1),
		strings.Replace(validOpenVEX, `"@id":"pkg`, `"@id":"`, 1), `{"@context":`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := validateOpenVEX(data)
		if err == nil {
			return
		}
		var ve *appliance.ValidationError
		if !errors.As(err, &ve) || ve.Field == "" || ve.Message == "" || (ve.Constraint != "schema" && ve.Constraint != "format") {
			t.Fatalf("validateOpenVEX(%q) = %#v, want a validation error naming a field", data, err)
		}
	})
}

func TestValidateOpenVEXNamesTheField(t *testing.T) {
	for body, field := range map[string]string{
		validOpenVEX: "",
		strings.Replace(validOpenVEX, `"identifiers":{"cpe23"`, `"identifiers":{"cpe"`, 1):   "statements[0].products[0].subcomponents[0].identifiers.cpe",
		strings.Replace(validOpenVEX, `"@id":"pkg:generic/openssl@1.1.1k",`, ``, 1):          "statements[0].products[0]",
		strings.Replace(validOpenVEX, `"version":1`, `"version":1.5`, 1):                     "version",
		strings.Replace(validOpenVEX, `"2023-01-08T18:02:03Z"`, `"2023-02-30T25:00:00Z"`, 1): "timestamp",
	} {
		err := validateOpenVEX([]byte(body))
		var ve *appliance.ValidationError
		if field == "" && err != nil || field != "" && (!errors.As(err, &ve) || ve.Field != field || ve.Constraint != "schema") {
			t.Errorf("validateOpenVEX(%s) = %v, want field %q", body, err, field)
		}
	}
}
