package scans_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance/scans"
)

// FuzzSubmit feeds arbitrary scanner reports and references through the whole service on a
// real store: a result or an error, never a panic, and a result's counts are what was stored.
func FuzzSubmit(f *testing.F) {
	for _, file := range []string{trivyDir + "/trivy-golden_alpine-310.json", trivyDir + "/trivy-golden_npm.json",
		trivyDir + "/trivy-golden_gomod.json", grypeDir + "/defectdojo_grype_check_all_fields.json"} {
		f.Add("nginx:1.21", readFile(f, file))
	}
	f.Add("registry.example.com:5000/team/app@sha256:"+digestA[7:], []byte(`{"matches":[]}`))
	w := newWorld(f)
	f.Fuzz(func(t *testing.T, ref string, report []byte) {
		ctx := context.Background()
		// A digest of its own per input: records of other inputs never answer for this one
		// (scans share a clock second, and a digest lookup picks the newest record).
		sum := sha256.Sum256(append([]byte(ref+"\x00"), report...))
		digest := "sha256:" + hex.EncodeToString(sum[:])
		res, err := w.containers.Submit(ctx, w.acme, "fuzz", []scans.ImageScan{{Reference: ref, ImageID: digest, ScanResults: report}})
		if err != nil {
			return
		}
		d, err := w.containers.Get(ctx, w.acme, digest)
		if err != nil || res.Images != 1 || len(d.Findings) != res.Vulnerabilities {
			t.Fatalf("result %+v, stored %d findings, err %v", res, len(d.Findings), err)
		}
	})
}
