package web

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/kb"

	"github.com/julienschmidt/httprouter"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
)

const licenseeKey ctxKey = 100

// licensed admits requests with a valid licence credential (Authorization: Bearer + the
// licence's X-Installation-ID) and puts the licensee in the context.
func (s *Server) licensed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			s.writeError(w, r, appliance.ErrUnauthorized)
			return
		}
		who, err := s.licensing.Authenticate(r.Context(), strings.TrimSpace(bearer), r.Header.Get("X-Installation-ID"))
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), licenseeKey, who)))
	})
}

func currentLicensee(r *http.Request) licensing.Licensee {
	who, _ := r.Context().Value(licenseeKey).(licensing.Licensee)
	return who
}

// byInstallation keys per-installation limits; only authenticated requests reach them, so
// naming an installation in a header never spends its quota.
func byInstallation(r *http.Request) string {
	return "inst:" + currentLicensee(r).License.InstallationID
}

// licensee: the licence chain with the route's per-installation limit.
func (s *Server) licensee(l *keyedLimiter) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler { return s.licensed(s.refuseExpired(s.limited(l, byInstallation, h))) }
}

// pullLimits counts a pull against the hourly quota when it starts (offset 0); the pages
// that continue it (offset > 0) have a looser budget of their own, so a sync of more than
// one page completes within its hour.
func (s *Server) pullLimits(h http.Handler) http.Handler {
	first := s.limited(s.lim.kbPull, byInstallation, h)
	more := s.limited(s.lim.kbPage, byInstallation, h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The quota is chosen on the offset as the handler will read it ("00" and "-0" are 0),
		// and a malformed or negative one is refused before it spends either quota.
		off, err := queryInt(r, "offset")
		if err == nil && off < 0 {
			err = appliance.Invalid("offset", "min", "offset must not be negative")
		}
		switch {
		case err != nil:
			s.writeError(w, r, err)
		case off == 0:
			first.ServeHTTP(w, r)
		default:
			more.ServeHTTP(w, r)
		}
	})
}

// refuseExpired turns away an expired licence before it spends quota (403).
func (s *Server) refuseExpired(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if currentLicensee(r).Expired {
			s.writeError(w, r, licensing.ErrExpired)
			return
		}
		next.ServeHTTP(w, r)
	})
}

type activateRequest struct {
	ActivationCode string `json:"activation_code"`
	InstallationID string `json:"installation_id"`
}

type activateResponse struct {
	License        string    `json:"license"`
	Edition        string    `json:"edition"`
	ExpiresAt      time.Time `json:"expires_at"`
	InstallationID string    `json:"installation_id"`
}

func (s *Server) activate(w http.ResponseWriter, r *http.Request) {
	var req activateRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	act, err := s.licensing.Activate(r.Context(), req.ActivationCode, req.InstallationID)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, activateResponse{License: act.License, Edition: string(act.Edition), ExpiresAt: act.ExpiresAt, InstallationID: act.InstallationID})
}

type licenseHeartbeatResponse struct {
	Status         string    `json:"status"`
	Edition        string    `json:"edition"`
	ExpiresAt      time.Time `json:"expires_at"`
	InstallationID string    `json:"installation_id"`
	ServerTime     time.Time `json:"server_time"`
}

func (s *Server) licenseHeartbeat(w http.ResponseWriter, r *http.Request) {
	who := currentLicensee(r)
	status := "active"
	if who.Expired {
		status = "expired"
	}
	writeJSON(w, http.StatusOK, licenseHeartbeatResponse{Status: status, Edition: string(who.License.Edition), ExpiresAt: who.License.ExpiresAt,
		InstallationID: who.License.InstallationID, ServerTime: s.licensing.Now()})
}

type verifyRequest struct {
	Signed string `json:"signed"`
}

type verifyResponse struct {
	Valid   bool    `json:"valid"`
	Payload *string `json:"payload"`
}

func (s *Server) verifySigned(w http.ResponseWriter, r *http.Request) {
	var req verifyRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Signed == "" {
		s.writeError(w, r, appliance.Invalid("signed", "required", "signed (a base64 signed payload) is required"))
		return
	}
	payload, ok := s.licensing.VerifySigned(req.Signed)
	resp := verifyResponse{Valid: ok}
	if ok {
		p := base64.StdEncoding.EncodeToString(payload)
		resp.Payload = &p
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) latestRelease(w http.ResponseWriter, r *http.Request) {
	rel, err := s.licensing.LatestRelease()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"version": rel.Version, "published_at": rel.PublishedAt, "url": rel.URL, "sha256": rel.SHA256})
}

type pushMappingJSON struct {
	VendorPattern  string   `json:"vendor_pattern"`
	ProductPattern string   `json:"product_pattern"`
	CPEVendor      string   `json:"cpe_vendor"`
	CPEProduct     string   `json:"cpe_product"`
	Confidence     *float64 `json:"confidence"`
}

type pushRequest struct {
	InstallationID string            `json:"installation_id"`
	Mappings       []pushMappingJSON `json:"mappings"`
}

func (s *Server) kbPush(w http.ResponseWriter, r *http.Request) {
	var req pushRequest
	if err := decodeJSON(w, r, 4<<20, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	ms := make([]kb.Mapping, len(req.Mappings))
	for i, m := range req.Mappings {
		ms[i] = kb.Mapping{VendorPattern: m.VendorPattern, ProductPattern: m.ProductPattern, CPEVendor: m.CPEVendor, CPEProduct: m.CPEProduct, Confidence: m.Confidence}
	}
	n, err := s.kbHub.Push(r.Context(), currentLicensee(r), req.InstallationID, r.Header.Get("X-Edition"), ms)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "accepted", "accepted": n,
		"message": strconv.Itoa(n) + " mappings recorded; a community mapping is published once " + strconv.Itoa(kb.PublishThreshold) + " installations confirm it"})
}

// pullQuery reads since (RFC 3339, fraction optional), source, limit and offset.
func pullQuery(r *http.Request) (appliance.PullQuery, error) {
	q := r.URL.Query()
	pq := appliance.PullQuery{Source: appliance.KBSource(q.Get("source"))}
	if pq.Source == "all" {
		pq.Source = ""
	}
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return pq, appliance.Invalid("since", "format", "since must be an RFC 3339 timestamp such as 2026-01-02T03:04:05Z")
		}
		pq.Since, pq.HasSince = t, true
	}
	var err error
	if pq.Limit, err = queryInt(r, "limit"); err != nil {
		return pq, err
	}
	if pq.Limit < 0 {
		return pq, appliance.Invalid("limit", "min", "limit must be at least 1")
	}
	if pq.Offset, err = queryInt(r, "offset"); err != nil {
		return pq, err
	}
	if pq.Offset < 0 {
		return pq, appliance.Invalid("offset", "min", "offset must not be negative")
	}
	return pq, nil
}

type pulledMappingJSON struct {
	VendorPattern     string    `json:"vendor_pattern"`
	ProductPattern    string    `json:"product_pattern"`
	CPEVendor         string    `json:"cpe_vendor"`
	CPEProduct        string    `json:"cpe_product"`
	Part              string    `json:"part,omitempty"`
	Confidence        float64   `json:"confidence"`
	Source            string    `json:"source"`
	ContributionCount int       `json:"contribution_count,omitempty"`
	Retracted         bool      `json:"retracted,omitempty"`
	UpdatedAt         time.Time `json:"updated_at"`
}

// kbPull streams the page: mappings are encoded as they are read, so a 50,000-row page never
// sits in memory whole. The counts follow the array.
func (s *Server) kbPull(w http.ResponseWriter, r *http.Request) {
	pq, err := pullQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	n := 0
	started := false
	total, err := s.kbHub.Pull(r.Context(), currentLicensee(r), pq, func(m appliance.KBMapping) error {
		if !started {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(http.StatusOK)
			bw.WriteString(`{"mappings":[`)
			started = true
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		return enc.Encode(pulledMappingJSON{VendorPattern: m.VendorPattern, ProductPattern: m.ProductPattern, CPEVendor: m.CPEVendor,
			CPEProduct: m.CPEProduct, Part: m.Part, Confidence: m.Confidence, Source: string(m.Source), ContributionCount: m.ContributionCount,
			Retracted: m.Retracted, UpdatedAt: m.UpdatedAt})
	})
	if err != nil {
		if started {
			panic(http.ErrAbortHandler) // the status is sent; cut the response so the client sees it broken
		}
		s.writeError(w, r, err)
		return
	}
	if !started {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		bw.WriteString(`{"mappings":[`)
	}
	hasMore := pq.Offset+n < total
	bw.WriteString(`],"total":` + strconv.Itoa(total) + `,"has_more":` + strconv.FormatBool(hasMore) + "}\n")
	_ = bw.Flush()
}

func (s *Server) adminOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if err := s.licensing.CheckAdmin(strings.TrimSpace(token)); err != nil {
			s.writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

type sourceJSON struct {
	Source     string     `json:"source"`
	Total      int        `json:"total"`
	Published  int        `json:"published"`
	Retracted  int        `json:"retracted"`
	LastImport *time.Time `json:"last_import"`
	Health     string     `json:"health"`
}

func (s *Server) datasources(w http.ResponseWriter, r *http.Request) {
	stats, err := s.kbHub.Sources(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	want := httprouter.ParamsFromContext(r.Context()).ByName("source")
	out := []sourceJSON{}
	for _, st := range stats {
		if want != "" && string(st.Source) != want {
			continue
		}
		health := "ok"
		if st.Total == 0 {
			health = "empty"
		}
		out = append(out, sourceJSON{Source: string(st.Source), Total: st.Total, Published: st.Published, Retracted: st.Retracted,
			LastImport: timeOrNil(st.LastUpdate), Health: health})
	}
	if want != "" && len(out) == 0 {
		s.writeError(w, r, appliance.ErrNotFound)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"sources": out})
}
