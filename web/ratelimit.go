package web

import (
	"math"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// LimitOptions are the request limits; every value is a count within its window.
type LimitOptions struct {
	Enabled                bool `mapstructure:"enabled"`
	GlobalPerDay           int  `mapstructure:"global_per_day"`
	GlobalPerHour          int  `mapstructure:"global_per_hour"`
	LoginPerMinute         int  `mapstructure:"login_per_minute"`
	PasswordPerMinute      int  `mapstructure:"password_per_minute"`
	InventoryPerMinute     int  `mapstructure:"inventory_per_minute"`
	HeartbeatPerMinute     int  `mapstructure:"heartbeat_per_minute"`
	ConfigPerMinute        int  `mapstructure:"config_per_minute"`
	ContainerScanPerMinute int  `mapstructure:"container_scan_per_minute"`
	ContainersPerMinute    int  `mapstructure:"containers_per_minute"`
	KBPushPerHour          int  `mapstructure:"kb_push_per_hour"`
	KBPullPerHour          int  `mapstructure:"kb_pull_per_hour"`
	// KBPagesPerHour bounds the continuation pages (offset > 0) of pulls.
	KBPagesPerHour int `mapstructure:"kb_pages_per_hour"`
	// MaxKeys bounds the clients tracked per limiter; idle ones are evicted first.
	MaxKeys int `mapstructure:"max_keys"`
}

// DefaultLimitOptions is the spec's limits table.
func DefaultLimitOptions() LimitOptions {
	return LimitOptions{Enabled: true, GlobalPerDay: 1000, GlobalPerHour: 200, LoginPerMinute: 5, PasswordPerMinute: 3,
		InventoryPerMinute: 60, HeartbeatPerMinute: 120, ConfigPerMinute: 30, ContainerScanPerMinute: 30,
		ContainersPerMinute: 60, KBPushPerHour: 1, KBPullPerHour: 1, KBPagesPerHour: 120, MaxKeys: 100_000}
}

// A limit is either a burst limit (a token bucket: n per window, refilled evenly) or a quota
// (a sliding-window counter: n per rolling window). A token bucket for "1000/day" would admit
// about 2000 in a rolling day, so long windows are quotas.
type limit struct {
	n      int
	window time.Duration
	bucket bool
}

func perMinute(n int) limit              { return limit{n: n, window: time.Minute, bucket: true} }
func perHourBucket(n int) limit          { return limit{n: n, window: time.Hour, bucket: true} }
func quota(n int, w time.Duration) limit { return limit{n: n, window: w} }

// keyedLimiter applies the same limits to every key (client IP, agent key, user,
// installation) and forgets keys that have been idle for longer than the longest window.
type keyedLimiter struct {
	limits  []limit
	maxKeys int
	now     func() time.Time

	mu        sync.Mutex
	entries   map[string]*limitEntry
	lastSweep time.Time
}

type limitEntry struct {
	buckets  []*rate.Limiter
	windows  []slidingWindow
	lastSeen time.Time
}

func newKeyedLimiter(maxKeys int, now func() time.Time, limits ...limit) *keyedLimiter {
	var active []limit
	for _, l := range limits {
		if l.n > 0 {
			active = append(active, l)
		}
	}
	return &keyedLimiter{limits: active, maxKeys: max(maxKeys, 16), now: now, entries: map[string]*limitEntry{}}
}

// allow admits one request for key, or says how long to wait. A refused request consumes
// nothing.
func (l *keyedLimiter) allow(key string) (bool, time.Duration) {
	if l == nil || len(l.limits) == 0 {
		return true, 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entry(key, now)
	e.lastSeen = now
	var reservations []*rate.Reservation
	var wait time.Duration
	for _, b := range e.buckets {
		res := b.ReserveN(now, 1)
		reservations = append(reservations, res)
		wait = max(wait, res.DelayFrom(now))
	}
	for i := range e.windows {
		wait = max(wait, e.windows[i].wait(now))
	}
	if wait > 0 {
		for _, res := range reservations {
			res.CancelAt(now)
		}
		return false, wait
	}
	for i := range e.windows {
		e.windows[i].add(now)
	}
	return true, 0
}

func (l *keyedLimiter) entry(key string, now time.Time) *limitEntry {
	if e, ok := l.entries[key]; ok {
		return e
	}
	if len(l.entries) >= l.maxKeys || now.Sub(l.lastSweep) > time.Minute {
		l.sweep(now)
	}
	e := &limitEntry{}
	for _, lim := range l.limits {
		if lim.bucket {
			every := lim.window / time.Duration(lim.n)
			e.buckets = append(e.buckets, rate.NewLimiter(rate.Every(every), lim.n))
		} else {
			e.windows = append(e.windows, slidingWindow{limit: lim.n, size: lim.window})
		}
	}
	l.entries[key] = e
	return e
}

// sweep forgets keys idle for longer than the longest window (their state is back to
// "nothing used"); if the map is still full, it drops arbitrary keys to stay bounded.
func (l *keyedLimiter) sweep(now time.Time) {
	l.lastSweep = now
	var longest time.Duration
	for _, lim := range l.limits {
		longest = max(longest, 2*lim.window)
	}
	for k, e := range l.entries {
		if now.Sub(e.lastSeen) > longest {
			delete(l.entries, k)
		}
	}
	for k := range l.entries {
		if len(l.entries) < l.maxKeys {
			break
		}
		delete(l.entries, k)
	}
}

func (l *keyedLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries)
}

// slidingWindow estimates the count in the rolling window from the current and previous
// fixed windows, weighting the previous one by how much of it still overlaps.
type slidingWindow struct {
	limit     int
	size      time.Duration
	start     time.Time
	cur, prev int
}

func (w *slidingWindow) roll(now time.Time) {
	if w.start.IsZero() {
		w.start = now.Truncate(w.size)
		return
	}
	elapsed := now.Sub(w.start)
	switch {
	case elapsed >= 2*w.size:
		w.prev, w.cur = 0, 0
		w.start = now.Truncate(w.size)
	case elapsed >= w.size:
		w.prev, w.cur = w.cur, 0
		w.start = w.start.Add(w.size)
	}
}

func (w *slidingWindow) estimate(now time.Time) float64 {
	frac := float64(now.Sub(w.start)) / float64(w.size)
	return float64(w.prev)*(1-frac) + float64(w.cur)
}

// wait is zero when one more request fits, else the time until it will.
func (w *slidingWindow) wait(now time.Time) time.Duration {
	w.roll(now)
	if w.estimate(now)+1 <= float64(w.limit) {
		return 0
	}
	elapsed := float64(now.Sub(w.start))
	size := float64(w.size)
	room := float64(w.limit) - 1 - float64(w.cur)
	if room >= 0 && w.prev > 0 {
		// prev*(1-(elapsed+t)/size) <= room
		t := size*(1-room/float64(w.prev)) - elapsed
		return time.Duration(math.Max(t, float64(time.Second)))
	}
	// Only after the current window rolls over, and its count decays below the limit.
	t := (size - elapsed) + size*(1-(float64(w.limit)-1)/float64(max(w.cur, 1)))
	return time.Duration(math.Max(t, float64(time.Second)))
}

func (w *slidingWindow) add(now time.Time) {
	w.roll(now)
	w.cur++
}

// Login back-off per account (whatever addresses the guesses come from): the first
// backoffFree attempts in a row that do not succeed pass; from then on each attempt must
// wait a delay that starts at backoffBase and doubles with every further attempt, up to
// backoffMax. A successful login, or backoffForget without attempts, starts afresh. An
// attacker can thus keep an account waiting at most backoffMax at a time, and the same
// applies to usernames that do not exist, so the answers reveal nothing.
const (
	backoffFree   = 5
	backoffBase   = time.Second
	backoffMax    = 5 * time.Minute
	backoffForget = time.Hour
	// accountKeyLen is longer than any username, so distinct usernames never share a key,
	// and bounds what a key can hold.
	accountKeyLen = 65
)

// accountKey is the back-off key of a login name: usernames are unique regardless of case.
func accountKey(username string) string {
	k := strings.ToLower(strings.TrimSpace(username))
	if len(k) > accountKeyLen {
		k = k[:accountKeyLen]
	}
	return k
}

type accountBackoff struct {
	maxKeys int
	now     func() time.Time

	mu      sync.Mutex
	entries map[string]*backoffEntry
}

type backoffEntry struct {
	attempts int       // attempts since the last success
	until    time.Time // no attempt before this
	last     time.Time
}

func newAccountBackoff(maxKeys int, now func() time.Time) *accountBackoff {
	return &accountBackoff{maxKeys: max(maxKeys, 16), now: now, entries: map[string]*backoffEntry{}}
}

// begin admits one login attempt on account, or says how long to wait. An admitted attempt
// counts as a failure until succeeded says otherwise, so concurrent guesses cannot all pass
// before the first of them fails.
func (b *accountBackoff) begin(account string) (bool, time.Duration) {
	if b == nil {
		return true, 0
	}
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.entries[account]
	if ok && now.Sub(e.last) > backoffForget && !now.Before(e.until) {
		e.attempts = 0
	}
	if ok && now.Before(e.until) {
		return false, e.until.Sub(now)
	}
	if !ok {
		b.makeRoom(now)
		e = &backoffEntry{}
		b.entries[account] = e
	}
	e.attempts++
	e.last = now
	if over := e.attempts - backoffFree; over >= 0 {
		delay := backoffMax
		if over < 20 {
			delay = min(backoffBase<<over, backoffMax)
		}
		e.until = now.Add(delay)
	}
	return true, 0
}

// succeeded forgets the account's failures.
func (b *accountBackoff) succeeded(account string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.entries, account)
}

// makeRoom keeps the map bounded: forgotten and idle entries go first, then entries not
// waiting, then any.
func (b *accountBackoff) makeRoom(now time.Time) {
	if len(b.entries) < b.maxKeys {
		return
	}
	for k, e := range b.entries {
		if now.Sub(e.last) > backoffForget && !now.Before(e.until) {
			delete(b.entries, k)
		}
	}
	for k, e := range b.entries {
		if len(b.entries) < b.maxKeys {
			return
		}
		if !now.Before(e.until) {
			delete(b.entries, k)
		}
	}
	for k := range b.entries {
		if len(b.entries) < b.maxKeys {
			return
		}
		delete(b.entries, k)
	}
}
