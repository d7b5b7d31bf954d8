package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/justinas/nosurf"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// The web UI: server-rendered pages over the same services, sessions, roles and CSRF as
// the JSON API. Templates and static files are embedded; nothing comes from elsewhere.

//go:embed templates/*.html static/*
var uiFiles embed.FS

// uiCSP forbids inline scripts and styles and every other origin; the QR code is an image
// of this server.
const uiCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Session keys of the UI.
const (
	sessFlash    = "flash"
	sessFlashErr = "flash_error"
	sessTOTPURL  = "totp_url" // otpauth URL of an enrolment in progress, for its QR code
)

// view is what every page template receives.
type view struct {
	Title    string
	Nav      string
	User     appliance.User
	CSRF     string
	Flash    string
	FlashErr string
	Data     any
}

// Admin tells a template to show the actions of organization admins.
func (v view) Admin() bool { return v.User.Role == appliance.RoleOrgAdmin }

// SignedIn tells the layout to show the navigation.
func (v view) SignedIn() bool { return v.User.ID != 0 }

// staticFile is an embedded file ready to serve, compressed once.
type staticFile struct {
	body, gz    []byte
	contentType string
}

// uiAssets are the parsed pages and the static files, built once per process.
type uiAssets struct {
	pages   map[string]*template.Template
	static  map[string]staticFile
	version string // hash of the static files, appended to their URLs
}

var uiStaticTypes = map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
	".svg": "image/svg+xml", ".png": "image/png"}

func loadUIAssets() (*uiAssets, error) {
	a := &uiAssets{pages: map[string]*template.Template{}, static: map[string]staticFile{}}
	sum := sha256.New()
	entries, err := fs.ReadDir(uiFiles, "static")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		b, err := uiFiles.ReadFile("static/" + e.Name())
		if err != nil {
			return nil, err
		}
		sum.Write(b)
		ext := e.Name()[strings.LastIndexByte(e.Name(), '.'):]
		a.static[e.Name()] = staticFile{body: b, gz: gzipBytes(b), contentType: uiStaticTypes[ext]}
	}
	a.version = hex.EncodeToString(sum.Sum(nil))[:12]
	funcs := uiFuncs(a.version)
	names, err := fs.Glob(uiFiles, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" || strings.HasPrefix(base, "_") {
			continue
		}
		t, err := template.New("layout").Funcs(funcs).ParseFS(uiFiles, "templates/layout.html", "templates/_*.html", n)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", n, err)
		}
		a.pages[base] = t
	}
	return a, nil
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// acceptsGzip reports whether the client takes a gzip response.
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		if enc, _, _ := strings.Cut(strings.TrimSpace(part), ";"); enc == "gzip" {
			return true
		}
	}
	return false
}

// writeBody sends a complete body, compressed when the client takes it.
func writeBody(w http.ResponseWriter, r *http.Request, status int, contentType string, body, gz []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Add("Vary", "Accept-Encoding")
	if acceptsGzip(r) && len(body) > 512 {
		if gz == nil {
			gz = gzipBytes(body)
		}
		h.Set("Content-Encoding", "gzip")
		body = gz
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// maxFormBytes bounds a form post: the largest form (a bulk confirmation) is a few KB.
const maxFormBytes = 64 << 10

// uiHeaders are the strict headers of every UI response (common sets the others); they also
// bound the body a form may send.
func uiHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", uiCSP)
		w.Header().Set("Cross-Origin-Opener-Policy", "same-origin")
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		next.ServeHTTP(w, r)
	})
}

// render executes page into a buffer (a template error is a 500, not half a page) and sends it.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, page string, v view) {
	t, ok := s.ui.pages[page]
	if !ok {
		s.uiFail(w, r, fmt.Errorf("no template %q", page))
		return
	}
	v.User = currentUser(r)
	v.CSRF = nosurf.Token(r)
	if v.User.ID != 0 {
		v.Flash = s.sessions.PopString(r.Context(), sessFlash)
		v.FlashErr = s.sessions.PopString(r.Context(), sessFlashErr)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		s.uiFail(w, r, fmt.Errorf("render %s: %w", page, err))
		return
	}
	writeBody(w, r, status, "text/html; charset=utf-8", buf.Bytes(), nil)
}

// uiFail logs an unexpected error and answers a plain 500 page.
func (s *Server) uiFail(w http.ResponseWriter, r *http.Request, err error) {
	s.log.ErrorContext(r.Context(), "page failed", slog.String("request_id", requestID(r)),
		slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Any("error", err))
	msg := "Internal error (request " + requestID(r) + "); see the server log."
	writeBody(w, r, http.StatusInternalServerError, "text/html; charset=utf-8",
		[]byte("<!doctype html><title>Error</title><h1>Error</h1><p>"+template.HTMLEscapeString(msg)+"</p>"), nil)
}

// publicError is the status and the text a person may see for err; ok is false for an
// unexpected error (a 500 whose text stays in the log).
func publicError(err error) (status int, msg string, ok bool) {
	var ve *appliance.ValidationError
	var rl *appliance.RateLimitedError
	switch {
	case errors.As(err, &ve):
		return http.StatusBadRequest, ve.Message, true
	case errors.As(err, &rl):
		return http.StatusTooManyRequests, "Too many requests; retry in a moment.", true
	case errors.As(err, new(*http.MaxBytesError)):
		return http.StatusRequestEntityTooLarge, "The form is too large.", true
	}
	if status, _, public, _, ok := kindOf(err); ok {
		return status, public, true
	}
	return http.StatusInternalServerError, "", false
}

// listOutcome is the status of a list page and the refusal it shows above its filters; ok
// is false when err was unexpected and the error page has been sent.
func (s *Server) listOutcome(w http.ResponseWriter, r *http.Request, err error) (status int, invalid string, ok bool) {
	if err == nil {
		return http.StatusOK, "", true
	}
	if status, invalid, ok = publicError(err); !ok {
		s.uiFail(w, r, err)
	}
	return status, invalid, ok
}

// uiError answers a page with the error's public text (or a logged 500).
func (s *Server) uiError(w http.ResponseWriter, r *http.Request, err error) {
	status, msg, ok := publicError(err)
	if !ok {
		s.uiFail(w, r, err)
		return
	}
	s.render(w, r, status, "error", view{Title: http.StatusText(status), Data: msg})
}

// done ends a form post: on success a flash and a redirect (post/redirect/get); a refusal
// the person can fix goes back to the form as a flash; anything else is an error page.
func (s *Server) done(w http.ResponseWriter, r *http.Request, to string, err error, ok string) {
	if err != nil {
		status, msg, public := publicError(err)
		if !public || status == http.StatusForbidden || status == http.StatusNotFound {
			s.uiError(w, r, err)
			return
		}
		s.sessions.Put(r.Context(), sessFlashErr, msg)
	} else if ok != "" {
		s.sessions.Put(r.Context(), sessFlash, ok)
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// serveStatic answers the embedded CSS, JS and images; their URLs carry a version, so they
// may be cached.
func (s *Server) serveStatic(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/static/")
	f, ok := s.ui.static[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=86400")
	writeBody(w, r, http.StatusOK, f.contentType, f.body, f.gz)
}

// uiCSRF checks the nosurf token of unsafe requests: the hidden csrf_token field of every
// form. A refusal is a page.
func (s *Server) uiCSRF(next http.Handler) http.Handler {
	h := nosurf.New(next)
	h.SetBaseCookie(http.Cookie{Path: "/", HttpOnly: true, Secure: s.opts.TLSCert != "", SameSite: http.SameSiteLaxMode})
	h.SetIsTLSFunc(func(r *http.Request) bool { return r.TLS != nil })
	h.SetFailureHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.log.Info("csrf refused", slog.Any("reason", nosurf.Reason(r)))
		s.render(w, r, http.StatusForbidden, "error", view{Title: "Forbidden",
			Data: "The form was stale or did not come from this site. Go back, reload the page and try again."})
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") == "" && r.Header.Get("Referer") == "" && r.Header.Get("Sec-Fetch-Site") == "" {
			r.Header.Set("Sec-Fetch-Site", "same-origin") // not a browser: the token check stays
		}
		h.ServeHTTP(w, r)
	})
}

// uiUser admits a request with a session of the given stage, else sends the person to the
// step due; admin pages refuse other roles with 403.
func (s *Server) uiUser(st stage, admin bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		uid := s.sessions.GetInt64(ctx, sessUserID)
		u, err := s.accounts.User(ctx, uid)
		if err == nil && s.sessions.GetInt64(ctx, sessGeneration) != u.SessionGeneration {
			err = appliance.ErrNotFound
		}
		if uid == 0 || errors.Is(err, appliance.ErrNotFound) {
			if uid != 0 {
				_ = s.sessions.Destroy(ctx)
			}
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		if err != nil {
			s.uiFail(w, r, err)
			return
		}
		pending, pwStep := s.sessions.GetBool(ctx, sessTOTPPending), s.accounts.PasswordStep(u)
		switch {
		case pending && st != stageTOTP && st != stageAny:
			http.Redirect(w, r, "/login/totp", http.StatusSeeOther)
			return
		case st == stageTOTP && !pending:
			http.Redirect(w, r, "/", http.StatusSeeOther)
			return
		case st == stageFull && pwStep != "":
			http.Redirect(w, r, "/password", http.StatusSeeOther)
			return
		}
		r = r.WithContext(contextWithUser(ctx, u))
		if admin && u.Role != appliance.RoleOrgAdmin {
			s.uiError(w, r, errAdminOnly)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// page is the chain of a UI page: strict headers, the session, the person at the stage due
// (and the admin role when asked), the per-user budget, then the CSRF check.
func (s *Server) page(st stage, admin bool) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return uiHeaders(s.sessions.LoadAndSave(s.uiUser(st, admin, s.limited(s.lim.global, byUser, s.uiCSRF(h)))))
	}
}

// uiOpen is the chain of the sign-in form: no person yet, the login limit per client
// address, and the CSRF check (no login CSRF).
func (s *Server) uiOpen(l *keyedLimiter) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return uiHeaders(s.sessions.LoadAndSave(s.limited(l, byIP, s.uiCSRF(h))))
	}
}

func (s *Server) uiStatic(h http.Handler) http.Handler {
	return uiHeaders(s.limited(s.lim.global, byIP, h))
}

// formTime formats a time for a page ("" when unset).
func formTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04")
}
