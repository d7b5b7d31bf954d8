package web

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
)

type inventoryRequest struct {
	Hostname  string           `json:"hostname"`
	FQDN      string           `json:"fqdn"`
	IPAddress string           `json:"ip_address"`
	OS        *json.RawMessage `json:"os"`
	Agent     *struct {
		ID      string `json:"id"`
		Version string `json:"version"`
	} `json:"agent"`
	Products *productList `json:"products"`
	Delta    bool         `json:"delta"`
}

// productList is the products array, decoded item by item and refused at the first item past
// the cap (see cappedArray).
type productList []inventoryItem

func (l *productList) UnmarshalJSON(raw []byte) error {
	return cappedArray(raw, "products", inventory.MaxProductsPerReport, (*[]inventoryItem)(l))
}

type inventoryItem struct {
	Vendor  string `json:"vendor"`
	Product string `json:"product"`
	Version string `json:"version"`
	Path    string `json:"path"`
	packageItemJSON
}

type osJSON struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Kernel  string `json:"kernel"`
	osFactsJSON
}

type inventorySummary struct {
	ProductsCreated      int `json:"products_created"`
	ProductsUpdated      int `json:"products_updated"`
	InstallationsCreated int `json:"installations_created"`
	InstallationsUpdated int `json:"installations_updated"`
	InstallationsRemoved int `json:"installations_removed"`
	TotalProducts        int `json:"total_products"`
	StaleMatchesRemoved  int `json:"stale_matches_removed"`
}

type inventoryResponse struct {
	Status   string           `json:"status"`
	AssetID  int64            `json:"asset_id"`
	Hostname string           `json:"hostname"`
	Summary  inventorySummary `json:"summary"`
	Warnings []string         `json:"warnings,omitempty"`
}

func (req inventoryRequest) report(remoteIP string) (inventory.Report, error) {
	rep := inventory.Report{Hostname: req.Hostname, FQDN: req.FQDN, IPAddress: req.IPAddress, Delta: req.Delta}
	if rep.IPAddress == "" {
		rep.IPAddress = remoteIP
	}
	if req.OS != nil && string(*req.OS) != "null" {
		var o osJSON
		if err := json.Unmarshal(*req.OS, &o); err != nil {
			return rep, appliance.Invalid("os", "type", "os must be an object {name, version, kernel}")
		}
		rep.OSName, rep.OSVersion, rep.OSKernel, rep.OS = o.Name, o.Version, o.Kernel, o.hostOS()
	}
	if req.Agent != nil {
		rep.AgentID, rep.AgentVersion = req.Agent.ID, req.Agent.Version
	}
	if req.Products != nil {
		rep.HasProducts = true
		rep.Items = make([]inventory.Item, len(*req.Products))
		for i, it := range *req.Products {
			rep.Items[i] = inventory.Item{Vendor: it.Vendor, Product: it.Product, Version: it.Version, Path: it.Path, Package: it.info()}
		}
	}
	return rep, nil
}

func (s *Server) submitInventory(w http.ResponseWriter, r *http.Request) {
	var req inventoryRequest
	if err := decodeJSON(w, r, min(s.opts.MaxBodyBytes, maxInventoryBody), &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	rep, err := req.report(clientIP(r))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.inventory.Submit(r.Context(), currentAgent(r).OrganizationID, rep)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, inventoryAnswer(res))
}

// inventoryAnswer is the answer to a reconciled inventory.
func inventoryAnswer(res inventory.Result) inventoryResponse {
	sum := res.Summary
	return inventoryResponse{Status: "success", AssetID: res.AssetID, Hostname: res.Hostname, Warnings: res.Warnings,
		Summary: inventorySummary{ProductsCreated: sum.ProductsCreated, ProductsUpdated: sum.ProductsUpdated,
			InstallationsCreated: sum.InstallationsCreated, InstallationsUpdated: sum.InstallationsUpdated,
			InstallationsRemoved: sum.InstallationsRemoved, TotalProducts: sum.TotalProducts, StaleMatchesRemoved: sum.StaleMatchesRemoved}}
}

type heartbeatRequest struct {
	Hostname     string `json:"hostname"`
	AgentVersion string `json:"agent_version"`
}

type heartbeatResponse struct {
	Status     string `json:"status"`
	AssetID    int64  `json:"asset_id"`
	ServerTime string `json:"server_time"`
	Config     struct {
		ScanInterval   int  `json:"scan_interval"`
		IncludeUpdates bool `json:"include_updates"`
	} `json:"config"`
}

func (s *Server) heartbeat(w http.ResponseWriter, r *http.Request) {
	var req heartbeatRequest
	if err := decodeJSON(w, r, smallBody, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	id, err := s.inventory.Heartbeat(r.Context(), currentAgent(r).OrganizationID, req.Hostname, req.AgentVersion, clientIP(r))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	resp := heartbeatResponse{Status: "ok", AssetID: id, ServerTime: time.Now().UTC().Format(time.RFC3339)}
	resp.Config.ScanInterval, resp.Config.IncludeUpdates = s.agentCfg.ScanIntervalSeconds, s.agentCfg.IncludeUpdates
	writeJSON(w, http.StatusOK, resp)
}
