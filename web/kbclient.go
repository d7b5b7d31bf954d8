package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/kb"
)

// KBClient is the installation's HTTP transport to the licence server.
type KBClient struct {
	http *http.Client
}

// NewKBClient builds a transport with bounded timeouts.
func NewKBClient() *KBClient {
	return &KBClient{http: &http.Client{Timeout: 5 * time.Minute}}
}

var _ kb.Transport = (*KBClient)(nil)

// remoteError is a licence server's error body.
type remoteError struct {
	Status  int
	Code    string
	Message string
}

func (e *remoteError) Error() string {
	return fmt.Sprintf("licence server answered %d %s: %s", e.Status, e.Code, e.Message)
}

func (c *KBClient) do(ctx context.Context, method, u string, cred *kb.Credentials, body any, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if cred != nil {
		req.Header.Set("Authorization", "Bearer "+cred.Bearer)
		req.Header.Set("X-Installation-ID", cred.InstallationID)
		req.Header.Set("X-Edition", cred.Edition)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var eb errorBody
		_ = json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&eb)
		return &remoteError{Status: resp.StatusCode, Code: eb.Error, Message: eb.Message}
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// Activate exchanges an activation code for a licence.
func (c *KBClient) Activate(ctx context.Context, server, code, installationID string) (string, error) {
	var out activateResponse
	err := c.do(ctx, http.MethodPost, server+"/api/v1/license/activate", nil,
		activateRequest{ActivationCode: code, InstallationID: installationID}, &out)
	return out.License, err
}

type pullResponse struct {
	Mappings []pulledMappingJSON `json:"mappings"`
	Total    int                 `json:"total"`
	HasMore  bool                `json:"has_more"`
}

// Pull fetches one page of published mappings.
func (c *KBClient) Pull(ctx context.Context, server string, cred kb.Credentials, since time.Time, hasSince bool, offset, limit int) (kb.Page, error) {
	q := url.Values{"offset": {strconv.Itoa(offset)}, "limit": {strconv.Itoa(limit)}}
	if hasSince {
		q.Set("since", since.UTC().Format(time.RFC3339Nano))
	}
	var out pullResponse
	if err := c.do(ctx, http.MethodGet, server+"/api/v1/kb/mappings/pull?"+q.Encode(), &cred, nil, &out); err != nil {
		return kb.Page{}, err
	}
	page := kb.Page{Total: out.Total, HasMore: out.HasMore, Mappings: make([]kb.Mapping, len(out.Mappings))}
	for i, m := range out.Mappings {
		page.Mappings[i] = kb.Mapping{Part: m.Part, VendorPattern: m.VendorPattern, ProductPattern: m.ProductPattern,
			CPEVendor: m.CPEVendor, CPEProduct: m.CPEProduct, Source: appliance.KBSource(m.Source), Confidence: kb.Conf(m.Confidence),
			Retracted: m.Retracted, UpdatedAt: m.UpdatedAt}
	}
	return page, nil
}

// Push sends confirmed mappings.
func (c *KBClient) Push(ctx context.Context, server string, cred kb.Credentials, ms []kb.Mapping) error {
	req := pushRequest{InstallationID: cred.InstallationID, Mappings: make([]pushMappingJSON, len(ms))}
	for i, m := range ms {
		req.Mappings[i] = pushMappingJSON{VendorPattern: m.VendorPattern, ProductPattern: m.ProductPattern, CPEVendor: m.CPEVendor,
			CPEProduct: m.CPEProduct, Confidence: m.Confidence}
	}
	var out map[string]any
	return c.do(ctx, http.MethodPost, server+"/api/v1/kb/mappings/push", &cred, req, &out)
}

type kbStatusJSON struct {
	Licensed       bool       `json:"licensed"`
	Edition        string     `json:"edition,omitempty"`
	ExpiresAt      *time.Time `json:"expires_at"`
	ServerURL      string     `json:"server_url"`
	InstallationID string     `json:"installation_id"`
	LastPull       *time.Time `json:"last_pull"`
	LastPush       *time.Time `json:"last_push"`
	Pulled         int        `json:"mappings_pulled"`
	Pushed         int        `json:"mappings_pushed"`
	LastError      string     `json:"last_error,omitempty"`
	LastErrorAt    *time.Time `json:"last_error_at"`
	NextAttempt    *time.Time `json:"next_attempt"`
}

func (s *Server) kbStatus(w http.ResponseWriter, r *http.Request) {
	if currentUser(r).Role != "org_admin" {
		s.writeError(w, r, errAdminOnly)
		return
	}
	if s.kbsync == nil {
		s.writeError(w, r, appliance.NotFound("this server runs no knowledge-base client"))
		return
	}
	st, err := s.kbsync.Status(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, kbStatusJSON{Licensed: st.Licensed, Edition: st.Edition, ExpiresAt: timeOrNil(st.ExpiresAt),
		ServerURL: st.ServerURL, InstallationID: st.InstallationID, LastPull: timeOrNil(st.LastPull), LastPush: timeOrNil(st.LastPush),
		Pulled: st.Pulled, Pushed: st.Pushed, LastError: st.LastError, LastErrorAt: timeOrNil(st.LastErrorAt), NextAttempt: timeOrNil(st.NextAttempt)})
}
