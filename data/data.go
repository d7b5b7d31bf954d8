// Package data embeds the defaults shipped in the binary: the OpenAPI document, and the
// starter catalogue and demo CVE feed loaded on first start.
package data

import (
	"embed"
	"io/fs"
)

// OpenAPI is the OpenAPI 3.1 description of every route.
//
//go:embed openapi.yaml
var OpenAPI []byte

//go:embed defaults/catalog.tsv defaults/demo-feed.json defaults/kev.json
var defaults embed.FS

// Defaults holds catalog.tsv (starter catalogue), demo-feed.json (NVD CVE 2.0) and kev.json.
func Defaults() fs.FS {
	sub, _ := fs.Sub(defaults, "defaults")
	return sub
}
