package web

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/feeds"
	"github.com/vulnkeeper/vulnkeeper/appliance/inventory"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

const ghsaDir = "../../shared/data/advisories/ghsa-osv"

// osvZips builds one all.zip per ecosystem from the GHSA records in the shared data, each
// record in the zip of every ecosystem it affects, as the OSV bucket lays them out.
func osvZips(t testing.TB) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(ghsaDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no GHSA records: %v", err)
	}
	writers := map[string]*zip.Writer{}
	bufs := map[string]*bytes.Buffer{}
	for _, name := range files {
		body, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var rec struct {
			Affected []struct {
				Package struct{ Ecosystem string }
			}
		}
		if err := json.Unmarshal(body, &rec); err != nil {
			t.Fatal(err)
		}
		for _, a := range rec.Affected {
			eco := a.Package.Ecosystem
			if writers[eco] == nil {
				bufs[eco] = &bytes.Buffer{}
				writers[eco] = zip.NewWriter(bufs[eco])
			}
			f, err := writers[eco].Create(filepath.Base(name))
			if err == nil {
				_, err = f.Write(body)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	out := map[string][]byte{}
	for eco, zw := range writers {
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		out[eco] = bufs[eco].Bytes()
	}
	return out
}

// fakeOSV serves {ecosystem}/all.zip and records the paths asked for.
type fakeOSV struct {
	zips  map[string][]byte
	mu    sync.Mutex
	paths []string
}

func (f *fakeOSV) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.paths = append(f.paths, r.URL.Path)
	f.mu.Unlock()
	dir, file := filepath.Split(r.URL.Path)
	body, ok := f.zips[filepath.Base(dir)]
	if !ok || file != "all.zip" {
		http.NotFound(w, r)
		return
	}
	_, _ = w.Write(body)
}

// advisoryKeys lists the stored advisory entries as source/id/ecosystem/package/fixed.
func advisoryKeys(t testing.TB, st appliance.AdvisoryReader) []string {
	t.Helper()
	var out []string
	err := st.EachAdvisoryEntry(context.Background(), func(e appliance.AdvisoryEntry) error {
		out = append(out, e.Source+"/"+e.ID+"/"+e.Ecosystem+"/"+e.Package+"/"+e.Fixed)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// feed sync --source osv fetches every enabled ecosystem's all.zip from feeds.osv_url (an
// ecosystem name with a space is escaped in the path) through the importer that reads the
// same files: the store ends with exactly the entries a file import of those zips writes.
func TestFeedSyncOSV(t *testing.T) {
	fake := &fakeOSV{zips: osvZips(t)}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	w := newFeedWorld(t, 2000)
	enabled := []string{"npm", "Maven", "GitHub Actions"}
	w.opts.OSVURL, w.opts.OSVEcosystems = srv.URL+"/", enabled
	if err := w.opts.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := w.syncer(10*time.Second).Sync(context.Background(), feeds.SyncOptions{Sources: []string{feeds.SourceOSV}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/npm/all.zip", "/Maven/all.zip", "/GitHub Actions/all.zip"}; !slices.Equal(fake.paths, want) {
		t.Errorf("fetched %q, want %q", fake.paths, want)
	}
	ref, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "ref.db"), sqlitestore.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	entries := 0
	for _, eco := range enabled {
		st, err := inventory.NewImporter(ref).Import(context.Background(), eco, bytes.NewReader(fake.zips[eco]), int64(len(fake.zips[eco])))
		if err != nil || st.Format != "osv-zip" {
			t.Fatalf("import %s: %+v %v", eco, st, err)
		}
		entries += st.Advisories
	}
	got, want := advisoryKeys(t, w.st), advisoryKeys(t, ref)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("synced %d entries, a file import of the same zips %d", len(got), len(want))
	}
	if res[0].Records != entries {
		t.Errorf("records = %d, want %d", res[0].Records, entries)
	}
	if st := w.state(t, feeds.SourceOSV); st.LastSuccess.IsZero() || st.Records != entries || st.LastError != "" {
		t.Errorf("osv state = %+v", st.FeedState)
	}

	// An ecosystem the server does not have fails the source and is recorded.
	w.opts.OSVEcosystems = []string{"npm", "NoSuchEcosystem"}
	if _, err := w.syncer(10*time.Second).Sync(context.Background(), feeds.SyncOptions{Sources: []string{feeds.SourceOSV}}); err == nil {
		t.Error("a missing ecosystem was not an error")
	}
	if st := w.state(t, feeds.SourceOSV); st.LastError == "" {
		t.Errorf("osv state after a failure = %+v", st.FeedState)
	}
}

// Without enabled ecosystems a full sync leaves OSV out, and asking for it says why.
func TestFeedSyncOSVNeedsEcosystems(t *testing.T) {
	w := newFeedWorld(t, 2000)
	w.opts.NVDURL = httptestStatus(t, http.StatusNotFound)
	res, _ := w.syncer(time.Second).Sync(context.Background(), feeds.SyncOptions{})
	for _, r := range res {
		if r.Source == feeds.SourceOSV {
			t.Errorf("osv ran without ecosystems: %+v", r)
		}
	}
	res, err := w.syncer(time.Second).Sync(context.Background(), feeds.SyncOptions{Sources: []string{feeds.SourceOSV}})
	if err == nil || len(res) != 1 || res[0].Err == nil {
		t.Errorf("osv without ecosystems: %+v, %v", res, err)
	}
}
