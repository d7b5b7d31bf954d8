package web

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/notify"
)

func smtpOptions(port int) notify.Options {
	o := notify.DefaultOptions()
	o.SMTPHost, o.SMTPPort, o.SMTPFrom, o.SMTPUsername, o.SMTPPassword = "127.0.0.1", port, "vulnkeeper@example.com", "mailer", "s3cret"
	return o
}

// The SMTP client upgrades with STARTTLS before it authenticates and sends; a server
// without STARTTLS is refused when it is required.
func TestSMTPMailerStartTLS(t *testing.T) {
	srv, pool := newFakeSMTP(t, true)
	m := NewSMTPMailer(smtpOptions(srv.port()), pool)
	if err := m.Send(context.Background(), "alice@example.com", "Grüße", "line one\nline two\n"); err != nil {
		t.Fatal(err)
	}
	got := srv.take()
	wantAuth := "PLAIN " + base64.StdEncoding.EncodeToString([]byte("\x00mailer\x00s3cret"))
	if len(got) != 1 || !got[0].TLS || got[0].Auth != wantAuth || got[0].To != "TO:<alice@example.com>" ||
		!strings.Contains(got[0].Data, "Subject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=\r\n") || !strings.HasSuffix(got[0].Data, "\r\nline one\r\nline two\r\n") {
		t.Fatalf("mail %+v", got)
	}

	plain, _ := newFakeSMTP(t, false)
	if err := NewSMTPMailer(smtpOptions(plain.port()), nil).Send(context.Background(), "alice@example.com", "s", "b"); err == nil ||
		len(plain.take()) != 0 {
		t.Fatalf("sent without STARTTLS: %v", err)
	}
}

// People opt in with PUT /api/me/notifications: a KEV finding on a critical product is
// mailed at once, and the daily digest summarises the day's events; each mail once.
func TestMailKEVImmediateAndDailyDigest(t *testing.T) {
	srv, pool := newFakeSMTP(t, true)
	w := newNotifyWorld(t, NewSMTPMailer(smtpOptions(srv.port()), pool))
	runScenarios(t, []scenario{
		{"opting in needs an address", "PUT", "/api/me/notifications", map[string]any{"digest": "daily"}, w.alice, 400, wantErrorCode("validation_error")},
		{"bad digest", "PUT", "/api/me/notifications", map[string]any{"email": "alice@example.com", "digest": "hourly"}, w.alice, 400, wantErrorCode("validation_error")},
		{"bad address", "PUT", "/api/me/notifications", map[string]any{"email": "Alice <alice@example.com>\r\nBcc: x@y"}, w.alice, 400, wantErrorCode("validation_error")},
		{"opt in", "PUT", "/api/me/notifications", map[string]any{"email": "alice@example.com", "digest": "daily", "kev_immediate": true}, w.alice, 200,
			func(t *testing.T, res response) {
				p := decodeBody[prefsJSON](t, res)
				if *p.Email != "alice@example.com" || p.Digest != "daily" || !p.KEVImmediate || !p.MailEnabled {
					t.Errorf("prefs %+v", p)
				}
			}},
		{"bob only wants KEV mail", "PUT", "/api/me/notifications", map[string]any{"email": "bob@example.com", "kev_immediate": true}, w.bob, 200, nil},
		{"carol (globex) too", "PUT", "/api/me/notifications", map[string]any{"email": "carol@example.com", "kev_immediate": true}, w.carol, 200, nil},
		{"read back", "GET", "/api/me/notifications", nil, w.bob, 200, func(t *testing.T, res response) {
			if p := decodeBody[prefsJSON](t, res); p.Digest != "off" || !p.KEVImmediate {
				t.Errorf("prefs %+v", p)
			}
		}},
	})

	// Chrome (KEV) on a product marked critical; openssl (not KEV) on another.
	w.submit(t, "host-a", inv("Google LLC", "Google Chrome", "116.0.5845.96"), inv("openssl", "openssl", "1.1.1k"))
	products := decodeBody[listResponse[struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}]](t, w.alice.do(t, "GET", "/api/products", nil))
	for _, p := range products.Items {
		if res := w.alice.do(t, "PUT", fmt.Sprintf("/api/products/%d", p.ID), map[string]any{"criticality": 5}); res.Status != 200 {
			t.Fatalf("criticality: %d %s", res.Status, res.Body)
		}
	}
	w.run(t)
	mails := srv.take()
	to := map[string]string{}
	for _, m := range mails {
		to[m.To] = m.Data
	}
	if len(mails) != 2 || to["TO:<alice@example.com>"] == "" || to["TO:<bob@example.com>"] == "" {
		t.Fatalf("KEV mails to %v, want alice and bob (not carol of globex)", to)
	}
	body := to["TO:<bob@example.com>"]
	if !strings.Contains(body, "CVE-2023-4863") || strings.Contains(body, "CVE-2021-3711") || !strings.Contains(body, "CISA KEV") {
		t.Errorf("KEV mail %q", body)
	}
	w.run(t)
	if got := srv.take(); len(got) != 0 {
		t.Errorf("%d mails sent again", len(got))
	}

	w.clk.Add(23 * time.Hour)
	w.run(t)
	if got := srv.take(); len(got) != 0 {
		t.Errorf("a digest before the day passed: %d mails", len(got))
	}
	w.clk.Add(2 * time.Hour)
	w.run(t)
	w.run(t)
	got := srv.take()
	if len(got) != 1 || got[0].To != "TO:<alice@example.com>" || !strings.Contains(got[0].Data, "daily digest: 3 new findings, 0 resolved") ||
		!strings.Contains(got[0].Data, "CVE-2021-3711") {
		t.Fatalf("digest %+v", got)
	}
}
