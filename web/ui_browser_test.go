package web

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/containers"
	"github.com/vulnkeeper/vulnkeeper/appliance/remediation"
	"github.com/vulnkeeper/vulnkeeper/sqlitestore"
)

// browser drives one headless Chromium tab against a test server, collecting every console
// error, uncaught exception and CSP violation, and saving a screenshot per page.
type browser struct {
	t      *testing.T
	ctx    context.Context
	base   string
	shots  string
	n      int
	mu     sync.Mutex
	faults []string
}

// chromiumPath finds Debian's chromium (CI installs it; see .ci/run).
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium on PATH: the browser tests need Debian's chromium package (apt-get install chromium)")
	return ""
}

func newBrowser(t *testing.T, base string) *browser {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox, chromedp.WindowSize(1280, 900), chromedp.Flag("disable-gpu", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelTab(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx, base: base, shots: os.Getenv("VULNKEEPER_SCREENSHOTS")}
	if b.shots == "" {
		b.shots = t.TempDir()
	}
	// A CSP violation is an error of the browser log with source "security".
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() || m.Source == "security" {
				b.mu.Lock()
				b.faults = append(b.faults, fmt.Sprintf("%s (%s %s)", m, m.Source, m.URL))
				b.mu.Unlock()
			}
		}
	}()
	return b
}

// do performs actions, failing the test (with a screenshot of where it stood) on error.
func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.shot("failed-" + strings.ReplaceAll(what, " ", "-"))
		b.t.Fatalf("%s: %v", what, err)
	}
}

// value runs one action that returns a value.
func value[T any](b *browser, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// visit opens path and waits for sel, an XPath when it starts with "//", else CSS.
func (b *browser) visit(path, sel string) {
	b.t.Helper()
	wait := chromedp.WaitVisible(chromedp.CSS(sel))
	if strings.HasPrefix(sel, "//") {
		wait = chromedp.WaitVisible(chromedp.Search(sel))
	}
	b.do("visit "+path, chromedp.Navigate(b.base+path), wait)
}

// shot saves a full-page screenshot (PNG) named after the step.
func (b *browser) shot(name string) {
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	b.n++
	if err := os.WriteFile(filepath.Join(b.shots, fmt.Sprintf("%02d-%s.png", b.n, name)), png, 0o644); err != nil {
		b.t.Error(err)
	}
}

// count is the number of elements the CSS selector sel matches now.
func (b *browser) count(sel string) int {
	b.t.Helper()
	return value(b, "count "+sel, chromedp.Evaluate[int](fmt.Sprintf("document.querySelectorAll(%q).length", sel)))
}

// text is the visible text of the first element sel matches.
func (b *browser) text(sel chromedp.CSS) string {
	b.t.Helper()
	return strings.TrimSpace(value(b, "text of "+string(sel), chromedp.Text(sel)))
}

// checkFaults fails the test on any console error, exception or CSP violation so far.
func (b *browser) checkFaults(step string) {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, f := range b.faults {
		b.t.Errorf("%s: %s", step, f)
	}
	b.faults = nil
}

// TestBrowserJourney drives a real headless Chromium through what an admin does on a first
// day: sign in, turn on two-factor authentication and sign in again with it, see a host's
// software and its CVEs after an agent posts its inventory, confirm a name in the review
// queue and see its findings appear, mark another "not a product we track" and see it leave
// the queue, create and resolve an assignment, and create an agent
// key. Each page is screenshotted; a console error or CSP violation fails the test.
func TestBrowserJourney(t *testing.T) {
	var svc inventoryServices
	env := newTestEnv(t, withInventory(&svc, catalogMini, nvd2015, kevFull), withDeps(func(_ testing.TB, d *Deps, st *sqlitestore.Store) {
		d.Containers = containers.NewContainers(st, nil)
		d.Remediation = remediation.NewRemediation(st, nil)
	}))
	env.createOrg(t, "acme")
	env.createUser(t, "acme", "alice", appliance.RoleOrgAdmin)
	agentKey, _ := env.createAgentKey(t, "acme")
	b := newBrowser(t, env.URL)

	// Sign in with the password.
	b.visit("/", `form[action="/login"]`)
	b.shot("sign-in")
	b.do("sign in", chromedp.SendKeys(chromedp.CSS(`input[name=username]`), "alice"), chromedp.SendKeys(chromedp.CSS(`input[name=password]`), testPassword),
		chromedp.Click(chromedp.CSS(`form[action="/login"] button[type=submit]`)), chromedp.WaitVisible(chromedp.Search(`//h1[text()="Overview"]`)))
	b.shot("overview-empty")
	b.checkFaults("sign in")

	// Turn on two-factor authentication with the key the page shows (and its QR code).
	b.visit("/account", `form[action="/account/totp/setup"]`)
	b.do("totp setup", chromedp.Click(chromedp.CSS(`form[action="/account/totp/setup"] button`)), chromedp.WaitVisible(chromedp.CSS(`#totp-secret`)))
	secret := b.text(`#totp-secret`)
	qrWidth := value(b, "qr code", chromedp.Poll[int](`document.querySelector("img.qr").complete && document.querySelector("img.qr").naturalWidth`,
		chromedp.WithPollingTimeout(5*time.Second)))
	if qrWidth == 0 {
		t.Error("the QR code image did not load")
	}
	b.shot("totp-setup")
	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b.do("totp enable", chromedp.SendKeys(chromedp.CSS(`form[action="/account/totp/enable"] input[name=password]`), testPassword),
		chromedp.SendKeys(chromedp.CSS(`form[action="/account/totp/enable"] input[name=code]`), code),
		chromedp.Click(chromedp.CSS(`form[action="/account/totp/enable"] button`)), chromedp.WaitVisible(chromedp.CSS(`form[action="/account/totp/disable"]`)))
	if s := b.text(`#totp-state`); s != "on" {
		t.Errorf("two-factor state %q after enabling", s)
	}

	// Sign out and in again: the code step comes after the password (the next step's code,
	// as the current one was spent on enabling).
	b.do("sign out", chromedp.Click(chromedp.CSS(`header form[action="/logout"] button`)), chromedp.WaitVisible(chromedp.CSS(`form[action="/login"]`)))
	b.do("password step", chromedp.SendKeys(chromedp.CSS(`input[name=username]`), "alice"), chromedp.SendKeys(chromedp.CSS(`input[name=password]`), testPassword),
		chromedp.Click(chromedp.CSS(`form[action="/login"] button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(`form[action="/login/totp"]`)))
	b.shot("totp-step")
	next, _ := totp.GenerateCode(secret, time.Now().Add(30*time.Second))
	b.do("code step", chromedp.SendKeys(chromedp.CSS(`form[action="/login/totp"] input[name=code]`), next),
		chromedp.Click(chromedp.CSS(`form[action="/login/totp"] button[type=submit]`)), chromedp.WaitVisible(chromedp.Search(`//h1[text()="Overview"]`)))
	b.checkFaults("two-factor")

	// An agent posts its host's inventory through the agent API.
	items := []inventoryItem{inv("OpenSSL Project", "OpenSSL", "1.0.1l"), inv("Mozilla", "Mozilla Firefox (x64 en-US)", "38.0"),
		inv("Acme Labs", "Acme Secure Sockets Toolkit", "1.0.1l"), inv("Initech", "TPS Report Viewer", "3.1")}
	if res := env.agent(agentKey).do(t, "POST", "/api/agent/inventory", inventoryBody("web-01", items...)); res.Status != 200 {
		t.Fatalf("inventory: %d %s", res.Status, res.Body)
	}

	// The host, its software and their findings; one of its CVEs and the hosts it affects.
	b.visit("/hosts", `//a[text()="web-01"]`)
	b.shot("hosts")
	b.do("open the host", chromedp.Click(chromedp.Search(`//a[text()="web-01"]`)), chromedp.WaitVisible(chromedp.CSS(`#installed`)))
	if !strings.Contains(b.text(`#installed`), "OpenSSL") || b.count(`#installed .sev-critical, #installed .sev-high`) == 0 {
		t.Error("the host page does not list OpenSSL with its findings")
	}
	b.shot("host")
	b.visit("/vulnerabilities?sort=score&order=desc", `#vulnerabilities`)
	b.shot("vulnerabilities")
	b.do("open the CVE", chromedp.Click(chromedp.CSS(`#vulnerabilities tbody a`)), chromedp.WaitVisible(chromedp.CSS(`#affected-hosts`)))
	if !strings.Contains(b.text(`#affected-hosts`), "web-01") || b.count(`#affected-products tbody a[href^="/products/"]`) == 0 {
		t.Error("the CVE page does not name the affected host and product")
	}
	b.shot("vulnerability")
	b.checkFaults("hosts and CVEs")

	// The product and its CVEs.
	b.visit("/products", `//a[text()="OpenSSL"]`)
	b.shot("products")
	b.do("open OpenSSL", chromedp.Click(chromedp.Search(`//a[text()="OpenSSL"]`)), chromedp.WaitVisible(chromedp.CSS(`#findings`)))
	if n := b.count(`#findings tbody tr td.mono`); n == 0 {
		t.Error("OpenSSL 1.0.1l shows no CVE")
	}
	if !strings.Contains(b.text(`main`), "web-01") {
		t.Error("the product page does not name its host")
	}
	b.shot("product")
	b.checkFaults("product")

	// The review queue: type the identity of the name nothing resolved; its findings appear.
	b.visit("/review", `#queue`)
	b.shot("review")
	input := `input[aria-label="CPE for Acme Secure Sockets Toolkit"]`
	b.do("confirm", chromedp.SendKeys(chromedp.CSS(input), "cpe:2.3:a:openssl:openssl:*:*:*:*:*:*:*:*"),
		chromedp.Click(chromedp.Search(`//input[@aria-label="CPE for Acme Secure Sockets Toolkit"]/following-sibling::button`)),
		chromedp.WaitVisible(chromedp.CSS(`#confirmed`)))
	if n := b.count(`#confirmed .confirmed-findings tbody tr`); n == 0 {
		t.Error("no findings shown after the confirmation")
	}
	b.shot("review-confirmed")
	b.checkFaults("review")

	// A name that is no product we track leaves the queue in one click.
	b.visit("/review", `button[aria-label="Not tracked: TPS Report Viewer"]`)
	b.do("not tracked", chromedp.Click(chromedp.CSS(`button[aria-label="Not tracked: TPS Report Viewer"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.flash.ok`)))
	if q := b.text(`#queue`); strings.Contains(q, "TPS Report Viewer") {
		t.Errorf("the name marked not tracked is still queued: %q", q)
	}
	b.shot("review-not-tracked")
	b.checkFaults("not tracked")

	// An assignment from a finding, then resolved with a note.
	b.visit("/products", `//a[text()="OpenSSL"]`)
	b.do("assign", chromedp.Click(chromedp.Search(`//a[text()="OpenSSL"]`)), chromedp.WaitVisible(chromedp.CSS(`#findings`)),
		chromedp.Click(chromedp.CSS(`#findings a[href^="/assign?match_id="]`)), chromedp.WaitVisible(chromedp.CSS(`form[action="/assign"]`)))
	b.shot("assignment-new")
	b.do("create assignment", chromedp.Click(chromedp.CSS(`form[action="/assign"] button[type=submit]`)), chromedp.WaitVisible(chromedp.CSS(`#status-form`)))
	b.do("resolve", chromedp.SetValue(chromedp.CSS(`#status-form select[name=status]`), "resolved"),
		chromedp.SendKeys(chromedp.CSS(`#status-form textarea[name=notes]`), "patched to 1.0.1m"),
		chromedp.Click(chromedp.CSS(`#status-form button[type=submit]`)), chromedp.WaitVisible(chromedp.Search(`//table[@id="history"]//td[text()="resolved"]`)))
	b.shot("assignment-resolved")
	b.visit("/remediation", `#assignments`)
	if !strings.Contains(b.text(`#assignments`), "resolved") {
		t.Error("the remediation board does not show the resolved assignment")
	}
	b.checkFaults("remediation")

	// An agent key, shown once with its install lines.
	b.visit("/admin/keys", `#key-name`)
	b.do("create key", chromedp.SendKeys(chromedp.CSS(`#key-name`), "laptops"), chromedp.Click(chromedp.CSS(`form[action="/admin/keys"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`#key-value`)))
	if key := b.text(`#key-value`); len(key) < 20 {
		t.Errorf("new key %q", key)
	}
	if b.count(`button[data-copy="key-value"]:not([hidden])`) != 1 {
		t.Error("the copy button is not shown (app.js did not run)")
	}
	b.shot("agent-key")
	b.visit("/", `//h1[text()="Overview"]`)
	b.shot("overview")
	b.checkFaults("agent key")
	t.Logf("screenshots in %s", b.shots)
}
