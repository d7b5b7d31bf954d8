package web

import (
	"net/http"
	"strconv"

	"github.com/julienschmidt/httprouter"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/kb"
	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"
)

type keysView struct {
	Keys      []appliance.AgentKey
	NewKey    string // the plaintext of a key just created, shown once
	NewName   string
	ServerURL string
}

// orgName is the name of the signed-in person's organization (the key services take names).
func (s *Server) orgName(r *http.Request) (string, error) {
	org, err := s.accounts.OrganizationByID(r.Context(), currentUser(r).OrganizationID)
	return org.Name, err
}

func (s *Server) keysPage(w http.ResponseWriter, r *http.Request) {
	s.renderKeys(w, r, keysView{})
}

func (s *Server) renderKeys(w http.ResponseWriter, r *http.Request, v keysView) {
	org, err := s.orgName(r)
	if err == nil {
		v.Keys, err = s.accounts.AgentKeys(r.Context(), org)
	}
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	v.ServerURL = "http://" + r.Host
	if r.TLS != nil {
		v.ServerURL = "https://" + r.Host
	}
	s.render(w, r, http.StatusOK, "keys", view{Title: "Agent keys", Nav: "admin", Data: v})
}

// keyCreateSubmit issues a key and shows it on this answer only (never stored in plain).
func (s *Server) keyCreateSubmit(w http.ResponseWriter, r *http.Request) {
	scopes := []string{appliance.ScopeAgent}
	if r.PostFormValue("metrics") != "" {
		scopes = append(scopes, appliance.ScopeMetrics)
	}
	org, err := s.orgName(r)
	var plain string
	var k appliance.AgentKey
	if err == nil {
		plain, k, err = s.accounts.CreateAgentKey(r.Context(), org, r.PostFormValue("name"), scopes)
	}
	if err != nil {
		s.done(w, r, "/admin/keys", err, "")
		return
	}
	s.renderKeys(w, r, keysView{NewKey: plain, NewName: k.Name})
}

func (s *Server) keyRevokeSubmit(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "key")
	var org string
	if err == nil {
		org, err = s.orgName(r)
	}
	if err == nil {
		err = s.accounts.RevokeAgentKey(r.Context(), org, id)
	}
	s.done(w, r, "/admin/keys", err, "Key revoked; agents using it are refused from now on.")
}

func (s *Server) usersPage(w http.ResponseWriter, r *http.Request) {
	users, err := s.accounts.Users(r.Context(), currentUser(r).OrganizationID)
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "users", view{Title: "Users", Nav: "admin", Data: users})
}

func (s *Server) userCreateSubmit(w http.ResponseWriter, r *http.Request) {
	org, err := s.orgName(r)
	if err == nil {
		_, err = s.accounts.CreateUser(r.Context(), org, r.PostFormValue("username"), appliance.Role(r.PostFormValue("role")), r.PostFormValue("password"))
	}
	s.done(w, r, "/admin/users", err, "User created. Hand over the password in person; they can change it under their account.")
}

// userAction runs one admin action on user :id of the organization and returns to the list.
func (s *Server) userAction(w http.ResponseWriter, r *http.Request, act func(id int64) error, ok string) {
	id, err := pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "user")
	if err == nil {
		err = act(id)
	}
	s.done(w, r, "/admin/users", err, ok)
}

func (s *Server) userRoleSubmit(w http.ResponseWriter, r *http.Request) {
	s.userAction(w, r, func(id int64) error {
		_, err := s.accounts.SetRole(r.Context(), currentUser(r), id, appliance.Role(r.PostFormValue("role")))
		return err
	}, "Role changed.")
}

func (s *Server) userTOTPResetSubmit(w http.ResponseWriter, r *http.Request) {
	s.userAction(w, r, func(id int64) error {
		_, err := s.accounts.ResetTOTP(r.Context(), currentUser(r).OrganizationID, id)
		return err
	}, "Two-factor authentication reset; the person enrols again from their account page.")
}

func (s *Server) userForcePasswordSubmit(w http.ResponseWriter, r *http.Request) {
	s.userAction(w, r, func(id int64) error {
		_, err := s.accounts.ForcePasswordChange(r.Context(), currentUser(r).OrganizationID, id)
		return err
	}, "The person must change the password at the next request.")
}

type settingsView struct {
	Policy appliance.SLAPolicy
	KB     *kb.Status // nil: no licence or KB sync configured
	KBErr  string
}

func (s *Server) settingsPage(w http.ResponseWriter, r *http.Request) {
	p, err := s.remediation.Policy(r.Context(), currentUser(r).OrganizationID)
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	v := settingsView{Policy: p}
	if s.kbsync != nil {
		st, err := s.kbsync.Status(r.Context())
		if err != nil {
			s.uiError(w, r, err)
			return
		}
		v.KB = &st
	}
	s.render(w, r, http.StatusOK, "settings", view{Title: "Settings", Nav: "admin", Data: v})
}

func (s *Server) slaSubmit(w http.ResponseWriter, r *http.Request) {
	days := func(name string) *int {
		n, err := strconv.Atoi(r.PostFormValue(name))
		if err != nil {
			n = -1 // refused by the service's range check, naming the field
		}
		return &n
	}
	in := remediation.PolicyInput{Critical: days("critical"), High: days("high"), Medium: days("medium"), Low: days("low")}
	_, err := s.remediation.UpdatePolicy(r.Context(), currentUser(r), in)
	s.done(w, r, "/admin/settings", err, "SLA policy saved.")
}
