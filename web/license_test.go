package web

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/kb"

	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
)

func TestLicenceServerServesOnlyAPIv1(t *testing.T) {
	lic := newLicEnv(t, licensing.DefaultOptions())
	inst := newTestEnv(t)
	runScenarios(t, []scenario{
		{"health on the licence server", "GET", "/healthz", nil, lic.anonymous(), 200, nil},
		{"installation route on the licence server", "GET", "/api/products", nil, lic.anonymous(), 404, wantErrorCode("not_found")},
		{"agent route on the licence server", "POST", "/api/agent/inventory", "{}", lic.anonymous(), 404, wantErrorCode("not_found")},
		{"pull on an installation", "GET", "/api/v1/kb/mappings/pull", nil, inst.anonymous(), 404, wantErrorCode("not_found")},
		{"activate on an installation", "POST", "/api/v1/license/activate", "{}", inst.anonymous(), 404, wantErrorCode("not_found")},
	})
}

func TestActivationOverHTTP(t *testing.T) {
	e := newLicEnv(t, licensing.DefaultOptions())
	code := e.code(t, "professional", 24*time.Hour)
	unknown, _ := licensing.NewActivationCode()
	anon := e.anonymous()
	var first activateResponse
	runScenarios(t, []scenario{
		{"activate", "POST", "/api/v1/license/activate", activateRequest{code, "inst-a"}, anon, 200, func(t *testing.T, res response) {
			first = decodeBody[activateResponse](t, res)
			p, err := licensing.Verify(e.lic.PublicKey(), first.License)
			if err != nil || first.Edition != "professional" || first.InstallationID != "inst-a" || !p.ExpiresAt.Equal(first.ExpiresAt) ||
				time.Until(first.ExpiresAt) < 23*time.Hour {
				t.Errorf("activation = %+v (payload %+v, %v)", first, p, err)
			}
		}},
		{"same installation again", "POST", "/api/v1/license/activate", activateRequest{code, "inst-a"}, anon, 200, func(t *testing.T, res response) {
			if again := decodeBody[activateResponse](t, res); again != first {
				t.Errorf("reactivation = %+v, want the identical %+v", again, first)
			}
		}},
		{"another installation", "POST", "/api/v1/license/activate", activateRequest{code, "inst-b"}, anon, 409, wantErrorCode("conflict")},
		{"unknown code", "POST", "/api/v1/license/activate", activateRequest{unknown, "inst-a"}, anon, 404, wantErrorCode("not_found")},
		{"malformed code", "POST", "/api/v1/license/activate", activateRequest{"VK-nope", "inst-a"}, anon, 400, wantField("activation_code")},
		{"bad installation id", "POST", "/api/v1/license/activate", activateRequest{code, "two words"}, anon, 400, wantField("installation_id")},
	})
	hb := decodeBody[licenseHeartbeatResponse](t, e.as(licensing.Credential(first.License), "inst-a", "").do(t, "POST", "/api/v1/heartbeat", nil))
	if hb.Status != "active" || hb.Edition != "professional" || hb.InstallationID != "inst-a" || hb.ServerTime.IsZero() {
		t.Errorf("heartbeat = %+v", hb)
	}
}

func TestKBAuthenticationOverHTTP(t *testing.T) {
	e := newLicEnv(t, licensing.DefaultOptions())
	pro := e.installation(t, "professional", "inst-pro")
	std := e.installation(t, "standard", "inst-std")
	// A licence valid for one second, activated now, is expired a second later.
	res := e.anonymous().do(t, "POST", "/api/v1/license/activate", activateRequest{e.code(t, "professional", time.Second), "inst-old"})
	old := e.as(licensing.Credential(decodeBody[activateResponse](t, res).License), "inst-old", "professional")
	time.Sleep(1100 * time.Millisecond)
	cred := pro.header.Get("Authorization")[len("Bearer "):]
	body := pushBody("inst-pro", pm("Mozilla", "Firefox", "mozilla", "firefox", nil))
	pull := "/api/v1/kb/mappings/pull"
	push := "/api/v1/kb/mappings/push"
	runScenarios(t, []scenario{
		{"pull without credentials", "GET", pull, nil, e.anonymous(), 401, wantErrorCode("unauthorized")},
		{"pull with an unknown bearer", "GET", pull, nil, e.as(strings.Repeat("A", 64), "inst-pro", ""), 401, wantErrorCode("unauthorized")},
		{"pull naming another installation", "GET", pull, nil, e.as(cred, "inst-std", ""), 401, wantErrorCode("unauthorized")},
		{"pull without installation header", "GET", pull, nil, e.anonymous().withHeader("Authorization", "Bearer "+cred), 401, wantErrorCode("unauthorized")},
		{"pull by a standard licence", "GET", pull, nil, std, 200, nil},
		{"pull with an expired licence", "GET", pull, nil, old, 403, wantErrorCode("forbidden")},
		{"push with an expired licence", "POST", push, pushBody("inst-old", body.Mappings...), old, 403, wantErrorCode("forbidden")},
		{"heartbeat reports expiry", "POST", "/api/v1/heartbeat", nil, old, 200, func(t *testing.T, res response) {
			if hb := decodeBody[licenseHeartbeatResponse](t, res); hb.Status != "expired" {
				t.Errorf("heartbeat status = %q, want expired", hb.Status)
			}
		}},
		{"push by a standard licence", "POST", push, pushBody("inst-std", body.Mappings...), std, 403, wantErrorCode("forbidden")},
		{"push without X-Edition", "POST", push, body, e.as(cred, "inst-pro", ""), 403, wantErrorCode("forbidden")},
		{"push with X-Edition standard", "POST", push, body, e.as(cred, "inst-pro", "standard"), 403, wantErrorCode("forbidden")},
		{"push without credentials", "POST", push, body, e.anonymous(), 401, wantErrorCode("unauthorized")},
		{"push", "POST", push, body, pro, 200, func(t *testing.T, res response) {
			got := decodeBody[map[string]any](t, res)
			if got["status"] != "accepted" || got["accepted"] != 1.0 || got["message"] == "" {
				t.Errorf("push answer = %v", got)
			}
		}},
	})
}

func TestPushOverHTTP(t *testing.T) {
	e := newLicEnv(t, licensing.DefaultOptions())
	var insts []*client
	for i := range 3 {
		insts = append(insts, e.installation(t, "professional", fmt.Sprintf("inst-%d", i)))
	}
	many := make([]pushMappingJSON, 501)
	for i, r := range realRows(t, 501) {
		many[i] = pm(r[1], r[2], "vendor", "product", nil)
	}
	chrome := pm("Google LLC", "Google Chrome", "google", "chrome", ptr(0.99))
	push := "/api/v1/kb/mappings/push"
	communityCount := func(want int) func(t *testing.T, res response) {
		return func(t *testing.T, res response) {
			pr := pulled(t, insts[0].do(t, "GET", "/api/v1/kb/mappings/pull?source=community", nil))
			if len(pr.Mappings) != want || pr.Total != want {
				t.Fatalf("community pull = %+v, want %d mappings", pr, want)
			}
			if want == 1 && (pr.Mappings[0].Confidence != 0.90 || pr.Mappings[0].ContributionCount != 3 || pr.Mappings[0].Source != "community") {
				t.Errorf("published mapping = %+v, want confidence 0.90 from 3 installations", pr.Mappings[0])
			}
		}
	}
	runScenarios(t, []scenario{
		{"no mappings", "POST", push, pushBody("inst-0"), insts[0], 400, wantField("mappings")},
		{"mappings missing", "POST", push, `{"installation_id":"inst-0"}`, insts[0], 400, wantField("mappings")},
		{"501 mappings", "POST", push, pushBody("inst-0", many...), insts[0], 400, wantField("mappings")},
		{"confidence above 1", "POST", push, pushBody("inst-0", pm("a", "b", "c", "d", ptr(1.5))), insts[0], 400, wantField("mappings[0].confidence")},
		{"confidence below 0", "POST", push, pushBody("inst-0", chrome, pm("a", "b", "c", "d", ptr(-0.5))), insts[0], 400, wantField("mappings[1].confidence")},
		{"body installation differs from the header", "POST", push, pushBody("inst-1", chrome), insts[0], 400, wantField("installation_id")},
		{"missing field", "POST", push, pushBody("inst-0", pm("a", "", "c", "d", nil)), insts[0], 400, wantField("mappings[0].product_pattern")},
		{"nothing was stored", "GET", "/api/v1/kb/mappings/pull?source=community", nil, insts[0], 200, communityCount(0)},
		{"first installation", "POST", push, pushBody("inst-0", chrome), insts[0], 200, nil},
		{"first installation again", "POST", push, pushBody("inst-0", pm("google llc", " GOOGLE CHROME", "Google", "Chrome", nil)), insts[0], 200, nil},
		{"second installation", "POST", push, pushBody("inst-1", chrome), insts[1], 200, nil},
		{"two installations: unpublished", "GET", "/api/v1/kb/mappings/pull?source=community", nil, insts[0], 200, communityCount(0)},
		{"third installation, another case", "POST", push, pushBody("inst-2", pm(" GOOGLE LLC ", "google chrome", "GOOGLE", "chrome", ptr(0.99))), insts[2], 200, nil},
		{"three installations: published", "GET", "/api/v1/kb/mappings/pull?source=community", nil, insts[0], 200, communityCount(1)},
	})
}

// pageAll pulls with limit 500 and growing offsets and counts every mapping served.
func pageAll(t *testing.T, c *client, query url.Values) (seen map[string]int, last time.Time, pages int) {
	t.Helper()
	seen = map[string]int{}
	for offset := 0; ; pages++ {
		query.Set("limit", "500")
		query.Set("offset", strconv.Itoa(offset))
		pr := pulled(t, c.do(t, "GET", "/api/v1/kb/mappings/pull?"+query.Encode(), nil))
		for _, m := range pr.Mappings {
			seen[m.Source+"|"+m.VendorPattern+"|"+m.ProductPattern]++
			if m.UpdatedAt.After(last) {
				last = m.UpdatedAt
			}
		}
		offset += len(pr.Mappings)
		if !pr.HasMore {
			return seen, last, pages + 1
		}
	}
}

func TestPullPagingOverHTTP(t *testing.T) {
	e := newLicEnv(t, licensing.DefaultOptions())
	t0 := time.Date(2026, 3, 1, 8, 30, 15, 250000000, time.UTC)
	seedKB(t, e.Store, 3000, 1200, t0)
	c := e.installation(t, "standard", "inst-a")
	seen, last, pages := pageAll(t, c, url.Values{})
	dups := 0
	for _, n := range seen {
		dups += n - 1
	}
	if len(seen) != 4200 || dups != 0 || pages != 9 || !last.Equal(t0) {
		t.Fatalf("paged pull: %d distinct, %d duplicates, %d pages, newest %v; want 4200, 0, 9, %v", len(seen), dups, pages, last, t0)
	}
	sinceCount := func(since string, want int) func(t *testing.T, res response) {
		return func(t *testing.T, res response) {
			if pr := pulled(t, res); pr.Total != want || len(pr.Mappings) != want || pr.HasMore {
				t.Errorf("since %s: total %d, %d mappings, has_more %v; want %d", since, pr.Total, len(pr.Mappings), pr.HasMore, want)
			}
		}
	}
	q := func(kv ...string) string {
		v := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return "/api/v1/kb/mappings/pull?" + v.Encode()
	}
	lastText := last.Format(time.RFC3339Nano)
	runScenarios(t, []scenario{
		{"since the newest updated_at", "GET", q("since", lastText), nil, c, 200, sinceCount(lastText, 0)},
		{"since without fraction", "GET", q("since", "2026-03-01T08:30:15Z"), nil, c, 200, sinceCount("whole second", 4200)},
		{"since with an offset zone", "GET", q("since", "2026-03-01T09:30:16+01:00"), nil, c, 200, sinceCount("after", 0)},
		{"community", "GET", q("source", "community", "limit", "50000"), nil, c, 200, sinceCount("-", 3000)},
		{"nvd", "GET", q("source", "nvd"), nil, c, 200, sinceCount("-", 1200)},
		{"all", "GET", q("source", "all", "limit", "10", "offset", "4195"), nil, c, 200, func(t *testing.T, res response) {
			if pr := pulled(t, res); pr.Total != 4200 || len(pr.Mappings) != 5 || pr.HasMore {
				t.Errorf("last page = total %d, %d mappings, has_more %v", pr.Total, len(pr.Mappings), pr.HasMore)
			}
		}},
		{"bad since", "GET", q("since", "yesterday"), nil, c, 400, wantField("since")},
		{"date-only since", "GET", q("since", "2026-03-01"), nil, c, 400, wantField("since")},
		{"bad source", "GET", q("source", "vendor"), nil, c, 400, wantField("source")},
		{"bad limit", "GET", q("limit", "many"), nil, c, 400, wantField("limit")},
		{"negative offset", "GET", q("offset", "-1"), nil, c, 400, wantField("offset")},
	})
	// A retraction after the sync shows up in the next incremental pull, marked retracted.
	time.Sleep(time.Millisecond)
	rows := realRows(t, 1)
	if err := e.hub.Curate(context.Background(), kb.Mapping{VendorPattern: "Acme", ProductPattern: "Widget", CPEVendor: rows[0][1], CPEProduct: rows[0][2]}); err != nil {
		t.Fatal(err)
	}
	if err := e.hub.Withdraw(context.Background(), "curated", kb.Mapping{VendorPattern: "acme ", ProductPattern: "WIDGET", CPEVendor: rows[0][1], CPEProduct: rows[0][2]}); err != nil {
		t.Fatal(err)
	}
	pr := pulled(t, c.do(t, "GET", q("since", lastText), nil))
	if len(pr.Mappings) != 1 || !pr.Mappings[0].Retracted || pr.Mappings[0].Source != "curated" || !strings.Contains(string(c.do(t, "GET", q("since", lastText), nil).Body), `"retracted":true`) {
		t.Errorf("incremental pull after a retraction = %+v, want the one mapping with retracted: true", pr)
	}
}

func TestKBLimitsPerInstallation(t *testing.T) {
	clk := newFakeClock()
	limits := LimitOptions{Enabled: true, KBPushPerHour: 1, KBPullPerHour: 1, KBPagesPerHour: 120, MaxKeys: 100}
	e := newLicEnv(t, licensing.DefaultOptions(), withLimits(limits), withClock(clk))
	seedKB(t, e.Store, 0, 30, time.Now())
	a := e.installation(t, "professional", "inst-a")
	b := e.installation(t, "professional", "inst-b")
	pull := "/api/v1/kb/mappings/pull?limit=10"
	push := "/api/v1/kb/mappings/push"
	retryAfter := func(t *testing.T, res response) {
		wantError(t, res, "rate_limited")
		if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || s < 1 || s > 3600 {
			t.Errorf("Retry-After = %q, want seconds within the hour", res.Header.Get("Retry-After"))
		}
	}
	runScenarios(t, []scenario{
		{"a bad credential naming inst-b", "GET", pull, nil, e.as(strings.Repeat("Z", 64), "inst-b", ""), 401, nil},
		{"first pull of inst-a", "GET", pull, nil, a, 200, nil},
		{"continuation pages are not counted", "GET", pull + "&offset=10", nil, a, 200, nil},
		{"and the next one", "GET", pull + "&offset=20", nil, a, 200, nil},
		{"a second pull within the hour", "GET", pull, nil, a, 429, retryAfter},
		{"offset=0 is a new pull", "GET", pull + "&offset=0", nil, a, 429, retryAfter},
		{"offset=00 is a new pull too", "GET", pull + "&offset=00", nil, a, 429, retryAfter},
		{"and offset=-0", "GET", pull + "&offset=-0", nil, a, 429, retryAfter},
		{"a negative offset is a 400, not a page", "GET", pull + "&offset=-10", nil, a, 400, wantErrorCode("validation_error")},
		{"a malformed offset is a 400", "GET", pull + "&offset=1e3", nil, a, 400, wantErrorCode("validation_error")},
		{"inst-b's quota is untouched", "GET", pull, nil, b, 200, nil},
		{"first push", "POST", push, pushBody("inst-a", pm("Mozilla", "Firefox", "mozilla", "firefox", nil)), a, 200, nil},
		{"a second push within the hour", "POST", push, pushBody("inst-a", pm("Mozilla", "Thunderbird", "mozilla", "thunderbird", nil)), a, 429, retryAfter},
		{"inst-b may push", "POST", push, pushBody("inst-b", pm("Mozilla", "Firefox", "mozilla", "firefox", nil)), b, 200, nil},
	})
	clk.Advance(time.Hour + time.Second)
	runScenarios(t, []scenario{
		{"pull an hour later", "GET", pull, nil, a, 200, nil},
		{"push an hour later", "POST", push, pushBody("inst-a", pm("Mozilla", "Thunderbird", "mozilla", "thunderbird", nil)), a, 200, nil},
	})
}

func TestOperatorRoutes(t *testing.T) {
	bare := newLicEnv(t, licensing.DefaultOptions())
	opts := licensing.Options{AdminToken: "operator-token-0123456789", ReleaseVersion: "1.4.0", ReleasePublishedAt: "2026-03-01T00:00:00Z",
		ReleaseURL: "https://downloads.example.test/vulnkeeper_1.4.0_amd64.deb", ReleaseSHA256: strings.Repeat("ab", 32)}
	e := newLicEnv(t, opts)
	seedKB(t, e.Store, 4, 6, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	admin := e.anonymous().withHeader("Authorization", "Bearer "+opts.AdminToken)
	inst := e.installation(t, "standard", "inst-a")
	signed, err := licensing.SignBytes(licenceKey(), []byte("release 1.4.0 ok"))
	if err != nil {
		t.Fatal(err)
	}
	sources := func(want map[string]int) func(t *testing.T, res response) {
		return func(t *testing.T, res response) {
			got := map[string]int{}
			for _, s := range decodeBody[map[string][]sourceJSON](t, res)["sources"] {
				got[s.Source] = s.Total
				if s.Health != "ok" || s.LastImport == nil {
					t.Errorf("source %+v: want health ok with a last import", s)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("sources = %v, want %v", got, want)
			}
		}
	}
	runScenarios(t, []scenario{
		{"datasources without a token", "GET", "/api/v1/admin/datasources", nil, e.anonymous(), 401, wantErrorCode("unauthorized")},
		{"datasources with a wrong token", "GET", "/api/v1/admin/datasources", nil, e.anonymous().withHeader("Authorization", "Bearer nope"), 401, nil},
		{"a licence is no admin token", "GET", "/api/v1/admin/datasources", nil, inst, 401, nil},
		{"no token configured", "GET", "/api/v1/admin/datasources", nil, bare.anonymous().withHeader("Authorization", "Bearer "), 401, nil},
		{"datasources", "GET", "/api/v1/admin/datasources", nil, admin, 200, sources(map[string]int{"community": 4, "nvd": 6})},
		{"one datasource", "GET", "/api/v1/admin/datasources/nvd", nil, admin, 200, sources(map[string]int{"nvd": 6})},
		{"unknown datasource", "GET", "/api/v1/admin/datasources/other", nil, admin, 404, nil},
		{"release unconfigured", "GET", "/api/v1/releases/latest", nil, bare.anonymous(), 404, wantErrorCode("not_found")},
		{"release", "GET", "/api/v1/releases/latest", nil, e.anonymous(), 200, func(t *testing.T, res response) {
			got := decodeBody[map[string]string](t, res)
			if got["version"] != "1.4.0" || got["url"] != opts.ReleaseURL || got["sha256"] != opts.ReleaseSHA256 || got["published_at"] != opts.ReleasePublishedAt {
				t.Errorf("release = %v", got)
			}
		}},
		{"verify-signed needs a licence", "POST", "/api/v1/verify-signed", map[string]string{"signed": signed}, e.anonymous(), 401, nil},
		{"verify-signed valid", "POST", "/api/v1/verify-signed", map[string]string{"signed": signed}, inst, 200, func(t *testing.T, res response) {
			got := decodeBody[verifyResponse](t, res)
			if !got.Valid || got.Payload == nil || *got.Payload != base64.StdEncoding.EncodeToString([]byte("release 1.4.0 ok")) {
				t.Errorf("verify = %+v", got)
			}
		}},
		{"verify-signed tampered", "POST", "/api/v1/verify-signed", map[string]string{"signed": "A" + signed[1:]}, inst, 200, func(t *testing.T, res response) {
			if got := decodeBody[verifyResponse](t, res); got.Valid || got.Payload != nil {
				t.Errorf("verify = %+v, want invalid without payload", got)
			}
		}},
		{"verify-signed empty", "POST", "/api/v1/verify-signed", map[string]string{}, inst, 400, wantField("signed")},
	})
}

// FuzzPullQuery: any query string is answered 200 or 400, never 500.
func FuzzPullQuery(f *testing.F) {
	for _, s := range []string{"", "since=2026-03-01T08:30:15Z", "since=2026-03-01T08:30:15.25Z&limit=500&offset=500", "source=community",
		"source=all&limit=0", "limit=-1", "offset=99999999999999999999", "since=%00"} {
		f.Add(s)
	}
	e := newLicEnv(f, licensing.DefaultOptions())
	seedKB(f, e.Store, 5, 5, time.Date(2026, 3, 1, 8, 30, 15, 0, time.UTC))
	c := e.installation(f, "standard", "inst-fuzz")
	f.Fuzz(func(t *testing.T, query string) {
		res := c.do(t, "GET", "/api/v1/kb/mappings/pull?"+url.PathEscape(query), nil)
		if res.Status != 200 && res.Status != 400 {
			t.Fatalf("query %q: status %d %s", query, res.Status, res.Body)
		}
	})
}

// BenchmarkPull50000 pulls 50,000 mappings (real catalogue identities) through the real
// handler and SQLite file, and reports the heap growth a pull causes.
func BenchmarkPull50000(b *testing.B) {
	e := newLicEnv(b, licensing.DefaultOptions())
	seedKB(b, e.Store, 0, 50000, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	c := e.installation(b, "standard", "inst-bench")
	req, _ := http.NewRequest("GET", e.URL+"/api/v1/kb/mappings/pull", nil)
	for k, v := range c.header {
		req.Header[k] = v
	}
	var base, now runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&base)
	var peak uint64
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		res, err := c.http.Do(req)
		if err != nil || res.StatusCode != 200 {
			b.Fatalf("pull: %v %v", res, err)
		}
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		runtime.ReadMemStats(&now)
		peak = max(peak, now.HeapAlloc)
		if n < 50000*80 {
			b.Fatalf("pull answered %d bytes, too few for 50,000 mappings", n)
		}
	}
	b.StopTimer()
	growth := float64(peak-min(peak, base.HeapAlloc)) / (1 << 20)
	b.ReportMetric(growth, "heap-growth-MB")
	if perOp := b.Elapsed() / time.Duration(b.N); perOp > time.Second || growth > 50 {
		b.Errorf("a pull of 50,000 took %v with %.1f MB heap growth; want at most 1 s and 50 MB", perOp, growth)
	}
}
