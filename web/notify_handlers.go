package web

import (
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/notify"
)

type webhookJSON struct {
	ID          int64     `json:"id"`
	Name        string    `json:"name"`
	URL         string    `json:"url"`
	Format      string    `json:"format"`
	Events      []string  `json:"events"`
	MinSeverity *string   `json:"min_severity"`
	MinScore    float64   `json:"min_score"`
	Enabled     bool      `json:"enabled"`
	Secret      string    `json:"secret,omitempty"` // only in the answer to POST
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

func toWebhookJSON(w appliance.Webhook) webhookJSON {
	j := webhookJSON{ID: w.ID, Name: w.Name, URL: w.URL, Format: w.Format, Events: w.Events, MinScore: w.MinScore,
		Enabled: w.Enabled, CreatedAt: w.CreatedAt.UTC(), UpdatedAt: w.UpdatedAt.UTC()}
	if w.MinSeverity != "" {
		j.MinSeverity = &w.MinSeverity
	}
	return j
}

type webhookRequest struct {
	Name        *string   `json:"name"`
	URL         *string   `json:"url"`
	Format      *string   `json:"format"`
	Events      *[]string `json:"events"`
	MinSeverity *string   `json:"min_severity"`
	MinScore    *float64  `json:"min_score"`
	Enabled     *bool     `json:"enabled"`
}

func (q webhookRequest) input() notify.WebhookInput {
	return notify.WebhookInput{Name: q.Name, URL: q.URL, Format: q.Format, Events: q.Events, MinSeverity: q.MinSeverity,
		MinScore: q.MinScore, Enabled: q.Enabled}
}

type deliveryJSON struct {
	ID             int64      `json:"id"`
	DeliveryID     string     `json:"delivery_id"`
	Event          string     `json:"event"`
	Status         string     `json:"status"`
	Attempts       int        `json:"attempts"`
	NextAttemptAt  *time.Time `json:"next_attempt_at"`
	LastStatusCode *int       `json:"last_status_code"`
	LastError      *string    `json:"last_error"`
	CreatedAt      time.Time  `json:"created_at"`
	DeliveredAt    *time.Time `json:"delivered_at"`
}

func toDeliveryJSON(d appliance.WebhookDelivery) deliveryJSON {
	j := deliveryJSON{ID: d.ID, DeliveryID: d.DeliveryID, Event: d.EventType, Status: d.Status, Attempts: d.Attempts,
		CreatedAt: d.CreatedAt.UTC(), DeliveredAt: timeOrNil(d.DeliveredAt)}
	if d.Status == appliance.DeliveryPending {
		j.NextAttemptAt = timeOrNil(d.NextAttemptAt)
	}
	if d.LastStatusCode != 0 {
		j.LastStatusCode = &d.LastStatusCode
	}
	if d.LastError != "" {
		j.LastError = &d.LastError
	}
	return j
}

func webhookID(r *http.Request) (int64, error) {
	return pathID(httprouter.ParamsFromContext(r.Context()).ByName("id"), "webhook")
}

func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request) {
	hooks, err := s.notify.Webhooks(r.Context(), currentUser(r))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := struct {
		Items []webhookJSON `json:"items"`
	}{Items: []webhookJSON{}}
	for _, h := range hooks {
		out.Items = append(out.Items, toWebhookJSON(h))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request) {
	var req webhookRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	hook, err := s.notify.CreateWebhook(r.Context(), currentUser(r), req.input())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	j := toWebhookJSON(hook)
	j.Secret = hook.Secret
	writeJSON(w, http.StatusCreated, j)
}

func (s *Server) getWebhook(w http.ResponseWriter, r *http.Request) {
	id, err := webhookID(r)
	if err == nil {
		var hook appliance.Webhook
		if hook, err = s.notify.Webhook(r.Context(), currentUser(r), id); err == nil {
			writeJSON(w, http.StatusOK, toWebhookJSON(hook))
			return
		}
	}
	s.writeError(w, r, err)
}

func (s *Server) updateWebhook(w http.ResponseWriter, r *http.Request) {
	id, err := webhookID(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var req webhookRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	hook, err := s.notify.UpdateWebhook(r.Context(), currentUser(r), id, req.input())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toWebhookJSON(hook))
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request) {
	id, err := webhookID(r)
	if err == nil {
		err = s.notify.DeleteWebhook(r.Context(), currentUser(r), id)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) webhookDeliveries(w http.ResponseWriter, r *http.Request) {
	id, err := webhookID(r)
	var ds []appliance.WebhookDelivery
	if err == nil {
		ds, err = s.notify.Deliveries(r.Context(), currentUser(r), id)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	out := struct {
		Items []deliveryJSON `json:"items"`
	}{Items: []deliveryJSON{}}
	for _, d := range ds {
		out.Items = append(out.Items, toDeliveryJSON(d))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) testWebhook(w http.ResponseWriter, r *http.Request) {
	id, err := webhookID(r)
	var d appliance.WebhookDelivery
	if err == nil {
		d, err = s.notify.Test(r.Context(), currentUser(r), id)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toDeliveryJSON(d))
}

type prefsJSON struct {
	Email        *string `json:"email"`
	Digest       string  `json:"digest"`
	KEVImmediate bool    `json:"kev_immediate"`
	MailEnabled  bool    `json:"mail_enabled"` // the server has an SMTP server configured
}

type prefsRequest struct {
	Email        *string `json:"email"`
	Digest       *string `json:"digest"`
	KEVImmediate *bool   `json:"kev_immediate"`
}

func (s *Server) toPrefsJSON(p appliance.NotifyPrefs) prefsJSON {
	j := prefsJSON{Digest: p.Digest, KEVImmediate: p.KEVImmediate, MailEnabled: s.notify.MailEnabled()}
	if p.Email != "" {
		j.Email = &p.Email
	}
	return j
}

func (s *Server) getNotifyPrefs(w http.ResponseWriter, r *http.Request) {
	p, err := s.notify.Prefs(r.Context(), currentUser(r))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.toPrefsJSON(p))
}

func (s *Server) putNotifyPrefs(w http.ResponseWriter, r *http.Request) {
	var req prefsRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	in := notify.PrefsInput{Email: req.Email, Digest: req.Digest, KEVImmediate: req.KEVImmediate}
	p, err := s.notify.SavePrefs(r.Context(), currentUser(r), in)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.toPrefsJSON(p))
}
