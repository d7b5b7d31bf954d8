package notify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func TestBackoffGrowsToSixHours(t *testing.T) {
	want := []time.Duration{30 * time.Second, 2 * time.Minute, 8 * time.Minute, 32 * time.Minute, 128 * time.Minute,
		6 * time.Hour, 6 * time.Hour, 6 * time.Hour}
	for i, w := range want {
		if got := backoff(i + 1); got != w {
			t.Errorf("backoff(%d) = %v, want %v", i+1, got, w)
		}
	}
}

func TestSignIsHMACSHA256OfTheBody(t *testing.T) {
	body := []byte(`{"type":"ping"}`)
	m := hmac.New(sha256.New, []byte("whsec_x"))
	m.Write(body)
	if got, want := Sign("whsec_x", body), "sha256="+hex.EncodeToString(m.Sum(nil)); got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
	if Sign("whsec_y", body) == Sign("whsec_x", body) {
		t.Fatal("the secret does not change the signature")
	}
}

func TestCheckURLAndAddr(t *testing.T) {
	strict, lax := DefaultOptions(), Options{AllowHTTP: true, AllowLoopback: true}
	for url, ok := range map[string]bool{
		"https://hooks.slack.com/services/T/B/X": true, "https://10.0.0.5:8443/h": true, "https://[fd00::1]/h": true,
		"http://hooks.example.com/": false, "https://127.0.0.1/": false, "https://127.9.9.9/": false, "https://LOCALHOST/": false,
		"https://app.localhost/": false, "https://localhost./": false, "https://[::1]/": false, "https://[::ffff:127.0.0.1]/": false,
		"https://169.254.169.254/": false, "https://[fe80::1]/": false, "https://0.0.0.0/": false, "https://224.0.0.1/": false,
		"https://u:p@hooks.example.com/": false, "mailto:a@b": false, "": false,
	} {
		if err := strict.CheckURL(url); (err == nil) != ok {
			t.Errorf("CheckURL(%q) = %v, want ok=%v", url, err, ok)
		}
	}
	if err := lax.CheckURL("http://127.0.0.1:8080/"); err != nil {
		t.Errorf("allowed loopback over http refused: %v", err)
	}
	for addr, ok := range map[string]bool{"93.184.216.34:443": true, "192.168.1.10:443": true, "127.0.0.1:443": false,
		"[::1]:443": false, "169.254.169.254:80": false} {
		if err := strict.CheckAddr(addr); (err == nil) != ok {
			t.Errorf("CheckAddr(%q) = %v, want ok=%v", addr, err, ok)
		}
	}
}

func TestWebhookFilterKeepsKEVAndThresholds(t *testing.T) {
	w := appliance.Webhook{Enabled: true, Events: []string{EventFindingNew}, MinSeverity: "high", MinScore: 8}
	d := Data{Digest: true, Count: 4, Findings: []Finding{
		{CVEID: "a", Severity: "critical", Score: 9.8}, {CVEID: "b", Severity: "high", Score: 7.5},
		{CVEID: "c", Severity: "low", Score: 2, KEV: true}, {CVEID: "d", Severity: "medium", Score: 9},
	}}
	got, ok := forWebhook(w, EventFindingNew, d)
	if !ok || got.Count != 2 || got.Findings[0].CVEID != "a" || got.Findings[1].CVEID != "c" {
		t.Fatalf("kept %+v", got)
	}
	if _, ok := forWebhook(w, EventHostSilent, Data{}); ok {
		t.Error("a webhook heard an event it did not subscribe to")
	}
	w.Enabled = false
	if _, ok := forWebhook(w, EventFindingNew, d); ok {
		t.Error("a disabled webhook heard an event")
	}
}
