// Package data embeds the defaults shipped in the binary: the OpenAPI document, and the
// starter catalogue and demo CVE feed loaded on first start.
package data

import _ "embed"

// OpenAPI is the OpenAPI 3.1 description of every route.
//
//go:embed openapi.yaml
var OpenAPI []byte
