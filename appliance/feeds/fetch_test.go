package feeds

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

func TestRetryable(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{&StatusError{Status: 403}, true},
		{&StatusError{Status: 429}, true},
		{&StatusError{Status: 503}, true},
		{&StatusError{Status: 500}, true},
		{&StatusError{Status: 404}, false},
		{&StatusError{Status: 400}, false},
		{io.ErrUnexpectedEOF, true},
		{context.Canceled, false},
	} {
		if got := retryable(tt.err); got != tt.want {
			t.Errorf("retryable(%v) = %v", tt.err, got)
		}
	}
}

// The pacer lets limit requests through at once, then holds the next until the oldest
// leaves the window.
func TestPacer(t *testing.T) {
	p := &pacer{limit: 3, window: 100 * time.Millisecond, now: time.Now}
	start := time.Now()
	for i := 0; i < 3; i++ {
		if err := p.wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if time.Since(start) > 50*time.Millisecond {
		t.Fatalf("the first 3 waited %s", time.Since(start))
	}
	if err := p.wait(context.Background()); err != nil || time.Since(start) < 100*time.Millisecond {
		t.Errorf("the 4th went after %s (%v), want a full window", time.Since(start), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p = &pacer{limit: 1, window: time.Hour, now: time.Now, sent: []time.Time{time.Now()}}
	if err := p.wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v", err)
	}
}

func TestOptionsValidate(t *testing.T) {
	o := DefaultOptions()
	if err := o.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	o.EPSSURL = "http://mirror.local/epss.csv.gz"
	if err := o.Validate(); err == nil {
		t.Error("plain HTTP accepted without allow_http")
	}
	o.AllowHTTP = true
	if err := o.Validate(); err != nil {
		t.Errorf("plain HTTP with allow_http: %v", err)
	}
	o.NVDURL = "ftp://x/y"
	if err := o.Validate(); err == nil {
		t.Error("ftp accepted")
	}
}
