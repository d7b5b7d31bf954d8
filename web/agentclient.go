package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/agentrun"
	"github.com/vulnkeeper/vulnkeeper/appliance/collect"
)

// AgentClientOptions configure the agent's connection to the server.
type AgentClientOptions struct {
	Server    string // base URL
	Key       string
	CAFile    string // extra roots (PEM) besides the system ones
	PinSHA256 string // hex SHA-256 of the server certificate (DER); colons allowed
	Timeout   time.Duration
	UserAgent string
}

// AgentClient is the HTTP side of the agent: gzip JSON bodies, the X-Agent-Key header, TLS
// with system roots, an extra CA and an optional pinned certificate; proxies from the
// environment.
type AgentClient struct {
	base *url.URL
	key  string
	ua   string
	hc   *http.Client
}

// NewAgentClient checks the options and builds the transport.
func NewAgentClient(o AgentClientOptions) (*AgentClient, error) {
	u, err := url.Parse(strings.TrimRight(o.Server, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("server %q is not an http(s) URL", o.Server)
	}
	tlsCfg, err := agentTLS(o.CAFile, o.PinSHA256)
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyFromEnvironment
	tr.TLSClientConfig = tlsCfg
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	return &AgentClient{base: u, key: o.Key, ua: o.UserAgent, hc: &http.Client{Transport: tr, Timeout: o.Timeout}}, nil
}

// agentTLS: system roots plus caFile. With a pin the server certificate must hash to it;
// a pin alone (no CA file) is trust enough for a self-signed server certificate.
func agentTLS(caFile, pin string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("CA file: %w", err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s holds no PEM certificate", caFile)
		}
		cfg.RootCAs = pool
	}
	if pin == "" {
		return cfg, nil
	}
	want, err := hex.DecodeString(strings.ReplaceAll(strings.ToLower(pin), ":", ""))
	if err != nil || len(want) != sha256.Size {
		return nil, errors.New("--pin-sha256 must be 64 hex digits (the SHA-256 of the server certificate)")
	}
	cfg.InsecureSkipVerify = caFile == "" // the pin replaces chain verification
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("server sent no certificate")
		}
		got := sha256.Sum256(cs.PeerCertificates[0].Raw)
		if !bytes.Equal(got[:], want) {
			return fmt.Errorf("server certificate SHA-256 %x does not match the pinned one", got)
		}
		return nil
	}
	return cfg, nil
}

// Wire form of the inventory the agent sends (the spec's, plus the inventory extension).
type agentInventoryJSON struct {
	Hostname  string             `json:"hostname"`
	FQDN      string             `json:"fqdn,omitempty"`
	IPAddress string             `json:"ip_address,omitempty"`
	OS        agentOSJSON        `json:"os"`
	Agent     agentIDJSON        `json:"agent"`
	Products  []agentProductJSON `json:"products"`
}

type agentIDJSON struct {
	ID      string `json:"id"`
	Version string `json:"version"`
}

type agentOSJSON struct {
	Name      string `json:"name,omitempty"`
	Version   string `json:"version,omitempty"`
	ID        string `json:"id,omitempty"`
	VersionID string `json:"version_id,omitempty"`
	Codename  string `json:"codename,omitempty"`
	Build     string `json:"build,omitempty"`
	Arch      string `json:"arch,omitempty"`
	Kernel    string `json:"kernel,omitempty"`
}

type agentProductJSON struct {
	Vendor        string `json:"vendor"`
	Product       string `json:"product"`
	Version       string `json:"version"`
	Source        string `json:"source,omitempty"`
	PURL          string `json:"purl,omitempty"`
	SourcePackage string `json:"source_package,omitempty"`
	SourceVersion string `json:"source_version,omitempty"`
	Arch          string `json:"arch,omitempty"`
	BundleID      string `json:"bundle_id,omitempty"`
}

// Encode is the JSON the agent sends for inv (also what --dry-run prints).
func (c *AgentClient) Encode(inv collect.Inventory) ([]byte, error) { return EncodeInventory(inv) }

// EncodeInventory writes inv in the wire form, indented for people reading --dry-run.
func EncodeInventory(inv collect.Inventory) ([]byte, error) {
	o := inv.OS
	w := agentInventoryJSON{Hostname: inv.Hostname, FQDN: inv.FQDN, IPAddress: inv.IPAddress,
		OS:       agentOSJSON{o.Name, o.Version, o.ID, o.VersionID, o.Codename, o.Build, o.Arch, o.Kernel},
		Agent:    agentIDJSON{inv.Agent.ID, inv.Agent.Version},
		Products: make([]agentProductJSON, len(inv.Products))}
	for i, p := range inv.Products {
		w.Products[i] = agentProductJSON(p)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Config reads GET /api/agent/config.
func (c *AgentClient) Config(ctx context.Context) (agentrun.ServerConfig, error) {
	var cfg agentConfigJSON
	if err := c.do(ctx, http.MethodGet, "/api/agent/config", nil, &cfg); err != nil {
		return agentrun.ServerConfig{}, err
	}
	return agentrun.ServerConfig{ScanInterval: time.Duration(cfg.ScanInterval) * time.Second,
		ForceFullScan: cfg.ForceFullScan, MinimumAgentVersion: cfg.MinimumAgentVersion}, nil
}

// Heartbeat posts POST /api/agent/heartbeat and returns the settings it carries.
func (c *AgentClient) Heartbeat(ctx context.Context, hostname, agentVersion string) (agentrun.ServerConfig, error) {
	body, err := json.Marshal(heartbeatRequest{Hostname: hostname, AgentVersion: agentVersion})
	if err != nil {
		return agentrun.ServerConfig{}, err
	}
	var resp heartbeatResponse
	if err := c.do(ctx, http.MethodPost, "/api/agent/heartbeat", body, &resp); err != nil {
		return agentrun.ServerConfig{}, err
	}
	return agentrun.ServerConfig{ScanInterval: time.Duration(resp.Config.ScanInterval) * time.Second}, nil
}

// Inventory posts an encoded inventory to POST /api/agent/inventory.
func (c *AgentClient) Inventory(ctx context.Context, body []byte) error {
	return c.do(ctx, http.MethodPost, "/api/agent/inventory", body, nil)
}

// do sends one request (a gzip body when there is one) and decodes a 2xx answer into out;
// any other status is an *agentrun.ServerError carrying Retry-After.
func (c *AgentClient) do(ctx context.Context, method, path string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		if _, err := zw.Write(body); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		rd = &buf
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base.String()+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("X-Agent-Key", c.key)
	req.Header.Set("Accept", "application/json")
	if c.ua != "" {
		req.Header.Set("User-Agent", c.ua)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return serverError(resp)
	}
	if out == nil {
		_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return err
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(out); err != nil {
		return fmt.Errorf("%s %s: decode answer: %w", method, path, err)
	}
	return nil
}

func serverError(resp *http.Response) error {
	var eb errorBody
	_ = json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&eb)
	se := &agentrun.ServerError{Status: resp.StatusCode, Message: eb.Message}
	if se.Message == "" {
		se.Message = http.StatusText(resp.StatusCode)
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		se.RetryAfter = time.Duration(s) * time.Second
	} else if t, err := http.ParseTime(resp.Header.Get("Retry-After")); err == nil {
		se.RetryAfter = time.Until(t)
	}
	return se
}

// ContainerScan posts the scanned images of this host to POST /api/agent/container-scan.
func (c *AgentClient) ContainerScan(ctx context.Context, hostname string, images []agentrun.ScannedImage) error {
	req := containerScanRequest{Hostname: hostname, Images: make([]containerScanJSON, len(images))}
	for i, img := range images {
		req.Images[i] = containerScanJSON{ImageName: img.Name, ImageID: img.ID, ScanResults: img.Report}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodPost, "/api/agent/container-scan", body, nil)
}
