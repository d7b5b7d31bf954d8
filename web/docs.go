package web

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"strings"

	swaggerfiles "github.com/swaggo/files/v2"
	"gopkg.in/yaml.v3"
)

// openAPIJSON converts the YAML document to the JSON served at /api/openapi.json.
func openAPIJSON(doc []byte) ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(s.openapi)
}

// The docs page is ours; Swagger UI's built assets come from the swaggo/files module, so no
// third-party JavaScript is committed and nothing is loaded from a CDN.
const docsIndex = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<title>vulnkeeper API</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/vulnkeeper-init.js"></script>
</body>
</html>
`

const docsInit = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: "/api/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis]
  });
};
`

func (s *Server) docsRedirect(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, "/api/docs/", http.StatusMovedPermanently)
}

func (s *Server) docs() http.Handler {
	assets := http.StripPrefix("/api/docs/", http.FileServer(http.FS(swaggerfiles.FS)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/api/docs/")
		switch name {
		case "", "index.html":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'")
			_, _ = w.Write([]byte(docsIndex))
			return
		case "vulnkeeper-init.js":
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			_, _ = w.Write([]byte(docsInit))
			return
		}
		if _, err := fs.Stat(swaggerfiles.FS, name); err != nil {
			s.notFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=86400")
		assets.ServeHTTP(w, r)
	})
}
