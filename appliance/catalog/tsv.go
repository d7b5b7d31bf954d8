package catalog

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/cpe"
)

// maxTSVLine bounds one catalogue line; real lines are well under 1 KiB.
const maxTSVLine = 1 << 20

// parseTSV reads `part<TAB>vendor<TAB>product[<TAB>title[<TAB>...]]` lines. Blank lines are
// skipped; a first line whose first column is "part" is a header.
func parseTSV(ctx context.Context, r io.Reader, fn func(appliance.CatalogEntry) error) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, readBufferSize), maxTSVLine)
	t := tsvReader{seen: distinct{}}
	for sc.Scan() {
		t.line++
		if t.line%ctxCheckEvery == 0 && ctx.Err() != nil {
			return t.emitted, ctx.Err()
		}
		id, ok, err := t.identity(sc.Text())
		if err != nil {
			return t.emitted, lineError(t.line, err)
		}
		if !ok {
			continue
		}
		if err := fn(id); err != nil {
			return t.emitted, err
		}
		t.emitted++
	}
	return t.emitted, scanError(sc.Err(), t.line+1)
}

// tsvReader carries what one TSV import has seen so far.
type tsvReader struct {
	seen    distinct
	line    int
	emitted int
	started bool // a non-blank line was read, so a header can no longer come
}

// identity reads one line; ok is false for blank lines, the header and repeated identities.
func (t *tsvReader) identity(text string) (id appliance.CatalogEntry, ok bool, err error) {
	text = strings.TrimRight(text, "\r")
	if t.line == 1 {
		text = strings.TrimPrefix(text, "\ufeff")
	}
	if strings.TrimSpace(text) == "" {
		return appliance.CatalogEntry{}, false, nil
	}
	if !t.started {
		t.started = true
		if isHeader(text) {
			return appliance.CatalogEntry{}, false, nil
		}
	}
	if id, err = parseTSVLine(text); err != nil {
		return appliance.CatalogEntry{}, false, err
	}
	return id, t.seen.firstTime(id), nil
}

func isHeader(text string) bool {
	first, _, _ := strings.Cut(text, "\t")
	return strings.EqualFold(strings.TrimSpace(first), "part")
}

func parseTSVLine(text string) (appliance.CatalogEntry, error) {
	cols := strings.SplitN(text, "\t", 5)
	if len(cols) < 3 {
		return appliance.CatalogEntry{}, appliance.Invalid("catalog", "columns",
			"want part, vendor and product separated by tabs, got %d column(s)", len(cols))
	}
	vendor, err := tsvComponent("vendor", cols[1])
	if err != nil {
		return appliance.CatalogEntry{}, err
	}
	product, err := tsvComponent("product", cols[2])
	if err != nil {
		return appliance.CatalogEntry{}, err
	}
	id := appliance.CatalogEntry{Identity: appliance.Identity{Part: strings.ToLower(strings.TrimSpace(cols[0])), Vendor: vendor, Product: product}}
	if len(cols) > 3 {
		id.Title = normalizeSpace(cols[3])
	}
	if len(cols) > 4 { // the shared catalogue's sources: nvd11/nvd20 are CVE data, the rest dictionaries
		sources, _, _ := strings.Cut(cols[4], "\t")
		for _, s := range strings.Split(sources, ",") {
			if s = strings.TrimSpace(s); s == "nvd11" || s == "nvd20" {
				id.CVEUsed = true
			}
		}
	}
	return id, checkIdentity(id)
}

// tsvComponent accepts both the escaped form of a formatted string ("notepad\+\+") and the
// plain value. A lone trailing backslash escapes nothing and is refused.
func tsvComponent(field, raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	trailing := len(raw) - len(strings.TrimRight(raw, `\`))
	if trailing%2 == 1 {
		return "", appliance.Invalid(field, "format", "%s %q ends in a lone backslash", field, raw)
	}
	return strings.ToLower(cpe.Unescape(raw)), nil
}

// lineError puts the line number in front of what was wrong with it.
func lineError(line int, err error) error {
	var ve *appliance.ValidationError
	if errors.As(err, &ve) {
		return appliance.Invalid(ve.Field, ve.Constraint, "line %d: %s", line, ve.Message)
	}
	return appliance.Invalid("catalog", "format", "line %d: %v", line, err)
}

func scanError(err error, line int) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, bufio.ErrTooLong):
		return appliance.Invalid("catalog", "length", "line %d: longer than %d bytes", line, maxTSVLine)
	}
	return fmt.Errorf("read catalogue line %d: %w", line, err)
}
