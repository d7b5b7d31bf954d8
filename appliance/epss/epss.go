// Package epss reads FIRST's daily EPSS file: a comment line
// "#model_version:v2026.06.15,score_date:2026-09-29T12:00:22Z", the header
// "cve,epss,percentile", then one row per CVE.
package epss

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Header tells whether a file starts like an EPSS file.
func Header(head []byte) bool {
	t := bytes.TrimLeft(head, "\ufeff \t\r\n")
	return bytes.HasPrefix(t, []byte("#model_version")) || bytes.HasPrefix(t, []byte("cve,epss,percentile"))
}

// Parse hands each row to fn with the file's score date (the day of the model run; without a
// comment line, the zero time is refused). A malformed row is an error naming its line.
func Parse(ctx context.Context, r io.Reader, fn func(appliance.EPSSScore) error) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var date time.Time
	header, n, line := false, 0, 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "\ufeff"))
		switch {
		case text == "":
			continue
		case strings.HasPrefix(text, "#"):
			d, err := scoreDate(text)
			if err != nil {
				return n, err
			}
			date = d
			continue
		case !header:
			if text != "cve,epss,percentile" {
				return n, invalid(line, "header %q, want cve,epss,percentile", text)
			}
			if date.IsZero() {
				return n, invalid(line, "no #model_version,score_date comment line before the header")
			}
			header = true
			continue
		}
		s, err := row(text, line)
		if err != nil {
			return n, err
		}
		s.Date = date
		if err := fn(s); err != nil {
			return n, err
		}
		if n++; n%10000 == 0 && ctx.Err() != nil {
			return n, ctx.Err()
		}
	}
	if err := sc.Err(); err != nil {
		return n, fmt.Errorf("read EPSS: %w", err)
	}
	if !header {
		return n, invalid(line, "no header line")
	}
	return n, nil
}

// scoreDate reads score_date from the comment line; the day is what findings show.
func scoreDate(comment string) (time.Time, error) {
	for _, kv := range strings.Split(strings.TrimPrefix(comment, "#"), ",") {
		k, v, _ := strings.Cut(kv, ":")
		if strings.TrimSpace(k) != "score_date" {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) < 10 {
			break
		}
		d, err := time.Parse(time.DateOnly, v[:10])
		if err != nil {
			return time.Time{}, invalid(1, "score_date %q is not a date", v)
		}
		return d, nil
	}
	return time.Time{}, invalid(1, "comment line without score_date")
}

func row(text string, line int) (appliance.EPSSScore, error) {
	f := strings.Split(text, ",")
	if len(f) < 3 || !strings.HasPrefix(f[0], "CVE-") {
		return appliance.EPSSScore{}, invalid(line, "row %q is not cve,epss,percentile", text)
	}
	score, err1 := strconv.ParseFloat(f[1], 64)
	pct, err2 := strconv.ParseFloat(f[2], 64)
	if err1 != nil || err2 != nil || score < 0 || score > 1 || pct < 0 || pct > 1 {
		return appliance.EPSSScore{}, invalid(line, "row %q: epss and percentile must be numbers in [0,1]", text)
	}
	return appliance.EPSSScore{CVEID: f[0], Score: score, Percentile: pct}, nil
}

func invalid(line int, format string, args ...any) error {
	return appliance.Invalid("epss", "format", "line %d: "+format, append([]any{line}, args...)...)
}
