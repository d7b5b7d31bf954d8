package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/notify"
)

// WebhookClient posts webhook deliveries for appliance/notify. Every connection is checked
// where it is dialled (the resolved address, so DNS cannot smuggle in a refused target);
// no proxy is used (the check must see the real target) and redirects are not followed
// (a 3xx is a failed attempt).
type WebhookClient struct {
	hc   *http.Client
	opts notify.Options
}

// NewWebhookClient builds the client over the notify options (allow_http, allow_loopback).
func NewWebhookClient(opts notify.Options) *WebhookClient {
	dialer := &net.Dialer{Timeout: 10 * time.Second, Control: func(_, address string, _ syscall.RawConn) error {
		return opts.CheckAddr(address)
	}}
	tr := &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: 10 * time.Second,
		ResponseHeaderTimeout: 15 * time.Second, MaxIdleConnsPerHost: 2, IdleConnTimeout: 90 * time.Second}
	return &WebhookClient{opts: opts, hc: &http.Client{Transport: tr, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Post implements notify.Sender.
func (c *WebhookClient) Post(ctx context.Context, url string, header map[string]string, body []byte) (int, error) {
	if err := c.opts.CheckURL(url); err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("webhook request: %w", err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	req.Header.Set("User-Agent", "vulnkeeper-webhook")
	res, err := c.hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("POST %s: %w", req.URL.Redacted(), err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	return res.StatusCode, nil
}
