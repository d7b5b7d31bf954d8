package web

import (
	"math"
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
