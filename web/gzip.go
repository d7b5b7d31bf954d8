package web

import (
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// acceptGzip lets a route take a gzip body (Content-Encoding: gzip). The body is inflated
// as the handler reads it, so the handler's MaxBytesReader bounds the inflated size and a
// compression bomb stops at the cap. Other encodings are refused with 415.
func (s *Server) acceptGzip(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding")))
		switch enc {
		case "", "identity":
			h.ServeHTTP(w, r)
			return
		case "gzip", "x-gzip":
		default:
			writeErrorBody(w, http.StatusUnsupportedMediaType, "unsupported_media_type",
				"Content-Encoding must be gzip or absent", errorDetails{Field: "Content-Encoding", Constraint: "encoding"})
			return
		}
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			s.writeError(w, r, errBadGzip)
			return
		}
		r.Body = &gzipBody{zr: zr, raw: r.Body}
		r.Header.Del("Content-Encoding")
		r.Header.Del("Content-Length")
		r.ContentLength = -1
		h.ServeHTTP(w, r)
	})
}

var errBadGzip = appliance.Invalid("body", "gzip", "request body is not a valid gzip stream")

// gzipBody inflates while read; a corrupt stream is a validation error, not a server one.
type gzipBody struct {
	zr  *gzip.Reader
	raw io.ReadCloser
}

func (g *gzipBody) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		return n, errBadGzip
	}
	return n, err
}

func (g *gzipBody) Close() error {
	_ = g.zr.Close()
	return g.raw.Close()
}
