package web

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	cdx "github.com/CycloneDX/cyclonedx-go"
	openvex "github.com/openvex/go-vex/pkg/vex"
)

// hostIDs maps c's hostnames to their ids, and the tags the list shows for each.
func hostIDs(t *testing.T, c *client, query string) (map[string]int64, map[string][]string) {
	t.Helper()
	res := c.do(t, "GET", "/api/assets?per_page=200&"+query, nil)
	if res.Status != 200 {
		t.Fatalf("list hosts: %d %s", res.Status, res.Body)
	}
	ids, tags := map[string]int64{}, map[string][]string{}
	for _, a := range decodeBody[listResponse[assetJSON]](t, res).Items {
		ids[a.Hostname], tags[a.Hostname] = a.ID, a.Tags
	}
	return ids, tags
}

func tagsPath(id int64) string { return fmt.Sprintf("/api/assets/%d/tags", id) }

func wantTags(want ...string) func(t *testing.T, res response) {
	return func(t *testing.T, res response) {
		if got := decodeBody[assetTagsJSON](t, res).Tags; !slices.Equal(got, want) {
			t.Errorf("tags %v, want %v", got, want)
		}
	}
}

func TestAssetTags(t *testing.T) {
	w := newTriageWorld(t)
	acme, _ := hostIDs(t, w.alice, "")
	globex, _ := hostIDs(t, w.carol, "")
	hostA, hostG := acme["host-a"], globex["host-g"]
	many := make([]string, 21)
	for i := range many {
		many[i] = fmt.Sprintf("t%d", i)
	}
	runScenarios(t, []scenario{
		{"an admin sets tags", "PUT", tagsPath(hostA), map[string]any{"tags": []string{"Prod", "dmz", " prod "}}, w.alice, 200, wantTags("dmz", "prod")},
		{"a member may not", "PUT", tagsPath(hostA), map[string]any{"tags": []string{"x"}}, w.bob, 403, wantErrorCode("forbidden")},
		{"an agent may not", "PUT", tagsPath(hostA), map[string]any{"tags": []string{"x"}}, w.acme, 401, nil},
		{"another organization's host", "PUT", tagsPath(hostG), map[string]any{"tags": []string{"x"}}, w.alice, 404, wantErrorCode("not_found")},
		{"nor the other way", "PUT", tagsPath(hostA), map[string]any{"tags": []string{"x"}}, w.carol, 404, wantErrorCode("not_found")},
		{"missing host", "PUT", tagsPath(99999), map[string]any{"tags": []string{"x"}}, w.alice, 404, wantErrorCode("not_found")},
		{"a space", "PUT", tagsPath(hostA), map[string]any{"tags": []string{"ok", "prod env"}}, w.alice, 400, wantField("tags[1]")},
		{"empty tag", "PUT", tagsPath(hostA), map[string]any{"tags": []string{""}}, w.alice, 400, wantField("tags[0]")},
		{"65 characters", "PUT", tagsPath(hostA), map[string]any{"tags": []string{strings.Repeat("a", 65)}}, w.alice, 400, wantField("tags[0]")},
		{"21 tags", "PUT", tagsPath(hostA), map[string]any{"tags": many}, w.alice, 400, wantField("tags")},
		{"no tags field", "PUT", tagsPath(hostA), map[string]any{}, w.alice, 400, wantField("tags")},
		{"refused changes left the tags", "GET", fmt.Sprintf("/api/assets/%d", hostA), nil, w.alice, 200, func(t *testing.T, res response) {
			if got := decodeBody[assetDetailJSON](t, res).Tags; !slices.Equal(got, []string{"dmz", "prod"}) {
				t.Errorf("detail tags %v", got)
			}
		}},
		{"20 tags are fine", "PUT", tagsPath(acme["host-c"]), map[string]any{"tags": many[:20]}, w.alice, 200, nil},
		{"tags on host-b", "PUT", tagsPath(acme["host-b"]), map[string]any{"tags": []string{"PROD"}}, w.alice, 200, wantTags("prod")},
	})
	if _, tags := hostIDs(t, w.alice, ""); !slices.Equal(tags["host-a"], []string{"dmz", "prod"}) || len(tags["host-c"]) != 20 {
		t.Errorf("listed tags %v", tags)
	}
	for query, want := range map[string][]string{"tag=prod": {"host-a", "host-b"}, "tag=DMZ": {"host-a"}, "tag=none": {}} {
		ids, _ := hostIDs(t, w.alice, query)
		var got []string
		for h := range ids {
			got = append(got, h)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: hosts %v, want %v", query, got, want)
		}
	}
	runScenarios(t, []scenario{
		{"an empty list removes every tag", "PUT", tagsPath(hostA), map[string]any{"tags": []string{}}, w.alice, 200, wantTags()},
		{"gone from the list", "GET", "/api/assets?tag=dmz", nil, w.alice, 200, func(t *testing.T, res response) {
			if got := decodeBody[listResponse[assetJSON]](t, res); got.Total != 0 {
				t.Errorf("hosts tagged dmz: %+v", got.Items)
			}
		}},
	})
}

// TestTriageTagScope: a tag rule decides a finding while every host having the product
// carries the tag; a new untagged host, or the tag's removal, brings the finding back.
func TestTriageTagScope(t *testing.T) {
	w := newTriageWorld(t)
	acme, _ := hostIDs(t, w.alice, "")
	put := func(host string, tags ...string) {
		t.Helper()
		if res := w.alice.do(t, "PUT", tagsPath(acme[host]), map[string]any{"tags": append([]string{}, tags...)}); res.Status != 200 {
			t.Fatalf("tag %s: %d %s", host, res.Status, res.Body)
		}
	}
	put("host-a", "prod")
	runScenarios(t, []scenario{
		{"tag rule", "POST", "/api/triage/rules", ruleBody("CVE-2021-3711", "tag", "false_positive",
			map[string]any{"tag": "Prod", "note": "prod builds drop SM2"}), w.alice, 201, func(t *testing.T, res response) {
			if r := decodeBody[triageRuleJSON](t, res); r.Scope != "tag" || r.Tag == nil || *r.Tag != "prod" || r.AssetID != nil {
				t.Errorf("rule %+v", r)
			}
		}},
	})
	// openssl 1.1.1k is on host-a (prod) and host-b (untagged): the rule does not cover it.
	wantCounts(t, w.alice, "", "Google Chrome 116.0.5845.96=1", "openssl 1.1.1k=2", "openssl 1.1.1m=1")
	put("host-b", "prod", "linux")
	wantCounts(t, w.alice, "", "Google Chrome 116.0.5845.96=1", "openssl 1.1.1k=1", "openssl 1.1.1m=1")
	if st, _ := triageOf(w.product(t, w.alice, "openssl", "1.1.1k", true), "CVE-2021-3711"); st == nil || st.State != "false_positive" || !st.Suppressed {
		t.Errorf("decision %+v, want the tag rule's", st)
	}

	// A new host with openssl 1.1.1k and no tag brings the finding back; tagging it settles it.
	w.submit(t, w.acme, inventoryBody("host-d", hostA[0]))
	wantCounts(t, w.alice, "", "Google Chrome 116.0.5845.96=1", "openssl 1.1.1k=2", "openssl 1.1.1m=1")
	acme, _ = hostIDs(t, w.alice, "")
	put("host-d", "prod")
	wantCounts(t, w.alice, "", "Google Chrome 116.0.5845.96=1", "openssl 1.1.1k=1", "openssl 1.1.1m=1")

	// A narrower rule wins over the tag rule; an organization-wide one does not.
	runScenarios(t, []scenario{
		{"organization rule", "POST", "/api/triage/rules", ruleBody("CVE-2021-3711", "organization", "exploitable", nil), w.alice, 201, nil},
	})
	if st, _ := triageOf(w.product(t, w.alice, "openssl", "1.1.1k", true), "CVE-2021-3711"); st == nil || st.State != "false_positive" {
		t.Errorf("decision %+v, want the tag rule's over the organization's", st)
	}

	// The exports name the tag rule's findings with their versions, as host rules do.
	res := w.alice.do(t, "GET", "/api/vex?format=openvex", nil)
	if res.Status != 200 {
		t.Fatalf("export: %d %s", res.Status, res.Body)
	}
	doc := exportedVEX(t, res)
	i := slices.IndexFunc(doc.Statements, func(st openvex.Statement) bool { return st.StatusNotes == "prod builds drop SM2" })
	if i < 0 || len(doc.Statements[i].Products) != 1 || doc.Statements[i].Products[0].ID != "cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*" ||
		doc.Statements[i].Vulnerability.Name != "CVE-2021-3711" || doc.Statements[i].Status != openvex.StatusNotAffected {
		t.Errorf("statements %v, want the tag rule's on openssl 1.1.1k", statementLines(doc))
	}
	bom := decodeBody[cdx.BOM](t, w.alice.do(t, "GET", "/api/vex?format=cyclonedx", nil))
	found := false
	for _, v := range *bom.Vulnerabilities {
		if v.ID == "CVE-2021-3711" && v.Analysis != nil && v.Analysis.State == cdx.IASFalsePositive && v.Affects != nil &&
			len(*v.Affects) == 1 && (*v.Affects)[0].Ref == "cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*" {
			found = true
		}
	}
	if !found {
		t.Errorf("CycloneDX vulnerabilities %+v lack the tag rule's analysis", *bom.Vulnerabilities)
	}

	// Removing the tag from one host brings the finding back (the organization rule stands).
	put("host-b", "linux")
	if st, _ := triageOf(w.product(t, w.alice, "openssl", "1.1.1k", true), "CVE-2021-3711"); st == nil || st.State != "exploitable" || st.Suppressed {
		t.Errorf("decision %+v, want the organization rule's", st)
	}
	wantCounts(t, w.alice, "", "Google Chrome 116.0.5845.96=1", "openssl 1.1.1k=2", "openssl 1.1.1m=1")
}
