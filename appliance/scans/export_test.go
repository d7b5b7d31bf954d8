package scans

import "time"

// SetClock makes both services read the time from now (tests only).
func SetClock(c *Containers, r *Remediation, now func() time.Time) {
	c.now, r.now = now, now
}
