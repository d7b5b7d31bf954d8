package web

import (
	"net/http"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

type agentConfigJSON struct {
	ScanInterval        int    `json:"scan_interval"`
	IncludeUpdates      bool   `json:"include_updates"`
	IncludeServices     bool   `json:"include_services"`
	MinimumAgentVersion string `json:"minimum_agent_version"`
	ForceFullScan       bool   `json:"force_full_scan"`
}

func toAgentConfigJSON(c appliance.AgentConfig) agentConfigJSON {
	return agentConfigJSON{ScanInterval: c.ScanIntervalSeconds, IncludeUpdates: c.IncludeUpdates,
		IncludeServices: c.IncludeServices, MinimumAgentVersion: c.MinimumAgentVersion, ForceFullScan: c.ForceFullScan}
}

func (s *Server) agentConfig(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, toAgentConfigJSON(s.agentCfg))
}
