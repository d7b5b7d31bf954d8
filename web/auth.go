package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/justinas/nosurf"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Session keys.
const (
	sessUserID      = "uid"
	sessTOTPPending = "totp_pending"
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

func currentAgent(r *http.Request) appliance.AgentPrincipal {
	p, _ := r.Context().Value(agentKey).(appliance.AgentPrincipal)
	return p
}
