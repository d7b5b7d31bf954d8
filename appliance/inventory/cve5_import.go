package inventory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"

	"github.com/vulnkeeper/vulnkeeper/appliance/nvd"
)

// cve5File is the name of a record in the cvelistV5 layout (cves/2024/1xxx/CVE-2024-1234.json,
// deltaCves/CVE-2024-1234.json in a delta zip).
var cve5File = regexp.MustCompile(`^CVE-\d{4}-\d{4,}\.json$`)

// IsCVE5Tree reports whether the first CVE-*.json file of fsys is a CVE JSON 5 record: the
// cvelistV5 repository or a part of it, its cves.zip or a delta zip.
func IsCVE5Tree(fsys fs.FS) bool {
	found := false
	_ = eachCVE5File(fsys, func(_ string, f fs.File) error {
		head := make([]byte, peekSize)
		n, _ := io.ReadFull(f, head)
		found = bytes.Contains(head[:n], []byte(`"cveMetadata"`))
		return fs.SkipAll
	})
	return found
}

// eachCVE5File calls fn with every CVE-*.json file under fsys, open, in lexical order.
func eachCVE5File(fsys fs.FS, fn func(name string, f fs.File) error) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !cve5File.MatchString(path.Base(p)) {
			return err
		}
		f, err := fsys.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return fn(p, f)
	})
}

// ImportCVE5 imports every CVE-*.json record under fsys in one transaction. A record NVD has
// enriched keeps NVD's data; for the others the CVE JSON 5 record's affected data, score and
// references stand until NVD enriches them.
func (im *Importer) ImportCVE5(ctx context.Context, name string, fsys fs.FS) (FeedStats, error) {
	return im.feedTx(ctx, name, func(h *feedHandler) (nvd.Stats, error) {
		var total nvd.Stats
		err := eachCVE5File(fsys, func(p string, f fs.File) error {
			st, err := nvd.Import(ctx, f, h)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			total.CVEs += st.CVEs
			return nil
		})
		if err == nil && total.CVEs == 0 && h.stats.Rejected == 0 {
			err = errors.New("no CVE JSON 5 records (CVE-*.json)")
		}
		return total, err
	})
}
