package resolve

import (
	"context"
	"errors"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func smallCatalog() *Catalog {
	return NewCatalog([]appliance.CatalogEntry{
		{Identity: appliance.Identity{Part: "a", Vendor: "mozilla", Product: "firefox"}, Title: "Mozilla Firefox"},
		{Identity: appliance.Identity{Part: "a", Vendor: "haxx", Product: "curl"}},
		{Identity: appliance.Identity{Part: "a", Vendor: "curl", Product: "curl"}},
		{Identity: appliance.Identity{Part: "a", Vendor: "boltcms", Product: "bolt"}},
		{Identity: appliance.Identity{Part: "a", Vendor: "logitech", Product: "options+"}},
		{Identity: appliance.Identity{Part: "a", Vendor: "videolan", Product: "vlc_media_player"}},
		{Identity: appliance.Identity{Part: "a", Vendor: "acme", Product: "reporter_pro"}},
		{Identity: appliance.Identity{Part: "a", Vendor: "acme", Product: "reporter_lite"}},
		{Identity: appliance.Identity{Part: "o", Vendor: "google", Product: "chrome"}},
		{Identity: appliance.Identity{Part: "a", Vendor: "google", Product: "chrome"}},
	})
}

// fakeIndex proposes fixed candidates and counts calls.
type fakeIndex struct {
	candidates []Candidate
	calls      int
}

func (f *fakeIndex) Candidates(_ context.Context, _, _ string, _ int) ([]Candidate, error) {
	f.calls++
	return f.candidates, nil
}

type fakeKB []Mapping

func (f fakeKB) Mappings(context.Context, Key) ([]Mapping, error) { return f, nil }

type fakeOverride appliance.Override

func (f fakeOverride) Override(context.Context, Key) (appliance.Override, bool, error) {
	return appliance.Override(f), true, nil
}

type failingOverride struct{}

func (failingOverride) Override(context.Context, Key) (appliance.Override, bool, error) {
	return appliance.Override{}, false, errors.New("store down")
}

func TestResolvePolicy(t *testing.T) {
	bolt := []Candidate{{Vendor: "boltcms", Product: "bolt"}, {Vendor: "logitech", Product: "bolt_receiver_firmware"}}
	reporters := []Candidate{{Vendor: "acme", Product: "reporter_pro"}, {Vendor: "acme", Product: "reporter_lite"}}
	tests := []struct {
		name            string
		org             OverrideSource
		kb              KBSource
		index           []Candidate
		vendor, product string
		want            Result
	}{
		{name: "override wins", org: fakeOverride{Identity: appliance.Identity{Vendor: "mozilla", Product: "firefox_esr"}}, vendor: "Mozilla", product: "Firefox",
			want: Result{Part: "a", Vendor: "mozilla", Product: "firefox_esr", Method: appliance.ResolutionOverride, Confidence: 1}},
		{name: "not tracked wins over an exact identity", org: fakeOverride{NotTracked: true}, vendor: "Mozilla", product: "Firefox",
			want: Result{Method: appliance.ResolutionNotTracked, Confidence: 1}},
		{name: "curated KB before community", kb: fakeKB{{appliance.Identity{Vendor: "x", Product: "community"}, 0.9, false},
			{appliance.Identity{Vendor: "mozilla", Product: "firefox"}, 0.8, true}}, vendor: "Zorblax Labs", product: "Quuxview Browser",
			want: Result{Part: "a", Vendor: "mozilla", Product: "firefox", Method: appliance.ResolutionKB, Confidence: 0.8}},
		{name: "KB never overrides an exact catalogue identity", kb: fakeKB{{appliance.Identity{Vendor: "evilcorp", Product: "notfirefox"}, 1, true}},
			vendor: "Mozilla", product: "Firefox",
			want: Result{Part: "a", Vendor: "mozilla", Product: "firefox", Method: appliance.ResolutionExact, Confidence: 1}},
		{name: "exact pair", vendor: "Mozilla", product: "Mozilla Firefox (x64 en-US)",
			want: Result{Part: "a", Vendor: "mozilla", Product: "firefox", Method: appliance.ResolutionExact, Confidence: 1}},
		{name: "application before operating system", vendor: "Google LLC", product: "Google Chrome",
			want: Result{Part: "a", Vendor: "google", Product: "chrome", Method: appliance.ResolutionExact, Confidence: 1}},
		// haxx, curl, curl_project and daniel_stenberg are one reviewed group: its canonical wins.
		{name: "product only takes the canonical of one software's vendors", product: "curl",
			want: Result{Part: "a", Vendor: "haxx", Product: "curl", Method: appliance.ResolutionExact, Confidence: 0.9}},
		{name: "vendor hidden in product", product: "Mozilla Firefox",
			want: Result{Part: "a", Vendor: "mozilla", Product: "firefox", Method: appliance.ResolutionExact, Confidence: 0.95}},
		{name: "guard refuses Logi Bolt", vendor: "Logitech", product: "Logi Bolt", index: bolt,
			want: Result{Method: appliance.ResolutionUnresolved, Candidates: []Candidate{
				{Vendor: "logitech", Product: "bolt_receiver_firmware", Score: guardCap},
				{Part: "a", Vendor: "boltcms", Product: "bolt", Score: 0.467}}}},
		{name: "fuzzy accepted", vendor: "VideoLAN", product: "VLC media player portable",
			index: []Candidate{{Vendor: "videolan", Product: "vlc_media_player"}},
			want:  Result{Part: "a", Vendor: "videolan", Product: "vlc_media_player", Method: appliance.ResolutionFuzzy, Confidence: 0.9}},
		{name: "no margin, unresolved", vendor: "Acme", product: "Acme Reporter Pro Lite", index: reporters,
			want: Result{Method: appliance.ResolutionUnresolved, Candidates: []Candidate{
				{Part: "a", Vendor: "acme", Product: "reporter_lite", Score: 0.86},
				{Part: "a", Vendor: "acme", Product: "reporter_pro", Score: 0.86}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(smallCatalog(), &fakeIndex{candidates: tt.index}, tt.kb, Options{})
			got, err := r.Resolve(context.Background(), tt.org, tt.vendor, tt.product)
			if err != nil {
				t.Fatal(err)
			}
			assertResult(t, got, tt.want)
		})
	}
}

func assertResult(t *testing.T, got, want Result) {
	t.Helper()
	if got.Part != want.Part || got.Vendor != want.Vendor || got.Product != want.Product ||
		got.Method != want.Method || got.Confidence != want.Confidence || len(got.Candidates) != len(want.Candidates) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want.Candidates {
		if got.Candidates[i] != want.Candidates[i] {
			t.Errorf("candidate %d = %+v, want %+v", i, got.Candidates[i], want.Candidates[i])
		}
	}
}

func TestResolveOverrideErrorIsReturned(t *testing.T) {
	r := New(smallCatalog(), nil, nil, Options{})
	if _, err := r.Resolve(context.Background(), failingOverride{}, "Mozilla", "Firefox"); err == nil {
		t.Fatal("want the override source's error")
	}
}

func TestCacheAndInvalidation(t *testing.T) {
	index := &fakeIndex{}
	r := New(smallCatalog(), index, nil, Options{})
	ctx := context.Background()
	resolveTwice := func() {
		for range 2 {
			if _, err := r.Resolve(ctx, nil, "Unknown Ltd", "Unknown Tool 1.0"); err != nil {
				t.Fatal(err)
			}
		}
	}
	resolveTwice()
	if index.calls != 1 {
		t.Fatalf("index asked %d times for one pair, want 1 (cached)", index.calls)
	}
	gen := r.Generation()
	r.Invalidate()
	resolveTwice()
	if index.calls != 2 || r.Generation() != gen+1 {
		t.Fatalf("after Invalidate: calls %d generation %d, want 2 and %d", index.calls, r.Generation(), gen+1)
	}
	r.SetCatalog(NewCatalog([]appliance.CatalogEntry{{Identity: appliance.Identity{Part: "a", Vendor: "unknown", Product: "unknown_tool"}}}))
	got, err := r.Resolve(ctx, nil, "Unknown Ltd", "Unknown Tool 1.0")
	if err != nil || got.Method != appliance.ResolutionExact || got.Product != "unknown_tool" {
		t.Fatalf("after SetCatalog got %+v, %v; want the new exact identity", got, err)
	}
}

func TestAliases(t *testing.T) {
	cat := NewCatalog([]appliance.CatalogEntry{
		{Identity: appliance.Identity{Part: "a", Vendor: "sudo", Product: "sudo"}},
		{Identity: appliance.Identity{Part: "a", Vendor: "sudo_project", Product: "sudo"}},
		{Identity: appliance.Identity{Part: "a", Vendor: "widget_project", Product: "widget"}},
		{Identity: appliance.Identity{Part: "a", Vendor: "widget", Product: "widget"}},
	})
	r := New(cat, nil, nil, Options{})
	tests := []struct {
		vendor, product string
		want            []string
	}{
		{"haxx", "curl", []string{"haxx:curl", "curl:curl", "curl_project:curl", "daniel_stenberg:curl"}},
		{"widget", "widget", []string{"widget:widget", "widget_project:widget"}},
		{"widget_project", "widget", []string{"widget_project:widget", "widget:widget"}},
		{"sudo", "sudo", []string{"sudo:sudo", "gratisoft:sudo", "sudo_project:sudo", "todd_miller:sudo"}},
		{"mozilla", "thunderbird", []string{"mozilla:thunderbird"}},
	}
	for _, tt := range tests {
		var got []string
		for _, vp := range r.Aliases(tt.vendor, tt.product) {
			got = append(got, joinVP(vp))
		}
		if len(got) != len(tt.want) {
			t.Errorf("Aliases(%s:%s) = %v, want %v", tt.vendor, tt.product, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("Aliases(%s:%s) = %v, want %v", tt.vendor, tt.product, got, tt.want)
				break
			}
		}
	}
}

// FuzzResolve: any reported pair resolves to a known method without panicking, and an
// accepted identity is never empty.
func FuzzResolve(f *testing.F) {
	for _, c := range evalSeeds(f) {
		f.Add(c[0], c[1])
	}
	r := New(smallCatalog(), &fakeIndex{candidates: []Candidate{{Vendor: "videolan", Product: "vlc_media_player"}}}, nil, Options{})
	f.Fuzz(func(t *testing.T, vendor, product string) {
		got, err := r.Resolve(context.Background(), nil, vendor, product)
		if err != nil {
			t.Fatal(err)
		}
		switch got.Method {
		case appliance.ResolutionUnresolved:
		case appliance.ResolutionExact, appliance.ResolutionFuzzy:
			if got.Vendor == "" || got.Product == "" {
				t.Fatalf("%q/%q resolved to an empty identity: %+v", vendor, product, got)
			}
		default:
			t.Fatalf("unexpected method %q", got.Method)
		}
	})
}
