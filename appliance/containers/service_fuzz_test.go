package containers_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance/containers"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore/storetest"
)

// FuzzSubmit feeds arbitrary scanner reports and references through the whole service on a
// real store: a result or an error, never a panic, and a result's counts are what was stored.
func FuzzSubmit(f *testing.F) {
	for _, file := range []string{storetest.TrivyDir + "/trivy-golden_alpine-310.json", storetest.TrivyDir + "/trivy-golden_npm.json",
		storetest.TrivyDir + "/trivy-golden_gomod.json", storetest.GrypeDir + "/defectdojo_grype_check_all_fields.json"} {
		f.Add("nginx:1.21", storetest.ReadFile(f, file))
	}
	f.Add("registry.example.com:5000/team/app@sha256:"+storetest.DigestA[7:], []byte(`{"matches":[]}`))
	w := storetest.NewWorld(f)
	f.Fuzz(func(t *testing.T, ref string, report []byte) {
		ctx := context.Background()
		// A digest of its own per input: records of other inputs never answer for this one
		// (scans share a clock second, and a digest lookup picks the newest record).
		sum := sha256.Sum256(append([]byte(ref+"\x00"), report...))
		digest := "sha256:" + hex.EncodeToString(sum[:])
		res, err := w.Containers.Submit(ctx, w.Acme, "fuzz", []containers.ImageScan{{Reference: ref, ImageID: digest, ScanResults: report}})
		if err != nil {
			return
		}
		d, err := w.Containers.Get(ctx, w.Acme, digest)
		if err != nil || res.Images != 1 || len(d.Findings) != res.Vulnerabilities {
			t.Fatalf("result %+v, stored %d findings, err %v", res, len(d.Findings), err)
		}
	})
}
