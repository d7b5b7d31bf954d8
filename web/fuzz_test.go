package web

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func TestDecodeJSON(t *testing.T) {
	tests := []struct {
		name           string
		body           string
		wantField      string
		wantConstraint string
		wantTooLarge   bool
	}{
		{"valid", `{"username":"a","password":"b"}`, "", "", false},
		{"unknown fields are ignored", `{"username":"a","extra":1}`, "", "", false},
		{"empty", ``, "body", "required", false},
		{"truncated", `{"username":"a"`, "body", "json", false},
		{"syntax", `{"username":}`, "body", "json", false},
		{"wrong type", `{"password":true}`, "password", "type", false},
		{"not an object", `[1,2]`, "body", "type", false},
		{"trailing value", `{"username":"a"} {}`, "body", "json", false},
		{"too large", `{"username":"` + strings.Repeat("a", smallBody) + `"}`, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var req loginRequest
			err := decodeJSON(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(tt.body)), smallBody, &req)
			var ve *appliance.ValidationError
			var mbe *http.MaxBytesError
			switch {
			case tt.wantTooLarge:
				if !errors.As(err, &mbe) {
					t.Errorf("err = %v, want *http.MaxBytesError", err)
				}
			case tt.wantField == "":
				if err != nil {
					t.Errorf("err = %v, want nil", err)
				}
			case !errors.As(err, &ve) || ve.Field != tt.wantField || ve.Constraint != tt.wantConstraint:
				t.Errorf("err = %#v, want field %q constraint %q", err, tt.wantField, tt.wantConstraint)
			}
		})
	}
}

// FuzzDecodeJSON: any body yields a value or an error of a kind writeError maps to 4xx;
// never a panic.
func FuzzDecodeJSON(f *testing.F) {
	for _, seed := range []string{`{"username":"alice","password":"correct horse battery"}`, `{}`, `{"username":1}`, `[`, `null`,
		`{"username":"\u00e9\ud800"}`, `{"a":{"b":[1,2,{"c":null}]}}`, `"x" "y"`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var req loginRequest
		err := decodeJSON(httptest.NewRecorder(), httptest.NewRequest("POST", "/", bytes.NewReader(body)), smallBody, &req)
		var ve *appliance.ValidationError
		var mbe *http.MaxBytesError
		if err != nil && !errors.As(err, &ve) && !errors.As(err, &mbe) {
			t.Fatalf("decodeJSON(%q) = %v: not a validation or size error", body, err)
		}
	})
}
