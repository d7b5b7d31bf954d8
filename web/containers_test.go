package web

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance/containers"
	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

const conformanceScan = "../../shared/conformance/fixtures/container-scan.json"

// attachScans gives env's server the container and remediation services over its store.
func attachScans(env *testEnv) {
	env.Server.containers = containers.NewContainers(env.Store, nil)
	env.Server.remediation = remediation.NewRemediation(env.Store, nil)
}

// scanFixture is the conformance suite's two-image submission (real Trivy entries).
func scanFixture(t testing.TB) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(conformanceScan)
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	return body
}

type containerListJSON = listResponse[containerDetailJSON]

func TestContainerScanAndListing(t *testing.T) {
	env := newTestEnv(t)
	attachScans(env)
	env.createOrg(t, "acme")
	env.createOrg(t, "globex")
	env.createUser(t, "acme", "bob", appliance.RoleMember)
	env.createUser(t, "globex", "carol", appliance.RoleOrgAdmin)
	key, _ := env.createAgentKey(t, "acme")
	metricsKey, _ := env.createAgentKey(t, "acme", "metrics")
	bob, carol := env.login(t, "bob", testPassword), env.login(t, "carol", testPassword)
	apiKey := env.anonymous().withHeader("X-API-Key", key)
	scan := scanFixture(t)
	var nginxID string
	runScenarios(t, []scenario{
		{"no key", "POST", "/api/agent/container-scan", scan, env.anonymous(), 401, wantErrorCode("unauthorized")},
		{"key without agent scope", "POST", "/api/agent/container-scan", scan, env.agent(metricsKey), 403, wantErrorCode("forbidden")},
		{"session is not a key", "POST", "/api/agent/container-scan", scan, bob, 401, wantErrorCode("unauthorized")},
		{"accepted with X-API-Key", "POST", "/api/agent/container-scan", scan, apiKey, 200, func(t *testing.T, res response) {
			got := decodeBody[containerScanResponse](t, res)
			want := containerScanResponse{Status: "accepted", ImagesProcessed: 2, VulnerabilitiesFound: 8, Hostname: "docker-host-1"}
			if got != want {
				t.Errorf("response %+v, want %+v", got, want)
			}
		}},
		{"images not a list", "POST", "/api/agent/container-scan", `{"hostname":"h","images":{"not":"a list"}}`, env.agent(key), 400,
			wantErrorCode("validation_error")},
		{"malformed scanner JSON", "POST", "/api/agent/container-scan",
			`{"hostname":"h","images":[{"image_name":"x:1","image_id":"sha256:00","scan_results":{"Results":"nope"}}]}`, env.agent(key), 400,
			func(t *testing.T, res response) {
				if b := wantError(t, res, "validation_error"); b.Details.Field != "images[0].image_id" {
					t.Errorf("field %q, want images[0].image_id", b.Details.Field)
				}
			}},
		{"list without session", "GET", "/api/containers", nil, env.anonymous(), 401, wantErrorCode("unauthorized")},
		{"list", "GET", "/api/containers", nil, bob, 200, func(t *testing.T, res response) {
			l := decodeBody[containerListJSON](t, res)
			if l.Total != 2 || l.Page != 1 || l.PerPage != 25 || l.Pages != 1 || len(l.Items) != 2 {
				t.Fatalf("list %+v", l)
			}
			byName := map[string]containerDetailJSON{}
			for _, it := range l.Items {
				byName[it.ImageName] = it
			}
			ng := byName["nginx"]
			if ng.ImageTag != "1.21.0" || ng.Hostname != "docker-host-1" || !strings.HasPrefix(ng.ImageID, "sha256:") ||
				ng.VulnerabilityCount != (severityCountsJSON{Critical: 1, High: 2, Medium: 1, Low: 1}) || ng.Vulnerabilities != nil {
				t.Errorf("nginx %+v", ng)
			}
			if app := byName["registry.example.com:5000/team/app"]; app.ImageTag != "2.3" {
				t.Errorf("app %+v", app)
			}
			nginxID = jsonNumber(ng.ID)
		}},
		{"severity filter", "GET", "/api/containers?severity=critical", nil, bob, 200, wantImages("nginx")},
		{"search", "GET", "/api/containers?search=team/app", nil, bob, 200, wantImages("registry.example.com:5000/team/app")},
		{"bad severity", "GET", "/api/containers?severity=severe", nil, bob, 400, wantErrorCode("validation_error")},
		{"other organization sees none", "GET", "/api/containers", nil, carol, 200, wantImages()},
		{"unknown id", "GET", "/api/containers/999999", nil, bob, 404, wantErrorCode("not_found")},
	})
	runScenarios(t, []scenario{
		{"detail", "GET", "/api/containers/" + nginxID, nil, bob, 200, func(t *testing.T, res response) {
			d := decodeBody[containerDetailJSON](t, res)
			if len(d.Vulnerabilities) != 5 || d.Vulnerabilities[0].Severity != "CRITICAL" || d.Vulnerabilities[0].CVEID != "CVE-2021-3711" ||
				d.Vulnerabilities[0].PackageName != "libssl1.1" || d.Vulnerabilities[0].FixedVersion != "1.1.1d-0+deb10u7" {
				t.Errorf("detail %+v", d)
			}
		}},
		{"detail by digest", "GET", "/api/containers/sha256:4f380adfc10f4cd34f775ae57a17d2835385efd5251d6dfe0f246b0018fb0399", nil, bob, 200,
			func(t *testing.T, res response) {
				if d := decodeBody[containerDetailJSON](t, res); d.ImageName != "nginx" {
					t.Errorf("detail %+v", d)
				}
			}},
		{"other organization's record", "GET", "/api/containers/" + nginxID, nil, carol, 404, wantErrorCode("not_found")},
	})
}

func jsonNumber(id int64) string {
	b, _ := json.Marshal(id)
	return string(b)
}

// wantImages checks the image names of a list response, in order.
func wantImages(names ...string) func(t *testing.T, res response) {
	return func(t *testing.T, res response) {
		var got []string
		for _, it := range decodeBody[containerListJSON](t, res).Items {
			got = append(got, it.ImageName)
		}
		if strings.Join(got, ",") != strings.Join(names, ",") {
			t.Errorf("images %v, want %v", got, names)
		}
	}
}
