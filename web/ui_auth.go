package web

import (
	"net/http"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/accounts"
)

// localPath keeps a post-login destination on this site ("/" otherwise).
func localPath(p string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") {
		return "/"
	}
	return p
}

type loginView struct {
	Next, Username string
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "login", view{Title: "Sign in", Data: loginView{Next: localPath(r.URL.Query().Get("next"))}})
}

// loginSubmit checks the password, opens the session and sends the person to the step due.
func (s *Server) loginSubmit(w http.ResponseWriter, r *http.Request) {
	username, password := r.PostFormValue("username"), r.PostFormValue("password")
	lv := loginView{Next: localPath(r.PostFormValue("next")), Username: username}
	account := accountKey(username)
	if ok, wait := s.lim.accounts.begin(account); !ok {
		s.loginRefused(w, r, lv, &appliance.RateLimitedError{RetryAfter: wait})
		return
	}
	res, err := s.accounts.Login(r.Context(), username, password)
	if err != nil {
		s.loginRefused(w, r, lv, err)
		return
	}
	s.lim.accounts.succeeded(account)
	ctx := r.Context()
	if err := s.sessions.RenewToken(ctx); err != nil {
		s.uiFail(w, r, err)
		return
	}
	s.sessions.Put(ctx, sessUserID, res.User.ID)
	s.sessions.Put(ctx, sessGeneration, res.User.SessionGeneration)
	s.sessions.Put(ctx, sessTOTPPending, res.NextStep == accounts.NextStepTOTP)
	http.Redirect(w, r, nextStepPath(res.NextStep, lv.Next), http.StatusSeeOther)
}

func nextStepPath(step, dest string) string {
	switch step {
	case accounts.NextStepTOTP:
		return "/login/totp"
	case accounts.NextStepPasswordChange:
		return "/password"
	}
	return dest
}

func (s *Server) loginRefused(w http.ResponseWriter, r *http.Request, lv loginView, err error) {
	status, msg, ok := publicError(err)
	if !ok {
		s.uiFail(w, r, err)
		return
	}
	s.render(w, r, status, "login", view{Title: "Sign in", FlashErr: msg, Data: lv})
}

func (s *Server) logoutSubmit(w http.ResponseWriter, r *http.Request) {
	if err := s.sessions.Destroy(r.Context()); err != nil {
		s.uiFail(w, r, err)
		return
	}
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

func (s *Server) totpPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "totp", view{Title: "Two-factor code"})
}

func (s *Server) totpSubmit(w http.ResponseWriter, r *http.Request) {
	next, err := s.accounts.VerifyTOTP(r.Context(), currentUser(r).ID, r.PostFormValue("code"))
	if err != nil {
		status, msg, ok := publicError(err)
		if !ok {
			s.uiFail(w, r, err)
			return
		}
		s.render(w, r, status, "totp", view{Title: "Two-factor code", FlashErr: msg})
		return
	}
	ctx := r.Context()
	if err := s.sessions.RenewToken(ctx); err != nil {
		s.uiFail(w, r, err)
		return
	}
	s.sessions.Put(ctx, sessTOTPPending, false)
	http.Redirect(w, r, nextStepPath(next, "/"), http.StatusSeeOther)
}

func (s *Server) passwordPage(w http.ResponseWriter, r *http.Request) {
	due := s.accounts.PasswordStep(currentUser(r)) != ""
	s.render(w, r, http.StatusOK, "password", view{Title: "Change password", Nav: "account", Data: due})
}

// passwordSubmit changes the person's password; this session goes on, every other ends.
func (s *Server) passwordSubmit(w http.ResponseWriter, r *http.Request) {
	if r.PostFormValue("new_password") != r.PostFormValue("confirm_password") {
		s.done(w, r, "/password", appliance.Invalid("confirm_password", "match", "the two new passwords differ"), "")
		return
	}
	gen, err := s.accounts.ChangePassword(r.Context(), currentUser(r).ID, r.PostFormValue("current_password"), r.PostFormValue("new_password"))
	if err != nil {
		s.done(w, r, "/password", err, "")
		return
	}
	if err := s.sessions.RenewToken(r.Context()); err != nil {
		s.uiFail(w, r, err)
		return
	}
	s.sessions.Put(r.Context(), sessGeneration, gen)
	s.done(w, r, "/account", nil, "Your password was changed; your other sessions have ended.")
}
