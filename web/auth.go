package web

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/justinas/nosurf"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
)

// Session keys.
const (
	sessUserID      = "uid"
	sessTOTPPending = "totp_pending"
	sessGeneration  = "generation" // the user's session generation at login (see User.SessionGeneration)
)

// stage says which half-finished logins a route accepts.
type stage int

const (
	stageFull     stage = iota // fully signed in
	stageAny                   // any signed-in session (me, logout, csrf)
	stageTOTP                  // only a session whose second factor is due
	stagePassword              // signed in, possibly with an expired password
)

var (
	errNoSession         = appliance.Unauthorized("no valid session; log in first")
	errTOTPDue           = appliance.Forbidden("complete two-factor authentication first")
	errPasswordDue       = appliance.Forbidden("your password has expired; change it first")
	errAdminOnly         = appliance.Forbidden("this needs the org_admin role")
	errNoSecondFactorDue = appliance.Conflict("no two-factor code is due for this session")
)

// requireAdmin admits only organization admins (after requireUser).
func (s *Server) requireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if currentUser(r).Role != appliance.RoleOrgAdmin {
			s.writeError(w, r, errAdminOnly)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireUser admits a request only with a session of the given stage and puts its user in
// the context.
func (s *Server) requireUser(st stage, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		uid := s.sessions.GetInt64(ctx, sessUserID)
		if uid == 0 {
			s.writeError(w, r, errNoSession)
			return
		}
		u, err := s.accounts.User(ctx, uid)
		if err == nil && s.sessions.GetInt64(ctx, sessGeneration) != u.SessionGeneration {
			err = appliance.ErrNotFound // the password changed since this session began
		}
		if errors.Is(err, appliance.ErrNotFound) {
			_ = s.sessions.Destroy(ctx)
			s.writeError(w, r, errNoSession)
			return
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if err := s.stageError(st, s.sessions.GetBool(ctx, sessTOTPPending), s.accounts.PasswordStep(u)); err != nil {
			s.writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(ctx, userKey, u)))
	})
}

func (s *Server) stageError(st stage, totpPending bool, passwordStep string) error {
	switch st {
	case stageAny:
		return nil
	case stageTOTP:
		if !totpPending {
			return errNoSecondFactorDue
		}
		return nil
	}
	if totpPending {
		return errTOTPDue
	}
	if st == stageFull && passwordStep != "" {
		return errPasswordDue
	}
	return nil
}

func currentUser(r *http.Request) appliance.User {
	u, _ := r.Context().Value(userKey).(appliance.User)
	return u
}

// csrf checks the X-CSRFToken header on unsafe methods (nosurf) and hands the current token
// out in the X-CSRFToken response header.
func (s *Server) csrf(next http.Handler) http.Handler {
	withToken := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-CSRFToken", nosurf.Token(r))
		next.ServeHTTP(w, r)
	})
	h := nosurf.New(withToken)
	h.SetBaseCookie(http.Cookie{Path: "/", HttpOnly: true, Secure: s.opts.TLSCert != "", SameSite: http.SameSiteLaxMode})
	h.SetIsTLSFunc(func(r *http.Request) bool { return r.TLS != nil })
	h.SetFailureHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeErrorBody(w, http.StatusForbidden, "csrf_failed",
			"missing or invalid CSRF token: send the token of GET /api/auth/csrf in the X-CSRFToken header", errorDetails{Field: "X-CSRFToken", Constraint: "csrf"})
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if t := r.Header.Get("X-CSRFToken"); t != "" {
			r.Header.Set(nosurf.HeaderName, t)
		}
		// A request with none of Origin, Referer and Sec-Fetch-Site cannot come from a
		// browser (scripts, CLI clients): skip nosurf's origin check, keep its token check.
		if r.Header.Get("Origin") == "" && r.Header.Get("Referer") == "" && r.Header.Get("Sec-Fetch-Site") == "" {
			r.Header.Set("Sec-Fetch-Site", "same-origin")
		}
		h.ServeHTTP(w, r)
	})
}

// loginRequestCheck refuses a login a browser sends from another site (login CSRF: a
// session of the attacker's account in the victim's browser) and any login that is not
// JSON. Cross-site pages can POST text/plain or forms without a preflight, never JSON.
// The origin rule is nosurf's for every other unsafe request: Sec-Fetch-Site same-origin,
// else an Origin, else a Referer of this scheme and host. A request carrying none of the
// three cannot come from a browser (scripts, CLI clients) and passes.
func (s *Server) loginRequestCheck(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !sameOriginOrScript(r) {
			writeErrorBody(w, http.StatusForbidden, "csrf_failed", "cross-site login refused: log in from this server's own pages",
				errorDetails{Field: "Origin", Constraint: "same_origin"})
			return
		}
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			writeErrorBody(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "send the login as Content-Type: application/json",
				errorDetails{Field: "Content-Type", Constraint: "application/json"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func sameOriginOrScript(r *http.Request) bool {
	site, origin, referer := r.Header.Get("Sec-Fetch-Site"), r.Header.Get("Origin"), r.Header.Get("Referer")
	if site == "same-origin" || (site == "" && origin == "" && referer == "") {
		return true
	}
	self := url.URL{Scheme: "http", Host: r.Host}
	if r.TLS != nil {
		self.Scheme = "https"
	}
	from := origin
	if from == "" || from == "null" {
		from = referer
	}
	u, err := url.Parse(from)
	return err == nil && from != "" && u.Scheme == self.Scheme && strings.EqualFold(u.Host, self.Host)
}

// agentAuth admits requests carrying an agent key with the agent scope (X-Agent-Key or
// X-API-Key) and puts the principal in the context. Sessions play no part.
func (s *Server) agentAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("X-Agent-Key")
		if key == "" {
			key = r.Header.Get("X-API-Key")
		}
		p, err := s.accounts.AuthenticateAgent(r.Context(), key, appliance.ScopeAgent)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), agentKey, p)))
	})
}

func currentAgent(r *http.Request) accounts.AgentPrincipal {
	p, _ := r.Context().Value(agentKey).(accounts.AgentPrincipal)
	return p
}
