// Package notify tells people when it matters: webhooks per organization (plain signed JSON
// or Slack and Microsoft Teams presets) and mail (digests, immediate KEV mail). Events are
// recorded once each in an outbox under a unique key, so nothing is sent twice and a restart
// resends nothing; a flood of findings from one change becomes one digest event.
package notify

import (
	"fmt"
	"net/mail"
	"time"
)

// Options are the notify.* settings.
type Options struct {
	// AllowHTTP admits http:// webhook URLs; otherwise only https://.
	AllowHTTP bool `mapstructure:"allow_http"`
	// AllowLoopback admits webhook targets on loopback, link-local or unspecified addresses
	// (refused by default: a webhook must not reach the server's own services).
	AllowLoopback bool `mapstructure:"allow_loopback"`
	// DueSoon: assignment.due_soon is told this long before the due date.
	DueSoon time.Duration `mapstructure:"due_soon"`
	// HostSilentAfter: host.silent is told when a host was not seen for this long.
	HostSilentAfter time.Duration `mapstructure:"host_silent_after"`
	// FloodThreshold: more new (or resolved) findings than this in one organization at once
	// become one digest event.
	FloodThreshold int `mapstructure:"flood_threshold"`
	// MaxAttempts of a delivery before it is marked failed.
	MaxAttempts int `mapstructure:"max_attempts"`
	// KEVMailCriticality: immediate mail for KEV findings on products at least this critical (1-5).
	KEVMailCriticality int `mapstructure:"kev_mail_criticality"`
	// SMTP server of mails; an empty host turns mail off.
	SMTPHost     string `mapstructure:"smtp_host"`
	SMTPPort     int    `mapstructure:"smtp_port"`
	SMTPUsername string `mapstructure:"smtp_username"`
	SMTPPassword string `mapstructure:"smtp_password"`
	SMTPFrom     string `mapstructure:"smtp_from"`
	// SMTPStartTLS requires STARTTLS before anything is sent (false only for a local relay).
	SMTPStartTLS bool `mapstructure:"smtp_starttls"`

	// StaleAfter is feeds.stale_after (feed.stale), set by serve; Tick is how often the
	// scanner looks when nothing wakes it.
	StaleAfter time.Duration
	Tick       time.Duration
}

// DefaultOptions are the defaults of notify.*.
func DefaultOptions() Options {
	return Options{DueSoon: 72 * time.Hour, HostSilentAfter: 72 * time.Hour, FloodThreshold: 20, MaxAttempts: 8,
		KEVMailCriticality: 4, SMTPPort: 587, SMTPStartTLS: true}
}

// Validate refuses settings notify cannot work with.
func (o Options) Validate() error {
	switch {
	case o.DueSoon < 0 || o.HostSilentAfter < 0:
		return fmt.Errorf("notify.due_soon and notify.host_silent_after must not be negative")
	case o.FloodThreshold < 1:
		return fmt.Errorf("notify.flood_threshold must be at least 1")
	case o.MaxAttempts < 1:
		return fmt.Errorf("notify.max_attempts must be at least 1")
	case o.KEVMailCriticality < 1 || o.KEVMailCriticality > 5:
		return fmt.Errorf("notify.kev_mail_criticality must be between 1 and 5")
	case o.SMTPPort < 1 || o.SMTPPort > 65535:
		return fmt.Errorf("notify.smtp_port must be a port number")
	}
	if o.SMTPHost != "" {
		if _, err := mail.ParseAddress(o.SMTPFrom); err != nil {
			return fmt.Errorf("notify.smtp_from must be a mail address when notify.smtp_host is set")
		}
	}
	return nil
}

// MailEnabled tells whether an SMTP server is configured.
func (o Options) MailEnabled() bool { return o.SMTPHost != "" }
