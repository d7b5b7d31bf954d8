package web

import (
	"bytes"
	"image/png"
	"net/http"
	"strings"

	"github.com/pquerna/otp"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/notify"
)

type accountView struct {
	Enrolling   bool // a secret waits for its first code
	Secret      string
	Prefs       appliance.NotifyPrefs
	MailEnabled bool // an SMTP server is configured
	HasNotify   bool
}

func (s *Server) accountPage(w http.ResponseWriter, r *http.Request) {
	var v accountView
	if s.notify != nil {
		p, err := s.notify.Prefs(r.Context(), currentUser(r))
		if err != nil {
			s.uiError(w, r, err)
			return
		}
		v.Prefs, v.MailEnabled, v.HasNotify = p, s.notify.MailEnabled(), true
	}
	if raw := s.sessions.GetString(r.Context(), sessTOTPURL); raw != "" && !currentUser(r).TOTPEnabled {
		if key, err := otp.NewKeyFromURL(raw); err == nil {
			v.Enrolling, v.Secret = true, key.Secret()
		}
	}
	s.render(w, r, http.StatusOK, "account", view{Title: "Your account", Nav: "account", Data: v})
}

// totpSetupSubmit starts an enrolment: a new secret, shown as a QR code and as text.
func (s *Server) totpSetupSubmit(w http.ResponseWriter, r *http.Request) {
	_, url, err := s.accounts.BeginTOTP(r.Context(), currentUser(r).ID)
	if err == nil {
		s.sessions.Put(r.Context(), sessTOTPURL, url)
	}
	s.done(w, r, "/account", err, "Scan the code with your authenticator app, then confirm with a code.")
}

// totpQR is the QR code of the enrolment in progress, as a PNG image of this server (the
// CSP allows no inline script, and the secret never appears in a URL).
func (s *Server) totpQR(w http.ResponseWriter, r *http.Request) {
	key, err := otp.NewKeyFromURL(s.sessions.GetString(r.Context(), sessTOTPURL))
	if err != nil || currentUser(r).TOTPEnabled {
		http.NotFound(w, r)
		return
	}
	img, err := key.Image(200, 200)
	if err != nil {
		s.uiFail(w, r, err)
		return
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		s.uiFail(w, r, err)
		return
	}
	writeBody(w, r, http.StatusOK, "image/png", buf.Bytes(), nil)
}

func (s *Server) totpEnableSubmit(w http.ResponseWriter, r *http.Request) {
	err := s.accounts.EnableTOTP(r.Context(), currentUser(r).ID, r.PostFormValue("password"), r.PostFormValue("code"))
	if err == nil {
		s.sessions.Remove(r.Context(), sessTOTPURL)
	}
	s.done(w, r, "/account", err, "Two-factor authentication is on.")
}

func (s *Server) totpDisableSubmit(w http.ResponseWriter, r *http.Request) {
	err := s.accounts.DisableTOTP(r.Context(), currentUser(r).ID, r.PostFormValue("password"), r.PostFormValue("code"))
	s.done(w, r, "/account", err, "Two-factor authentication is off.")
}

// mailPrefsSubmit saves the person's mail choices: a digest (off, daily, weekly) and mail at
// once for KEV findings on critical products; both need an address.
func (s *Server) mailPrefsSubmit(w http.ResponseWriter, r *http.Request) {
	if s.notify == nil {
		http.NotFound(w, r)
		return
	}
	email, digest, kev := strings.TrimSpace(r.PostFormValue("email")), r.PostFormValue("digest"), r.PostFormValue("kev_immediate") == "1"
	_, err := s.notify.SavePrefs(r.Context(), currentUser(r), notify.PrefsInput{Email: &email, Digest: &digest, KEVImmediate: &kev})
	s.done(w, r, "/account", err, "Mail choices saved.")
}
