package web

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// uiRoutes are the pages of the web UI. Reading needs a signed-in person; admin pages
// need the org_admin role; every form is a POST with the CSRF token.
func (s *Server) uiRoutes() []route {
	if s.license || s.ui == nil {
		return nil
	}
	fn := func(f http.HandlerFunc) http.Handler { return f }
	full, admin := s.page(stageFull, false), s.page(stageFull, true)
	return []route{
		{"GET", "/static/*file", s.uiStatic, fn(s.serveStatic)},
		{"GET", "/login", s.uiOpen(s.lim.global), fn(s.loginPage)},
		{"POST", "/login", s.uiOpen(s.lim.login), fn(s.loginSubmit)},
		{"POST", "/logout", s.page(stageAny, false), fn(s.logoutSubmit)},
		{"GET", "/login/totp", s.page(stageTOTP, false), fn(s.totpPage)},
		{"POST", "/login/totp", s.page(stageTOTP, false), fn(s.totpSubmit)},
		{"GET", "/password", s.page(stagePassword, false), fn(s.passwordPage)},
		{"POST", "/password", s.page(stagePassword, false), fn(s.passwordSubmit)},

		{"GET", "/", full, fn(s.homePage)},
		{"GET", "/hosts", full, fn(s.hostsPage)},
		{"GET", "/hosts/:id", full, fn(s.hostPage)},
		{"POST", "/hosts/:id/delete", admin, fn(s.hostDeleteSubmit)},
		{"POST", "/hosts/:id/tags", admin, fn(s.hostTagsSubmit)},
		{"GET", "/vulnerabilities", full, fn(s.vulnerabilitiesPage)},
		{"GET", "/vulnerabilities/:cve_id", full, fn(s.vulnerabilityPage)},
		{"GET", "/products", full, fn(s.productsPage)},
		{"GET", "/products/:id", full, fn(s.productPage)},
		{"POST", "/products/:id/identity", admin, fn(s.productIdentitySubmit)},
		{"POST", "/products/:id/tracking", admin, fn(s.productTrackingSubmit)},
		{"POST", "/products/:id/criticality", full, fn(s.productCriticalitySubmit)},
		{"GET", "/review", full, fn(s.reviewPage)},
		{"POST", "/review/confirm", admin, fn(s.reviewConfirmSubmit)},
		{"POST", "/review/not-tracked", admin, fn(s.reviewNotTrackedSubmit)},
		{"POST", "/review/bulk", admin, fn(s.reviewBulkSubmit)},
		{"GET", "/containers", full, fn(s.containersPage)},
		{"GET", "/containers/:id", full, fn(s.containerPage)},
		{"GET", "/remediation", full, fn(s.remediationPage)},
		{"GET", "/assign", admin, fn(s.assignmentNewPage)},
		{"POST", "/assign", admin, fn(s.assignmentCreateSubmit)},
		{"GET", "/remediation/:id", full, fn(s.assignmentPage)},
		{"POST", "/remediation/:id/status", full, fn(s.assignmentStatusSubmit)},

		{"GET", "/account", full, fn(s.accountPage)},
		{"POST", "/account/mail", full, fn(s.mailPrefsSubmit)},
		{"POST", "/account/totp/setup", full, fn(s.totpSetupSubmit)},
		{"GET", "/account/totp/qr.png", full, fn(s.totpQR)},
		{"POST", "/account/totp/enable", full, fn(s.totpEnableSubmit)},
		{"POST", "/account/totp/disable", full, fn(s.totpDisableSubmit)},

		{"GET", "/admin/keys", admin, fn(s.keysPage)},
		{"POST", "/admin/keys", admin, fn(s.keyCreateSubmit)},
		{"POST", "/admin/keys/:id/revoke", admin, fn(s.keyRevokeSubmit)},
		{"GET", "/admin/users", admin, fn(s.usersPage)},
		{"POST", "/admin/users", admin, fn(s.userCreateSubmit)},
		{"POST", "/admin/users/:id/role", admin, fn(s.userRoleSubmit)},
		{"POST", "/admin/users/:id/totp-reset", admin, fn(s.userTOTPResetSubmit)},
		{"POST", "/admin/users/:id/force-password", admin, fn(s.userForcePasswordSubmit)},
		{"GET", "/admin/webhooks", admin, fn(s.webhooksPage)},
		{"POST", "/admin/webhooks", admin, fn(s.webhookCreateSubmit)},
		{"POST", "/admin/webhooks/:id/delete", admin, fn(s.webhookDeleteSubmit)},
		{"POST", "/admin/webhooks/:id/test", admin, fn(s.webhookTestSubmit)},
		{"GET", "/admin/settings", admin, fn(s.settingsPage)},
		{"POST", "/admin/sla", admin, fn(s.slaSubmit)},
	}
}

func contextWithUser(ctx context.Context, u appliance.User) context.Context {
	return context.WithValue(ctx, userKey, u)
}

// uiFuncs are the helpers templates may call.
func uiFuncs(version string) template.FuncMap {
	return template.FuncMap{
		"asset": func(name string) string { return "/static/" + name + "?v=" + version },
		"when":  formTime,
		"day": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.UTC().Format(time.DateOnly)
		},
		"score": func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
		"age":   age,
		"since": func(t time.Time) string {
			if t.IsZero() {
				return "never"
			}
			return age(time.Since(t)) + " ago"
		},
		"pct":  func(f float64) string { return strconv.Itoa(int(f*100+0.5)) + "%" },
		"sev":  func(s string) string { return strings.ToLower(s) },
		"add":  func(a, b int) int { return a + b },
		"list": func(v ...any) []any { return v },
		"join": strings.Join,
		// setq is the current URL's query with one parameter changed (and the page reset
		// unless the parameter is the page).
		"setq": func(q url.Values, name, value string) string {
			c := url.Values{}
			for k, v := range q {
				if v[0] != "" {
					c[k] = v
				}
			}
			if name != "page" {
				c.Del("page")
			}
			c.Set(name, value)
			return "?" + c.Encode()
		},
		"cpeOf": func(part, vendor, product string) string {
			return fmt.Sprintf("cpe:2.3:%s:%s:%s:*:*:*:*:*:*:*:*", part, vendor, product)
		},
	}
}

// age is a duration as a person reads it: minutes, hours or days.
func age(d time.Duration) string {
	switch {
	case d < 0:
		return "0 minutes"
	case d < 2*time.Hour:
		return strconv.Itoa(int(d.Minutes())) + " minutes"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + " hours"
	}
	return strconv.Itoa(int(d.Hours()/24)) + " days"
}

// pager is the paging line of a list.
type pager struct {
	Query                   url.Values
	Page, Pages, Total, Per int
}

func newPager(q url.Values, pg, per, total int) pager {
	return pager{Query: q, Page: pg, Per: per, Total: total, Pages: pages(total, per)}
}

// Prev and Next are the neighbouring pages (0 when none).
func (p pager) Prev() int {
	if p.Page > 1 {
		return p.Page - 1
	}
	return 0
}

func (p pager) Next() int {
	if p.Page < p.Pages {
		return p.Page + 1
	}
	return 0
}
