package web

import (
	"context"
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"
	"github.com/justinas/nosurf"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
)

type userJSON struct {
	ID             int64      `json:"id"`
	Username       string     `json:"username"`
	OrganizationID int64      `json:"organization_id"`
	Role           string     `json:"role"`
	TOTPEnabled    bool       `json:"totp_enabled"`
	LastLoginAt    *time.Time `json:"last_login_at"`
}

func toUserJSON(u appliance.User) userJSON {
	return userJSON{ID: u.ID, Username: u.Username, OrganizationID: u.OrganizationID, Role: string(u.Role),
		TOTPEnabled: u.TOTPEnabled, LastLoginAt: timeOrNil(u.LastLoginAt)}
}

// authState is the body of login, me and the second-factor step: who is signed in and what
// must happen next (null when nothing).
type authState struct {
	User     userJSON `json:"user"`
	NextStep *string  `json:"next_step"`
}

func newAuthState(u appliance.User, next string) authState {
	st := authState{User: toUserJSON(u)}
	if next != "" {
		st.NextStep = &next
	}
	return st
}

type loginRequest struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	var req loginRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Username == "" || req.Password == "" {
		s.writeError(w, r, appliance.Invalid("username", "required", "username and password are required"))
		return
	}
	account := accountKey(req.Username)
	if ok, wait := s.lim.accounts.begin(account); !ok {
		s.writeError(w, r, &appliance.RateLimitedError{RetryAfter: wait})
		return
	}
	res, err := s.accounts.Login(r.Context(), req.Username, req.Password)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.lim.accounts.succeeded(account)
	ctx := r.Context()
	if err := s.sessions.RenewToken(ctx); err != nil { // a new token at every login: no fixation
		s.writeError(w, r, err)
		return
	}
	s.sessions.Put(ctx, sessUserID, res.User.ID)
	s.sessions.Put(ctx, sessGeneration, res.User.SessionGeneration)
	s.sessions.Put(ctx, sessTOTPPending, res.NextStep == accounts.NextStepTOTP)
	writeJSON(w, http.StatusOK, newAuthState(res.User, res.NextStep))
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if err := s.sessions.Destroy(r.Context()); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) me(w http.ResponseWriter, r *http.Request) {
	u := currentUser(r)
	next := s.accounts.PasswordStep(u)
	if s.sessions.GetBool(r.Context(), sessTOTPPending) {
		next = accounts.NextStepTOTP
	}
	writeJSON(w, http.StatusOK, newAuthState(u, next))
}

func (s *Server) csrfToken(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"csrf_token": nosurf.Token(r)})
}

type passwordRequest struct {
	CurrentPassword string `json:"current_password"`
	NewPassword     string `json:"new_password"`
}

func (s *Server) changePassword(w http.ResponseWriter, r *http.Request) {
	var req passwordRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	u := currentUser(r)
	gen, err := s.accounts.ChangePassword(r.Context(), u.ID, req.CurrentPassword, req.NewPassword)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.sessions.RenewToken(r.Context()); err != nil {
		s.writeError(w, r, err)
		return
	}
	// Every other session of the user holds the old generation and is over; this one goes on.
	s.sessions.Put(r.Context(), sessGeneration, gen)
	w.WriteHeader(http.StatusNoContent)
}

type totpSetupResponse struct {
	Secret     string `json:"secret"`
	OTPAuthURL string `json:"otpauth_url"`
}

func (s *Server) totpSetup(w http.ResponseWriter, r *http.Request) {
	secret, url, err := s.accounts.BeginTOTP(r.Context(), currentUser(r).ID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, totpSetupResponse{Secret: secret, OTPAuthURL: url})
}

type totpCodeRequest struct {
	Code string `json:"code"`
}

// totpChangeRequest turns a person's own second factor on or off: both need the password
// and a current code.
type totpChangeRequest struct {
	Password string `json:"password"`
	Code     string `json:"code"`
}

func (s *Server) totpEnable(w http.ResponseWriter, r *http.Request) {
	s.totpChange(w, r, s.accounts.EnableTOTP)
}

func (s *Server) totpDisable(w http.ResponseWriter, r *http.Request) {
	s.totpChange(w, r, s.accounts.DisableTOTP)
}

func (s *Server) totpChange(w http.ResponseWriter, r *http.Request, change func(ctx context.Context, userID int64, password, code string) error) {
	var req totpChangeRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := change(r.Context(), currentUser(r).ID, req.Password, req.Code); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// totpReset is an organization admin turning off the second factor of a person of the
// organization (a lost authenticator); the person enrols again after the next login.
func (s *Server) totpReset(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "user")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	u, err := s.accounts.ResetTOTP(r.Context(), currentUser(r).OrganizationID, id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	u.TOTPEnabled = false
	writeJSON(w, http.StatusOK, toUserJSON(u))
}

func (s *Server) totpVerify(w http.ResponseWriter, r *http.Request) {
	var req totpCodeRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	u := currentUser(r)
	next, err := s.accounts.VerifyTOTP(r.Context(), u.ID, req.Code)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ctx := r.Context()
	if err := s.sessions.RenewToken(ctx); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.sessions.Put(ctx, sessTOTPPending, false)
	writeJSON(w, http.StatusOK, newAuthState(u, next))
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}
