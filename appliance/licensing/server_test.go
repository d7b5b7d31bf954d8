package licensing

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/license"
)

func TestPublicationStateMachine(t *testing.T) {
	chrome := mapping("Google LLC", "Google Chrome", "google", "chrome", conf(0.8))
	cases := []struct {
		name          string
		pushes        []license.Mapping // pushed by installations inst-0, inst-1, ... in turn
		installations []int             // which installation pushes each mapping
		wantCount     int
		wantPublished bool
	}{
		{"two installations stay unpublished", []license.Mapping{chrome, chrome}, []int{0, 1}, 2, false},
		{"three installations publish", []license.Mapping{chrome, chrome, chrome}, []int{0, 1, 2}, 3, true},
		{"the same installation twice counts once", []license.Mapping{chrome, chrome, chrome}, []int{0, 1, 1}, 2, false},
		{"case and blank variants are one tuple", []license.Mapping{chrome,
			mapping("  GOOGLE llc", "google chrome ", "Google", "CHROME", conf(0.8)),
			mapping("google LLC", "GOOGLE CHROME", " google ", "Chrome ", nil)}, []int{0, 1, 2}, 3, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, DefaultOptions())
			who := map[int]Licensee{}
			for i, m := range c.pushes {
				n := c.installations[i]
				if _, ok := who[n]; !ok {
					who[n] = f.licensee(t, "professional", fmt.Sprintf("inst-%d", n))
				}
				f.push(t, who[n], m)
			}
			row, err := f.store.KBMappingByTuple(context.Background(), appliance.SourceCommunity, license.TupleKey(chrome))
			if err != nil || row.ContributionCount != c.wantCount || row.Published != c.wantPublished {
				t.Fatalf("row = %+v (%v), want %d contributions, published %v", row, err, c.wantCount, c.wantPublished)
			}
			pulled := f.pulled(t, who[0], appliance.SourceCommunity)
			if got := len(pulled) == 1; got != c.wantPublished {
				t.Errorf("pull returned %d community mappings; published = %v", len(pulled), c.wantPublished)
			}
		})
	}
}

func TestConflictingTargetsAreSeparateTuples(t *testing.T) {
	f := newFixture(t, DefaultOptions())
	var who []Licensee
	for i := range 4 {
		who = append(who, f.licensee(t, "professional", fmt.Sprintf("inst-%d", i)))
	}
	widget := func(product string) license.Mapping { return mapping("Acme", "Widget", "acme", product, nil) }
	for i, w := range who {
		f.push(t, w, widget("widget"))
		if i < 3 {
			f.push(t, w, widget("widget_pro"))
		}
	}
	ctx := context.Background()
	for product, count := range map[string]int{"widget": 4, "widget_pro": 3} {
		row, err := f.store.KBMappingByTuple(ctx, appliance.SourceCommunity, license.TupleKey(widget(product)))
		if err != nil || row.ContributionCount != count || !row.Published {
			t.Errorf("%s: %+v (%v), want %d contributions, published", product, row, err, count)
		}
	}
	if got := f.pulled(t, who[0], "community"); len(got) != 2 {
		t.Errorf("pull returned %d mappings, want both targets", len(got))
	}
}

func TestConfidenceIsCapped(t *testing.T) {
	cases := []struct {
		name string
		in   []*float64
		want float64
	}{
		{"0.99 from everyone", []*float64{conf(0.99), conf(0.99), conf(0.99)}, 0.90},
		{"1.0 from everyone", []*float64{conf(1), conf(1), conf(1)}, 0.90},
		{"mean below the cap", []*float64{conf(0.6), conf(0.9), conf(0.3)}, 0.60},
		{"absent means the default", []*float64{nil, nil, nil}, license.DefaultCommunityConfidence},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, DefaultOptions())
			m := mapping("Igor Pavlov", "7-Zip", "7-zip", "7-zip", nil)
			for i, cf := range c.in {
				m.Confidence = cf
				f.push(t, f.licensee(t, "professional", fmt.Sprintf("inst-%d", i)), m)
			}
			row, err := f.store.KBMappingByTuple(context.Background(), "community", license.TupleKey(m))
			if err != nil || row.Confidence < c.want-1e-9 || row.Confidence > c.want+1e-9 {
				t.Errorf("confidence = %v (%v), want %v", row.Confidence, err, c.want)
			}
		})
	}
}

func TestPushRefusals(t *testing.T) {
	f := newFixture(t, DefaultOptions())
	pro := f.licensee(t, "professional", "inst-pro")
	std := f.licensee(t, "standard", "inst-std")
	ok := mapping("Mozilla", "Firefox", "mozilla", "firefox", nil)
	cases := []struct {
		name        string
		who         Licensee
		body        string
		edition     string
		ms          []license.Mapping
		wantErr     error
		wantInvalid string
	}{
		{"no mappings", pro, "inst-pro", "professional", nil, nil, "mappings"},
		{"501 mappings", pro, "inst-pro", "professional", realMappings(t, 501), nil, "mappings"},
		{"confidence above 1", pro, "inst-pro", "professional", []license.Mapping{ok, mapping("a", "b", "c", "d", conf(1.01))}, nil, "mappings[1].confidence"},
		{"confidence below 0", pro, "inst-pro", "professional", []license.Mapping{mapping("a", "b", "c", "d", conf(-0.1))}, nil, "mappings[0].confidence"},
		{"body installation differs", pro, "inst-other", "professional", []license.Mapping{ok}, nil, "installation_id"},
		{"missing cpe_product", pro, "inst-pro", "professional", []license.Mapping{mapping("a", "b", "c", " ", nil)}, nil, "mappings[0].cpe_product"},
		{"standard edition", std, "inst-std", "professional", []license.Mapping{ok}, appliance.ErrForbidden, ""},
		{"no X-Edition", pro, "inst-pro", "", []license.Mapping{ok}, appliance.ErrForbidden, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.srv.Push(context.Background(), c.who, c.body, c.edition, c.ms)
			var ve *appliance.ValidationError
			switch {
			case c.wantErr != nil && !errors.Is(err, c.wantErr):
				t.Errorf("err = %v, want %v", err, c.wantErr)
			case c.wantInvalid != "" && (!errors.As(err, &ve) || ve.Field != c.wantInvalid):
				t.Errorf("err = %v, want a validation error on %s", err, c.wantInvalid)
			}
		})
	}
	stats, err := f.srv.Sources(context.Background())
	for _, s := range stats {
		if s.Source == "community" && s.Total != 0 {
			t.Errorf("refused pushes stored %d mappings", s.Total)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestActivationBindsOneInstallation(t *testing.T) {
	f := newFixture(t, DefaultOptions())
	ctx := context.Background()
	code, err := f.srv.CreateCode(ctx, "professional", 30*24*time.Hour, "Example")
	if err != nil {
		t.Fatal(err)
	}
	first, err := f.srv.Activate(ctx, code, "inst-a")
	if err != nil {
		t.Fatal(err)
	}
	f.clock.t = f.clock.t.Add(time.Hour)
	again, err := f.srv.Activate(ctx, strings.ToLower(code), "inst-a")
	if err != nil || again != first {
		t.Errorf("reactivation = %+v (%v), want the identical licence %+v", again, err, first)
	}
	if _, err := f.srv.Activate(ctx, code, "inst-b"); !errors.Is(err, appliance.ErrConflict) {
		t.Errorf("another installation: %v, want ErrConflict", err)
	}
	p, err := license.Verify(f.srv.PublicKey(), first.License)
	if err != nil || p.InstallationID != "inst-a" || !p.ExpiresAt.Equal(f.clock.t.Add(-time.Hour).Add(30*24*time.Hour)) {
		t.Errorf("licence payload = %+v (%v), want inst-a for 30 days from activation", p, err)
	}
	cred := license.Credential(first.License)
	if raw := f.fileBytes(t); bytes.Contains(raw, []byte(cred)) || !bytes.Contains(raw, []byte(license.HashSecret(cred))) {
		t.Error("the database files hold the raw credential, or not its hash")
	}
	if bytes.Contains(f.fileBytes(t), []byte(code)) {
		t.Error("the database files hold the raw activation code")
	}
	other, _ := f.srv.CreateCode(ctx, "standard", time.Hour, "")
	unknown, _ := license.NewActivationCode()
	cases := []struct {
		name, code, installation string
		want                     error
	}{
		{"unknown code", unknown, "inst-a", appliance.ErrNotFound},
		{"malformed code", strings.Repeat("A", len(code)), "inst-a", nil},
		{"bad installation id", other, "has spaces", nil},
		{"empty code", "", "inst-a", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.srv.Activate(ctx, c.code, c.installation)
			var ve *appliance.ValidationError
			if c.want != nil && !errors.Is(err, c.want) || c.want == nil && !errors.As(err, &ve) {
				t.Errorf("err = %v, want %v (nil: a validation error)", err, c.want)
			}
		})
	}
}

func TestAuthenticateAndExpiry(t *testing.T) {
	f := newFixture(t, DefaultOptions())
	ctx := context.Background()
	act := f.activate(t, "professional", time.Hour, "inst-a")
	cred := license.Credential(act.License)
	cases := []struct {
		name, credential, installation string
	}{
		{"unknown credential", strings.Repeat("x", 64), "inst-a"},
		{"short credential", cred[:63], "inst-a"},
		{"another installation", cred, "inst-b"},
		{"no installation", cred, ""},
	}
	for _, c := range cases {
		if _, err := f.srv.Authenticate(ctx, c.credential, c.installation); !errors.Is(err, appliance.ErrUnauthorized) {
			t.Errorf("%s: %v, want ErrUnauthorized", c.name, err)
		}
	}
	f.clock.t = act.ExpiresAt
	who, err := f.srv.Authenticate(ctx, cred, "inst-a")
	if err != nil || !who.Expired {
		t.Fatalf("at expiry: %+v (%v), want authenticated and expired", who, err)
	}
	if _, err := f.srv.Push(ctx, who, "inst-a", "professional", []license.Mapping{mapping("a", "b", "c", "d", nil)}); !errors.Is(err, ErrExpired) {
		t.Errorf("push when expired: %v, want ErrExpired", err)
	}
	if _, err := f.srv.Pull(ctx, who, appliance.PullQuery{}, func(appliance.KBMapping) error { return nil }); !errors.Is(err, ErrExpired) {
		t.Errorf("pull when expired: %v, want ErrExpired", err)
	}
}

func TestCurateWithdrawAndExport(t *testing.T) {
	f := newFixture(t, DefaultOptions())
	ctx := context.Background()
	who := f.licensee(t, "standard", "inst-a")
	log4j := mapping("Apache Software Foundation", "Apache Log4j", "apache", "log4j", nil)
	if err := f.srv.Curate(ctx, log4j); err != nil {
		t.Fatal(err)
	}
	if got := f.pulled(t, who, "curated"); len(got) != 1 || got[0].Confidence != 1 || got[0].Retracted {
		t.Fatalf("curated pull = %+v, want the mapping at confidence 1", got)
	}
	if err := f.srv.Curate(ctx, mapping("a", "b", "c", "*", nil)); err == nil {
		t.Error("a wildcard CPE product was curated")
	}
	f.clock.t = f.clock.t.Add(time.Minute)
	if err := f.srv.Withdraw(ctx, "curated", log4j); err != nil {
		t.Fatal(err)
	}
	if got := f.pulled(t, who, "curated"); len(got) != 1 || !got[0].Retracted || !got[0].UpdatedAt.Equal(f.clock.t) {
		t.Errorf("after withdrawal: %+v, want it retracted at %v", got, f.clock.t)
	}
	if err := f.srv.Withdraw(ctx, "community", log4j); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("retracting an unknown community mapping: %v, want ErrNotFound", err)
	}
	var buf bytes.Buffer
	n, err := f.srv.Export(ctx, &buf)
	if err != nil || n != 1 {
		t.Fatalf("export: %d mappings, %v", n, err)
	}
	snap, err := license.ReadSnapshot(&buf, f.srv.PublicKey())
	if err != nil || len(snap.Mappings) != 1 || !snap.Mappings[0].Retracted {
		t.Errorf("snapshot = %+v (%v), want the retracted mapping", snap, err)
	}
}

func TestPullQueryChecks(t *testing.T) {
	f := newFixture(t, DefaultOptions())
	who := f.licensee(t, "standard", "inst-a")
	for _, q := range []appliance.PullQuery{{Source: "vendor"}, {Offset: -1}} {
		var ve *appliance.ValidationError
		if _, err := f.srv.Pull(context.Background(), who, q, func(appliance.KBMapping) error { return nil }); !errors.As(err, &ve) {
			t.Errorf("pull %+v: %v, want a validation error", q, err)
		}
	}
}

func TestOperatorAndReleaseSettings(t *testing.T) {
	bare := newFixture(t, DefaultOptions()).srv
	configured := newFixture(t, Options{AdminToken: "s3cret-admin-token", ReleaseVersion: "1.4.0", ReleaseURL: "https://example.test/vk-1.4.0.deb"}).srv
	for _, c := range []struct {
		srv   *Server
		token string
		ok    bool
	}{{bare, "", false}, {bare, "anything", false}, {configured, "", false}, {configured, "wrong", false}, {configured, "s3cret-admin-token", true}} {
		if err := c.srv.CheckAdmin(c.token); (err == nil) != c.ok || err != nil && !errors.Is(err, appliance.ErrUnauthorized) {
			t.Errorf("CheckAdmin(%q) = %v, want ok=%v", c.token, err, c.ok)
		}
	}
	if _, err := bare.LatestRelease(); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("unconfigured release: %v, want ErrNotFound", err)
	}
	if rel, err := configured.LatestRelease(); err != nil || rel.Version != "1.4.0" || rel.URL == "" {
		t.Errorf("release = %+v (%v)", rel, err)
	}
	signed, err := license.SignBytes(testKey("licensing-test"), []byte(`{"hello":"world"}`))
	if err != nil {
		t.Fatal(err)
	}
	foreign, _ := license.SignBytes(testKey("someone else"), []byte(`{"hello":"world"}`))
	if p, ok := bare.VerifySigned(signed); !ok || string(p) != `{"hello":"world"}` {
		t.Errorf("own signature: %q %v", p, ok)
	}
	for _, s := range []string{foreign, signed[:len(signed)-4] + "AAAA", "not base64", ""} {
		if _, ok := bare.VerifySigned(s); ok {
			t.Errorf("VerifySigned(%.20q) accepted", s)
		}
	}
}

// TestOneCustomerIsOneVoice: three installations of one customer (three activation codes)
// do not publish a community mapping; a second and third customer do (issue 8 §4).
func TestOneCustomerIsOneVoice(t *testing.T) {
	f := newFixture(t, DefaultOptions())
	ctx := context.Background()
	evil := mapping("OpenSSL Project", "OpenSSL", "evilcorp", "notopenssl", nil)
	var first Licensee
	for i := range 3 {
		id := fmt.Sprintf("mallory-%d", i)
		act := f.activateFor(t, "Mallory Ltd", "professional", time.Hour, id)
		who, err := f.srv.Authenticate(ctx, license.Credential(act.License), id)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = who
		}
		f.push(t, who, evil)
	}
	row, err := f.store.KBMappingByTuple(ctx, appliance.SourceCommunity, license.TupleKey(evil))
	if err != nil || row.ContributionCount != 3 || row.Published {
		t.Fatalf("one customer's three installations: %+v (%v), want 3 contributions, not published", row, err)
	}
	if got := f.pulled(t, first, appliance.SourceCommunity); len(got) != 0 {
		t.Fatalf("pulled %d community mappings, want none", len(got))
	}
	// Case and blanks of the customer name do not make another voice.
	act := f.activateFor(t, "  MALLORY LTD ", "professional", time.Hour, "mallory-x")
	who, _ := f.srv.Authenticate(ctx, license.Credential(act.License), "mallory-x")
	f.push(t, who, evil)
	row, _ = f.store.KBMappingByTuple(ctx, appliance.SourceCommunity, license.TupleKey(evil))
	if row.Published {
		t.Fatalf("four installations of one customer published it: %+v", row)
	}
	for _, inst := range []string{"alice", "bob"} { // two more customers
		f.push(t, f.licensee(t, "professional", inst), evil)
	}
	row, _ = f.store.KBMappingByTuple(ctx, appliance.SourceCommunity, license.TupleKey(evil))
	if !row.Published {
		t.Errorf("three customers agree, yet not published: %+v", row)
	}
}

// TestInstallationIDBelongsToOneLicence: activating another code with an installation ID that
// a licence already holds is a conflict, and no second licence is made.
func TestInstallationIDBelongsToOneLicence(t *testing.T) {
	f := newFixture(t, DefaultOptions())
	ctx := context.Background()
	f.activate(t, "professional", time.Hour, "inst-1")
	code, err := f.srv.CreateCode(ctx, "standard", time.Hour, "Someone Else")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.srv.Activate(ctx, code, "inst-1"); !errors.Is(err, appliance.ErrConflict) {
		t.Fatalf("second licence for inst-1: %v, want a conflict", err)
	}
	// The refused code is still unused: it activates another installation.
	if _, err := f.srv.Activate(ctx, code, "inst-2"); err != nil {
		t.Errorf("the refused code on a new installation: %v", err)
	}
}
