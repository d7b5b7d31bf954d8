package triage

import (
	"errors"
	"strings"
	"testing"
	"time"

	openvex "github.com/openvex/go-vex/pkg/vex"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestNormalizeProduct(t *testing.T) {
	for _, tc := range []struct{ in, want, wantErr string }{
		{in: "cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*", want: "cpe:2.3:a:openssl:openssl"},
		{in: "cpe:2.3:a:notepad-plus-plus:notepad\\+\\+", want: "cpe:2.3:a:notepad-plus-plus:notepad\\+\\+"},
		{in: " pkg:NPM/%40angular/core@16.0.0?arch=x#src ", want: "pkg:npm/@angular/core"},
		{in: "product:Acme/Widget", want: "product:Acme/Widget"},
		{in: "openssl", wantErr: "product"},
		{in: "cpe:2.3:a::openssl", wantErr: "product"},
		{in: "pkg:npm", wantErr: "product"},
	} {
		got, err := NormalizeProduct(tc.in)
		if tc.wantErr != "" {
			var ve *appliance.ValidationError
			if !errors.As(err, &ve) || ve.Field != tc.wantErr {
				t.Errorf("NormalizeProduct(%q) = %q, %v; want a %s error", tc.in, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NormalizeProduct(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	product := "cpe:2.3:a:openssl:openssl"
	for _, tc := range []struct {
		name      string
		rule      appliance.TriageRule
		wantField string
	}{
		{"cve on the organization", appliance.TriageRule{CVEID: " cve-2022-0778 ", Scope: ScopeOrganization, State: StateFixed}, ""},
		{"ghsa", appliance.TriageRule{CVEID: "GHSA-JFH8-C2JP-5V3Q", Scope: ScopeOrganization, State: StateFixed}, ""},
		{"every cve of a product with a reason", appliance.TriageRule{Scope: ScopeProduct, Product: product, State: StateFalsePositive, Note: "not ours"}, ""},
		{"every cve without a reason", appliance.TriageRule{Scope: ScopeProduct, Product: product, State: StateFalsePositive}, "cve_id"},
		{"every cve of the organization", appliance.TriageRule{Scope: ScopeOrganization, State: StateFixed, Note: "x"}, "cve_id"},
		{"organization names nothing else", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeOrganization, Product: product, State: StateFixed}, "scope"},
		{"range", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeVersionRange, Product: product, VersionEnd: "1.1.1n", State: StateFixed}, ""},
		{"range without bounds", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeVersionRange, Product: product, State: StateFixed}, "version_start"},
		{"range upside down", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeVersionRange, Product: product, VersionStart: "2", VersionEnd: "1", State: StateFixed}, "version_end"},
		{"host", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeHost, AssetID: 3, State: StateExploitable}, ""},
		{"host with versions", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeHost, AssetID: 3, VersionEnd: "2", State: StateFixed}, "asset_id"},
		{"tag", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeTag, Tag: " Prod ", State: StateFixed}, ""},
		{"tag without a tag", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeTag, State: StateFixed}, "tag"},
		{"tag too long", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeTag, Tag: strings.Repeat("a", 65), State: StateFixed}, "tag"},
		{"tag with a host", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeTag, Tag: "prod", AssetID: 3, State: StateFixed}, "tag"},
		{"tag with a product", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeTag, Tag: "prod", Product: product, State: StateFixed}, ""},
		{"a tag outside the tag scope", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeHost, AssetID: 3, Tag: "prod", State: StateFixed}, "tag"},
		{"not_affected without justification", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeOrganization, State: StateNotAffected}, "justification"},
		{"not_affected", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeOrganization, State: StateNotAffected, Justification: "component_not_present"}, ""},
		{"accepted_risk without expiry", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeOrganization, State: StateAcceptedRisk}, "expires_at"},
		{"accepted_risk expired", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeOrganization, State: StateAcceptedRisk, ExpiresAt: now}, "expires_at"},
		{"accepted_risk", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeOrganization, State: StateAcceptedRisk, ExpiresAt: now.Add(time.Hour)}, ""},
		{"unknown state", appliance.TriageRule{CVEID: "CVE-2022-0778", Scope: ScopeOrganization, State: "resolved"}, "state"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.rule
			err := Validate(&r, now)
			var ve *appliance.ValidationError
			switch {
			case tc.wantField == "" && err != nil:
				t.Fatalf("Validate = %v, want ok", err)
			case tc.wantField != "" && (!errors.As(err, &ve) || ve.Field != tc.wantField):
				t.Fatalf("Validate = %v, want a %s error", err, tc.wantField)
			}
		})
	}
}

// finding is openssl at version, with CVE-2022-0778, installed on hosts.
func finding(version string, hosts ...int64) appliance.TriageFinding {
	p := appliance.Product{ID: 7, Vendor: "OpenSSL Project", Name: "OpenSSL", Version: version,
		Identity: appliance.Identity{Part: "a", Vendor: "openssl", Product: "openssl"}}
	return appliance.TriageFinding{ProductID: 7, Product: p, CVEID: "CVE-2022-0778", AssetIDs: hosts}
}

// tagged gives hosts 1 and 2 the tag prod, and host 3 the tag dmz.
func tagged(f appliance.TriageFinding) appliance.TriageFinding {
	f.HostTags = map[int64][]string{1: {"prod"}, 2: {"linux", "prod"}, 3: {"dmz"}}
	return f
}

func TestDecide(t *testing.T) {
	const cve, product = "CVE-2022-0778", "cpe:2.3:a:openssl:openssl"
	org := appliance.TriageRule{ID: 1, CVEID: cve, Scope: ScopeOrganization, State: StateExploitable}
	prod := appliance.TriageRule{ID: 2, CVEID: cve, Scope: ScopeProduct, Product: product, State: StateFixed}
	byName := appliance.TriageRule{ID: 3, CVEID: cve, Scope: ScopeProduct, Product: "product:OpenSSL Project/OpenSSL", State: StateFixed}
	rng := appliance.TriageRule{ID: 4, CVEID: cve, Scope: ScopeVersionRange, Product: product, VersionStart: "1.1.1", VersionEnd: "1.1.1n", State: StateNotAffected}
	allCVEs := appliance.TriageRule{ID: 5, Scope: ScopeProduct, Product: product, State: StateFalsePositive, Note: "x"}
	otherCVE := appliance.TriageRule{ID: 6, CVEID: "CVE-2021-3711", Scope: ScopeOrganization, State: StateFixed}
	host1 := appliance.TriageRule{ID: 7, CVEID: cve, Scope: ScopeHost, AssetID: 1, State: StateFalsePositive}
	host2 := appliance.TriageRule{ID: 8, CVEID: cve, Scope: ScopeHost, AssetID: 2, State: StateFalsePositive}
	host2Other := appliance.TriageRule{ID: 9, CVEID: cve, Scope: ScopeHost, AssetID: 2, State: StateExploitable}
	exact := appliance.TriageRule{ID: 11, CVEID: cve, Scope: ScopeVersionRange, Product: product, VersionStart: "1.1.1k", VersionEnd: "1.1.1k", State: StateNotAffected}
	tagProd := appliance.TriageRule{ID: 12, CVEID: cve, Scope: ScopeTag, Tag: "prod", State: StateAcceptedRisk, ExpiresAt: now.Add(time.Hour)}
	tagDMZ := appliance.TriageRule{ID: 13, CVEID: cve, Scope: ScopeTag, Tag: "dmz", Product: product, State: StateAcceptedRisk, ExpiresAt: now.Add(time.Hour)}
	tagDMZOther := appliance.TriageRule{ID: 14, CVEID: cve, Scope: ScopeTag, Tag: "dmz", State: StateExploitable}
	expired := appliance.TriageRule{ID: 10, CVEID: cve, Scope: ScopeVersionRange, Product: product, VersionEnd: "9", State: StateAcceptedRisk, ExpiresAt: now}
	for _, tc := range []struct {
		name     string
		rules    []appliance.TriageRule
		f        appliance.TriageFinding
		wantRule int64 // 0: no decision
	}{
		{"no rules", nil, finding("1.1.1k", 1), 0},
		{"another CVE", []appliance.TriageRule{otherCVE}, finding("1.1.1k", 1), 0},
		{"organization", []appliance.TriageRule{org}, finding("1.1.1k", 1), 1},
		{"product beats organization", []appliance.TriageRule{org, prod}, finding("1.1.1k", 1), 2},
		{"the reported name is an identity too", []appliance.TriageRule{byName}, finding("1.1.1k", 1), 3},
		{"range beats product", []appliance.TriageRule{prod, rng}, finding("1.1.1k", 1), 4},
		{"outside the range", []appliance.TriageRule{rng}, finding("1.1.1n", 1), 0},
		{"below the range", []appliance.TriageRule{rng}, finding("1.0.2", 1), 0},
		{"every CVE of the product", []appliance.TriageRule{allCVEs}, finding("3.0.1"), 5},
		{"the host it names", []appliance.TriageRule{host1}, finding("1.1.1k", 1), 7},
		{"a host outside the rule", []appliance.TriageRule{host1}, finding("1.1.1k", 1, 2), 0},
		{"every host covered", []appliance.TriageRule{host1, host2}, finding("1.1.1k", 1, 2), 8},
		{"hosts disagree", []appliance.TriageRule{host1, host2Other}, finding("1.1.1k", 1, 2), 0},
		{"hosts disagree, product decides", []appliance.TriageRule{prod, host1, host2Other}, finding("1.1.1k", 1, 2), 2},
		{"no host has it", []appliance.TriageRule{host1}, finding("1.1.1k"), 0},
		{"exactly the version", []appliance.TriageRule{exact}, finding("1.1.1k", 1), 11},
		{"not the next one", []appliance.TriageRule{exact}, finding("1.1.1l", 1), 0},
		{"every host carries the tag", []appliance.TriageRule{tagProd}, tagged(finding("1.1.1k", 1, 2)), 12},
		{"a host without the tag", []appliance.TriageRule{tagProd}, tagged(finding("1.1.1k", 1, 2, 3)), 0},
		{"tags of one state cover every host", []appliance.TriageRule{tagProd, tagDMZ}, tagged(finding("1.1.1k", 1, 2, 3)), 13},
		{"tags disagree", []appliance.TriageRule{tagProd, tagDMZOther}, tagged(finding("1.1.1k", 1, 2, 3)), 0},
		{"tag beats organization", []appliance.TriageRule{tagProd, org}, tagged(finding("1.1.1k", 1)), 12},
		{"product beats tag", []appliance.TriageRule{prod, tagProd}, tagged(finding("1.1.1k", 1)), 2},
		{"host beats tag", []appliance.TriageRule{host1, tagProd}, tagged(finding("1.1.1k", 1)), 7},
		{"untagged host, org decides", []appliance.TriageRule{org, tagProd}, tagged(finding("1.1.1k", 3)), 1},
		{"expired", []appliance.TriageRule{expired}, finding("1.1.1k", 1), 0},
		{"expired leaves the next one", []appliance.TriageRule{org, expired}, finding("1.1.1k", 1), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Decide(tc.rules, tc.f, now)
			switch {
			case tc.wantRule == 0 && got != nil:
				t.Fatalf("Decide = %+v, want none", got)
			case tc.wantRule != 0 && (got == nil || got.RuleID != tc.wantRule):
				t.Fatalf("Decide = %+v, want rule %d", got, tc.wantRule)
			}
			if got != nil && got.Suppresses != Suppresses(got.State) {
				t.Errorf("suppresses = %v for %s", got.Suppresses, got.State)
			}
		})
	}
}

func TestSplitComponent(t *testing.T) {
	for _, tc := range []struct{ id, identity, version string }{
		{"cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*", "cpe:2.3:a:openssl:openssl", "1.1.1k"},
		{"cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*", "cpe:2.3:a:openssl:openssl", ""},
		{"pkg:npm/%40angular/core@16.0.0?x=1", "pkg:npm/@angular/core", "16.0.0"},
		{"pkg:maven/org.apache/log4j-core", "pkg:maven/org.apache/log4j-core", ""},
	} {
		id, v, err := splitComponent(openvex.Component{ID: tc.id})
		if err != nil || id != tc.identity || v != tc.version {
			t.Errorf("splitComponent(%q) = %q, %q, %v; want %q, %q", tc.id, id, v, err, tc.identity, tc.version)
		}
		c, ok := componentOf(id, v)
		if back, bv, _ := splitComponent(c); !ok || back != id || bv != v {
			t.Errorf("componentOf(%q, %q) = %q does not read back", id, v, c.ID)
		}
	}
	if _, _, err := splitComponent(openvex.Component{ID: "https://example.com/product"}); err == nil {
		t.Error("an IRI that is neither a CPE nor a package URL was accepted")
	}
}
