package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/feeds"
)

// FeedClient downloads feed documents for appliance/feeds: HTTPS only unless plain HTTP is
// allowed (a local mirror), HTTPS_PROXY/NO_PROXY honoured, a timeout per request, bodies
// bounded and read whole so a cut-off transfer is an error. Header values (NVD's apiKey) are
// never written into errors or logs.
type FeedClient struct {
	hc        *http.Client
	allowHTTP bool
	maxBody   int64
}

// FeedClientOptions tune the client; zero values take the defaults.
type FeedClientOptions struct {
	AllowHTTP bool
	Timeout   time.Duration // whole request, body included (default 5 minutes)
	MaxBody   int64         // default 1 GiB
}

// NewFeedClient builds the client.
func NewFeedClient(o FeedClientOptions) *FeedClient {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Minute
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 1 << 30
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyFromEnvironment
	c := &FeedClient{allowHTTP: o.AllowHTTP, maxBody: o.MaxBody}
	c.hc = &http.Client{Transport: tr, Timeout: o.Timeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		return feeds.CheckURL(req.URL.String(), c.allowHTTP) // a redirect must not downgrade to http
	}}
	return c
}

// Fetch implements feeds.Fetcher.
func (c *FeedClient) Fetch(ctx context.Context, r feeds.Request) ([]byte, error) {
	if err := feeds.CheckURL(r.URL, c.allowHTTP); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("feed request: %w", err)
	}
	for k, v := range r.Header {
		req.Header.Set(k, v)
	}
	req.Header.Set("User-Agent", "vulnkeeper")
	res, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", req.URL.Redacted(), err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
		return nil, &feeds.StatusError{Status: res.StatusCode, RetryAfter: retryAfter(res.Header.Get("Retry-After"))}
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, c.maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: reading the body: %w", req.URL.Redacted(), err)
	}
	if int64(len(body)) > c.maxBody {
		return nil, fmt.Errorf("GET %s: the body exceeds %d bytes", req.URL.Redacted(), c.maxBody)
	}
	if res.ContentLength >= 0 && int64(len(body)) != res.ContentLength && !res.Uncompressed {
		return nil, fmt.Errorf("GET %s: %d of %d bytes: %w", req.URL.Redacted(), len(body), res.ContentLength, io.ErrUnexpectedEOF)
	}
	return body, nil
}

// retryAfter reads Retry-After in seconds (the form NVD and CISA send); 0 otherwise.
func retryAfter(v string) time.Duration {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}
