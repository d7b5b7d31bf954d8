package kb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/licensing"
)

func TestPublicationStateMachine(t *testing.T) {
	chrome := pushMapping("Google LLC", "Google Chrome", "google", "chrome", Conf(0.8))
	cases := []struct {
		name          string
		pushes        []Mapping // pushed by installations inst-0, inst-1, ... in turn
		installations []int     // which installation pushes each mapping
		wantCount     int
		wantPublished bool
	}{
		{"two installations stay unpublished", []Mapping{chrome, chrome}, []int{0, 1}, 2, false},
		{"three installations publish", []Mapping{chrome, chrome, chrome}, []int{0, 1, 2}, 3, true},
		{"the same installation twice counts once", []Mapping{chrome, chrome, chrome}, []int{0, 1, 1}, 2, false},
		{"case and blank variants are one tuple", []Mapping{chrome,
			pushMapping("  GOOGLE llc", "google chrome ", "Google", "CHROME", Conf(0.8)),
			pushMapping("google LLC", "GOOGLE CHROME", " google ", "Chrome ", nil)}, []int{0, 1, 2}, 3, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, licensing.DefaultOptions())
			who := map[int]licensing.Licensee{}
			for i, m := range c.pushes {
				n := c.installations[i]
				if _, ok := who[n]; !ok {
					who[n] = f.licensee(t, "professional", fmt.Sprintf("inst-%d", n))
				}
				f.push(t, who[n], m)
			}
			row, err := f.store.KBMappingByTuple(context.Background(), appliance.SourceCommunity, TupleKey(chrome))
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
	f := newFixture(t, licensing.DefaultOptions())
	var who []licensing.Licensee
	for i := range 4 {
		who = append(who, f.licensee(t, "professional", fmt.Sprintf("inst-%d", i)))
	}
	widget := func(product string) Mapping { return pushMapping("Acme", "Widget", "acme", product, nil) }
	for i, w := range who {
		f.push(t, w, widget("widget"))
		if i < 3 {
			f.push(t, w, widget("widget_pro"))
		}
	}
	ctx := context.Background()
	for product, count := range map[string]int{"widget": 4, "widget_pro": 3} {
		row, err := f.store.KBMappingByTuple(ctx, appliance.SourceCommunity, TupleKey(widget(product)))
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
		{"0.99 from everyone", []*float64{Conf(0.99), Conf(0.99), Conf(0.99)}, 0.90},
		{"1.0 from everyone", []*float64{Conf(1), Conf(1), Conf(1)}, 0.90},
		{"mean below the cap", []*float64{Conf(0.6), Conf(0.9), Conf(0.3)}, 0.60},
		{"absent means the default", []*float64{nil, nil, nil}, DefaultCommunityConfidence},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, licensing.DefaultOptions())
			m := pushMapping("Igor Pavlov", "7-Zip", "7-zip", "7-zip", nil)
			for i, cf := range c.in {
				m.Confidence = cf
				f.push(t, f.licensee(t, "professional", fmt.Sprintf("inst-%d", i)), m)
			}
			row, err := f.store.KBMappingByTuple(context.Background(), "community", TupleKey(m))
			if err != nil || row.Confidence < c.want-1e-9 || row.Confidence > c.want+1e-9 {
				t.Errorf("confidence = %v (%v), want %v", row.Confidence, err, c.want)
			}
		})
	}
}

func TestPushRefusals(t *testing.T) {
	f := newFixture(t, licensing.DefaultOptions())
	pro := f.licensee(t, "professional", "inst-pro")
	std := f.licensee(t, "standard", "inst-std")
	ok := pushMapping("Mozilla", "Firefox", "mozilla", "firefox", nil)
	cases := []struct {
		name        string
		who         licensing.Licensee
		body        string
		edition     string
		ms          []Mapping
		wantErr     error
		wantInvalid string
	}{
		{"no mappings", pro, "inst-pro", "professional", nil, nil, "mappings"},
		{"501 mappings", pro, "inst-pro", "professional", realMappings(t, 501), nil, "mappings"},
		{"confidence above 1", pro, "inst-pro", "professional", []Mapping{ok, pushMapping("a", "b", "c", "d", Conf(1.01))}, nil, "mappings[1].confidence"},
		{"confidence below 0", pro, "inst-pro", "professional", []Mapping{pushMapping("a", "b", "c", "d", Conf(-0.1))}, nil, "mappings[0].confidence"},
		{"body installation differs", pro, "inst-other", "professional", []Mapping{ok}, nil, "installation_id"},
		{"missing cpe_product", pro, "inst-pro", "professional", []Mapping{pushMapping("a", "b", "c", " ", nil)}, nil, "mappings[0].cpe_product"},
		{"standard edition", std, "inst-std", "professional", []Mapping{ok}, appliance.ErrForbidden, ""},
		{"no X-Edition", pro, "inst-pro", "", []Mapping{ok}, appliance.ErrForbidden, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.hub.Push(context.Background(), c.who, c.body, c.edition, c.ms)
			var ve *appliance.ValidationError
			switch {
			case c.wantErr != nil && !errors.Is(err, c.wantErr):
				t.Errorf("err = %v, want %v", err, c.wantErr)
			case c.wantInvalid != "" && (!errors.As(err, &ve) || ve.Field != c.wantInvalid):
				t.Errorf("err = %v, want a validation error on %s", err, c.wantInvalid)
			}
		})
	}
	stats, err := f.hub.Sources(context.Background())
	for _, s := range stats {
		if s.Source == "community" && s.Total != 0 {
			t.Errorf("refused pushes stored %d mappings", s.Total)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestCurateWithdrawAndExport(t *testing.T) {
	f := newFixture(t, licensing.DefaultOptions())
	ctx := context.Background()
	who := f.licensee(t, "standard", "inst-a")
	log4j := pushMapping("Apache Software Foundation", "Apache Log4j", "apache", "log4j", nil)
	if err := f.hub.Curate(ctx, log4j); err != nil {
		t.Fatal(err)
	}
	if got := f.pulled(t, who, "curated"); len(got) != 1 || got[0].Confidence != 1 || got[0].Retracted {
		t.Fatalf("curated pull = %+v, want the mapping at confidence 1", got)
	}
	if err := f.hub.Curate(ctx, pushMapping("a", "b", "c", "*", nil)); err == nil {
		t.Error("a wildcard CPE product was curated")
	}
	f.clock.t = f.clock.t.Add(time.Minute)
	if err := f.hub.Withdraw(ctx, "curated", log4j); err != nil {
		t.Fatal(err)
	}
	if got := f.pulled(t, who, "curated"); len(got) != 1 || !got[0].Retracted || !got[0].UpdatedAt.Equal(f.clock.t) {
		t.Errorf("after withdrawal: %+v, want it retracted at %v", got, f.clock.t)
	}
	if err := f.hub.Withdraw(ctx, "community", log4j); !errors.Is(err, appliance.ErrNotFound) {
		t.Errorf("retracting an unknown community mapping: %v, want ErrNotFound", err)
	}
	var buf bytes.Buffer
	n, err := f.hub.Export(ctx, &buf)
	if err != nil || n != 1 {
		t.Fatalf("export: %d mappings, %v", n, err)
	}
	snap, err := ReadSnapshot(&buf, f.srv.PublicKey())
	if err != nil || len(snap.Mappings) != 1 || !snap.Mappings[0].Retracted {
		t.Errorf("snapshot = %+v (%v), want the retracted mapping", snap, err)
	}
}

func TestPullQueryChecks(t *testing.T) {
	f := newFixture(t, licensing.DefaultOptions())
	who := f.licensee(t, "standard", "inst-a")
	for _, q := range []appliance.PullQuery{{Source: "vendor"}, {Offset: -1}} {
		var ve *appliance.ValidationError
		if _, err := f.hub.Pull(context.Background(), who, q, func(appliance.KBMapping) error { return nil }); !errors.As(err, &ve) {
			t.Errorf("pull %+v: %v, want a validation error", q, err)
		}
	}
}

// TestOneCustomerIsOneVoice: three installations of one customer (three activation codes)
// do not publish a community mapping; a second and third customer do (issue 8 §4).
func TestOneCustomerIsOneVoice(t *testing.T) {
	f := newFixture(t, licensing.DefaultOptions())
	ctx := context.Background()
	evil := pushMapping("OpenSSL Project", "OpenSSL", "evilcorp", "notopenssl", nil)
	var first licensing.Licensee
	for i := range 3 {
		id := fmt.Sprintf("mallory-%d", i)
		act := f.activateFor(t, "Mallory Ltd", "professional", time.Hour, id)
		who, err := f.srv.Authenticate(ctx, licensing.Credential(act.License), id)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = who
		}
		f.push(t, who, evil)
	}
	row, err := f.store.KBMappingByTuple(ctx, appliance.SourceCommunity, TupleKey(evil))
	if err != nil || row.ContributionCount != 3 || row.Published {
		t.Fatalf("one customer's three installations: %+v (%v), want 3 contributions, not published", row, err)
	}
	if got := f.pulled(t, first, appliance.SourceCommunity); len(got) != 0 {
		t.Fatalf("pulled %d community mappings, want none", len(got))
	}
	// Case and blanks of the customer name do not make another voice.
	act := f.activateFor(t, "  MALLORY LTD ", "professional", time.Hour, "mallory-x")
	who, _ := f.srv.Authenticate(ctx, licensing.Credential(act.License), "mallory-x")
	f.push(t, who, evil)
	row, _ = f.store.KBMappingByTuple(ctx, appliance.SourceCommunity, TupleKey(evil))
	if row.Published {
		t.Fatalf("four installations of one customer published it: %+v", row)
	}
	for _, inst := range []string{"alice", "bob"} { // two more customers
		f.push(t, f.licensee(t, "professional", inst), evil)
	}
	row, _ = f.store.KBMappingByTuple(ctx, appliance.SourceCommunity, TupleKey(evil))
	if !row.Published {
		t.Errorf("three customers agree, yet not published: %+v", row)
	}
}

// TestExpiredLicenceCannotPushOrPull: an expired licence still authenticates (so it can be told
// why) but the hub refuses its pushes and pulls.
func TestExpiredLicenceCannotPushOrPull(t *testing.T) {
	f := newFixture(t, licensing.DefaultOptions())
	ctx := context.Background()
	act := f.activate(t, "professional", time.Hour, "inst-a")
	f.clock.t = act.ExpiresAt
	who, err := f.srv.Authenticate(ctx, licensing.Credential(act.License), "inst-a")
	if err != nil || !who.Expired {
		t.Fatalf("at expiry: %+v (%v), want authenticated and expired", who, err)
	}
	if _, err := f.hub.Push(ctx, who, "inst-a", "professional", []Mapping{pushMapping("a", "b", "c", "d", nil)}); !errors.Is(err, licensing.ErrExpired) {
		t.Errorf("push when expired: %v, want ErrExpired", err)
	}
	if _, err := f.hub.Pull(ctx, who, appliance.PullQuery{}, func(appliance.KBMapping) error { return nil }); !errors.Is(err, licensing.ErrExpired) {
		t.Errorf("pull when expired: %v, want ErrExpired", err)
	}
}
