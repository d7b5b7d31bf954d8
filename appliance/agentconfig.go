package appliance

// AgentConfig is what agents are told to do; it comes from the configuration file.
type AgentConfig struct {
	ScanIntervalSeconds int    `mapstructure:"scan_interval"`
	IncludeUpdates      bool   `mapstructure:"include_updates"`
	IncludeServices     bool   `mapstructure:"include_services"`
	MinimumAgentVersion string `mapstructure:"minimum_agent_version"`
	ForceFullScan       bool   `mapstructure:"force_full_scan"`
}

// DefaultAgentConfig: a daily full scan including updates.
func DefaultAgentConfig() AgentConfig {
	return AgentConfig{ScanIntervalSeconds: 86400, IncludeUpdates: true, IncludeServices: false,
		MinimumAgentVersion: "1.0.0", ForceFullScan: false}
}

// Validate refuses settings no agent could follow.
func (c AgentConfig) Validate() error {
	if c.ScanIntervalSeconds < 60 || c.ScanIntervalSeconds > 30*86400 {
		return Invalid("agent.scan_interval", "range", "scan_interval must be between 60 and 2592000 seconds")
	}
	return nil
}
