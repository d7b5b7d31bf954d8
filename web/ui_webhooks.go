package web

import (
	"net/http"
	"strconv"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/notify"
)

type webhookView struct {
	appliance.Webhook
	Deliveries []appliance.WebhookDelivery // the last 20
}

type webhooksView struct {
	Hooks     []webhookView
	Events    []string
	NewSecret string // the secret of a webhook just created, shown once
}

// webhooksPage lists the organization's webhooks, each with its recent delivery log.
func (s *Server) webhooksPage(w http.ResponseWriter, r *http.Request) { s.renderWebhooks(w, r, "") }

func (s *Server) renderWebhooks(w http.ResponseWriter, r *http.Request, secret string) {
	if !s.hasNotify(w, r) {
		return
	}
	hooks, err := s.notify.Webhooks(r.Context(), currentUser(r))
	v := webhooksView{Events: notify.EventTypes, NewSecret: secret}
	for _, h := range hooks {
		var ds []appliance.WebhookDelivery
		if ds, err = s.notify.Deliveries(r.Context(), currentUser(r), h.ID); err != nil {
			break
		}
		v.Hooks = append(v.Hooks, webhookView{Webhook: h, Deliveries: ds[:min(20, len(ds))]})
	}
	if err != nil {
		s.uiError(w, r, err)
		return
	}
	s.render(w, r, http.StatusOK, "webhooks", view{Title: "Webhooks", Nav: "admin", Data: v})
}

// webhookCreateSubmit adds a webhook and shows its secret on this answer only.
func (s *Server) webhookCreateSubmit(w http.ResponseWriter, r *http.Request) {
	if !s.hasNotify(w, r) {
		return
	}
	_ = r.ParseForm()
	url, format, sev, name := r.PostForm.Get("url"), r.PostForm.Get("format"), r.PostForm.Get("min_severity"), r.PostForm.Get("name")
	events := r.PostForm["events"]
	in := notify.WebhookInput{Name: &name, URL: &url, Format: &format, Events: &events, MinSeverity: &sev}
	if score, err := strconv.ParseFloat(r.PostForm.Get("min_score"), 64); err == nil {
		in.MinScore = &score
	}
	h, err := s.notify.CreateWebhook(r.Context(), currentUser(r), in)
	if err != nil {
		s.done(w, r, "/admin/webhooks", err, "")
		return
	}
	s.renderWebhooks(w, r, h.Secret)
}

func (s *Server) webhookDeleteSubmit(w http.ResponseWriter, r *http.Request) {
	if !s.hasNotify(w, r) {
		return
	}
	id, err := webhookID(r)
	if err == nil {
		err = s.notify.DeleteWebhook(r.Context(), currentUser(r), id)
	}
	s.done(w, r, "/admin/webhooks", err, "Webhook removed.")
}

func (s *Server) webhookTestSubmit(w http.ResponseWriter, r *http.Request) {
	if !s.hasNotify(w, r) {
		return
	}
	id, err := webhookID(r)
	var d appliance.WebhookDelivery
	if err == nil {
		d, err = s.notify.Test(r.Context(), currentUser(r), id)
	}
	msg := "Test delivered."
	if err == nil && d.Status != appliance.DeliveryDelivered {
		msg = "Test not delivered: " + d.LastError + " (see the log below)."
	}
	s.done(w, r, "/admin/webhooks", err, msg)
}

// hasNotify answers 404 when the server runs without notifications (tests, licence server).
func (s *Server) hasNotify(w http.ResponseWriter, r *http.Request) bool {
	if s.notify == nil {
		s.uiError(w, r, appliance.NotFound("notifications are not available"))
	}
	return s.notify != nil
}
