package web

import "net/http"

// route is one line of the route table: method, path, the chain of its audience, handler.
type route struct {
	method  string
	path    string
	chain   func(http.Handler) http.Handler
	handler http.Handler
}

// routeTable is every route: the API's (in the OpenAPI document) and the web UI's pages.
func (s *Server) routeTable() []route {
	return append(s.apiRoutes(), s.uiRoutes()...)
}

// apiRoutes are the whole auth matrix of the API in one place. Chains: bare (health), open
// (documents), login, person (session + CSRF), agent (agent key, per-key limit; no session,
// no CSRF).
func (s *Server) apiRoutes() []route {
	if s.license {
		return s.licenseRoutes()
	}
	l := s.lim
	fn := func(f http.HandlerFunc) http.Handler { return f }
	return []route{
		{"GET", "/healthz", s.bare, fn(s.health)},
		{"GET", "/metrics", s.metricsAuth, s.metrics.handler()},
		{"GET", "/api/openapi.json", s.open, fn(s.openAPI)},
		{"GET", "/api/docs", s.open, fn(s.docsRedirect)},
		{"GET", "/api/docs/*file", s.open, s.docs()},

		{"POST", "/api/auth/login", s.loginChain, fn(s.login)},
		{"POST", "/api/auth/logout", s.person(stageAny, l.global), fn(s.logout)},
		{"GET", "/api/auth/me", s.person(stageAny, l.global), fn(s.me)},
		{"GET", "/api/auth/csrf", s.person(stageAny, l.global), fn(s.csrfToken)},
		{"POST", "/api/auth/password", s.person(stagePassword, l.password), fn(s.changePassword)},
		{"POST", "/api/auth/totp/setup", s.person(stageFull, l.password), fn(s.totpSetup)},
		{"POST", "/api/auth/totp/enable", s.person(stageFull, l.password), fn(s.totpEnable)},
		{"POST", "/api/auth/totp/disable", s.person(stageFull, l.password), fn(s.totpDisable)},
		{"POST", "/api/auth/totp/verify", s.person(stageTOTP, l.login), fn(s.totpVerify)},
		{"POST", "/api/users/:id/totp/reset", s.admin(l.password), fn(s.totpReset)},

		{"GET", "/api/products", s.person(stageFull, l.global), fn(s.listProducts)},
		{"POST", "/api/products", s.person(stageFull, l.global), fn(s.createProduct)},
		{"GET", "/api/products/:id", s.person(stageFull, l.global), fn(s.getProduct)},
		{"PUT", "/api/products/:id", s.person(stageFull, l.global), fn(s.updateProduct)},
		{"PATCH", "/api/products/:id", s.person(stageFull, l.global), fn(s.updateProduct)},
		{"DELETE", "/api/products/:id", s.admin(l.global), fn(s.deleteProduct)},
		{"GET", "/api/criticality/rules", s.person(stageFull, l.global), fn(s.getCriticalityRules)},
		{"PUT", "/api/criticality/rules", s.admin(l.global), fn(s.putCriticalityRules)},
		{"GET", "/api/resolution/review", s.person(stageFull, l.global), fn(s.resolutionReview)},

		{"GET", "/api/assets", s.person(stageFull, l.global), fn(s.listAssets)},
		{"GET", "/api/assets/:id", s.person(stageFull, l.global), fn(s.getAsset)},
		{"DELETE", "/api/assets/:id", s.admin(l.global), fn(s.deleteAsset)},
		{"PUT", "/api/assets/:id/tags", s.admin(l.global), fn(s.setAssetTags)},
		{"GET", "/api/vulnerabilities", s.person(stageFull, l.global), fn(s.listVulnerabilities)},
		{"GET", "/api/findings", s.person(stageFull, l.global), fn(s.listFindings)},
		{"GET", "/api/vulnerabilities/:cve_id", s.person(stageFull, l.global), fn(s.getVulnerability)},
		{"GET", "/api/dashboard", s.person(stageFull, l.global), fn(s.dashboard)},

		{"GET", "/api/containers", s.person(stageFull, l.containers), fn(s.listContainers)},
		{"GET", "/api/containers/:id", s.person(stageFull, l.containers), fn(s.getContainer)},
		{"GET", "/api/remediation/assignments", s.person(stageFull, l.global), fn(s.listAssignments)},
		{"POST", "/api/remediation/assignments", s.person(stageFull, l.global), fn(s.createAssignment)},
		{"GET", "/api/remediation/assignments/:id", s.person(stageFull, l.global), fn(s.getAssignment)},
		{"PUT", "/api/remediation/assignments/:id", s.person(stageFull, l.global), fn(s.updateAssignment)},
		{"DELETE", "/api/remediation/assignments/:id", s.person(stageFull, l.global), fn(s.deleteAssignment)},
		{"GET", "/api/sla/policy", s.person(stageFull, l.global), fn(s.getSLAPolicy)},
		{"PUT", "/api/sla/policy", s.person(stageFull, l.global), fn(s.putSLAPolicy)},

		// triage (issue 13)
		{"GET", "/api/triage/rules", s.person(stageFull, l.global), fn(s.listTriageRules)},
		{"POST", "/api/triage/rules", s.person(stageFull, l.global), fn(s.createTriageRule)},
		{"GET", "/api/triage/rules/:id", s.person(stageFull, l.global), fn(s.getTriageRule)},
		{"POST", "/api/triage/rules/preview", s.person(stageFull, l.global), fn(s.previewTriageRule)},
		{"PUT", "/api/triage/rules/:id", s.person(stageFull, l.global), fn(s.updateTriageRule)},
		{"DELETE", "/api/triage/rules/:id", s.person(stageFull, l.global), fn(s.deleteTriageRule)},
		{"GET", "/api/triage/rules/:id/history", s.person(stageFull, l.global), fn(s.triageRuleHistory)},
		{"POST", "/api/products/:id/findings/:cve/triage", s.person(stageFull, l.global), fn(s.triageFinding)},
		{"GET", "/api/vex", s.person(stageFull, l.global), fn(s.exportVEX)},
		{"POST", "/api/vex", s.person(stageFull, l.global), fn(s.importVEX)},

		{"GET", "/api/kb/status", s.person(stageFull, l.global), fn(s.kbStatus)},
		{"GET", "/api/feeds", s.person(stageFull, l.global), fn(s.listFeeds)},
		{"GET", "/api/reports/compliance", s.person(stageFull, l.global), fn(s.complianceReport)},

		{"GET", "/api/webhooks", s.admin(l.global), fn(s.listWebhooks)},
		{"POST", "/api/webhooks", s.admin(l.global), fn(s.createWebhook)},
		{"GET", "/api/webhooks/:id", s.admin(l.global), fn(s.getWebhook)},
		{"PUT", "/api/webhooks/:id", s.admin(l.global), fn(s.updateWebhook)},
		{"DELETE", "/api/webhooks/:id", s.admin(l.global), fn(s.deleteWebhook)},
		{"GET", "/api/webhooks/:id/deliveries", s.admin(l.global), fn(s.webhookDeliveries)},
		{"POST", "/api/webhooks/:id/test", s.admin(l.global), fn(s.testWebhook)},
		{"GET", "/api/me/notifications", s.person(stageFull, l.global), fn(s.getNotifyPrefs)},
		{"PUT", "/api/me/notifications", s.person(stageFull, l.global), fn(s.putNotifyPrefs)},

		{"POST", "/api/agent/inventory", s.agent(l.inventory), fn(s.submitInventory)},
		{"POST", "/api/agent/sbom", s.agent(l.inventory), fn(s.submitSBOM)},
		{"POST", "/api/agent/heartbeat", s.agent(l.heartbeat), fn(s.heartbeat)},
		{"GET", "/api/agent/config", s.agent(l.config), fn(s.agentConfig)},
		{"POST", "/api/agent/container-scan", s.agent(l.containerScan), fn(s.containerScan)},
	}
}

// licenseRoutes serve only /api/v1 and health on a licence server.
func (s *Server) licenseRoutes() []route {
	l := s.lim
	fn := func(f http.HandlerFunc) http.Handler { return f }
	return []route{
		{"GET", "/healthz", s.bare, fn(s.health)},
		{"GET", "/metrics", s.adminOnly, s.metrics.handler()},
		{"POST", "/api/v1/license/activate", s.open, fn(s.activate)},
		{"POST", "/api/v1/heartbeat", s.licensed, fn(s.licenseHeartbeat)},
		{"POST", "/api/v1/verify-signed", s.licensed, fn(s.verifySigned)},
		{"GET", "/api/v1/releases/latest", s.open, fn(s.latestRelease)},
		{"POST", "/api/v1/kb/mappings/push", s.licensee(l.kbPush), fn(s.kbPush)},
		{"GET", "/api/v1/kb/mappings/pull", s.licensee(nil), s.pullLimits(fn(s.kbPull))},
		{"GET", "/api/v1/admin/datasources", s.adminOnly, fn(s.datasources)},
		{"GET", "/api/v1/admin/datasources/:source", s.adminOnly, fn(s.datasources)},
	}
}

func (s *Server) bare(h http.Handler) http.Handler { return h }

// open: public documents, under the global per-client limit.
func (s *Server) open(h http.Handler) http.Handler { return s.limited(s.lim.global, byIP, h) }

// loginChain: the login limit per client IP, only same-origin JSON (no login CSRF), a
// session to renew, no CSRF token (there is no session yet). The per-account back-off is
// in the handler, which knows the account.
func (s *Server) loginChain(h http.Handler) http.Handler {
	return s.limited(s.lim.login, byIP, s.loginRequestCheck(s.sessions.LoadAndSave(h)))
}

// person: a session of the given stage, the route's limit per user (the global budget too:
// colleagues behind one address each have their own), then CSRF.
func (s *Server) person(st stage, l *keyedLimiter) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return s.sessions.LoadAndSave(s.requireUser(st, s.limited(l, byUser, s.csrf(h))))
	}
}

// admin: person (fully signed in) for organization admins only.
func (s *Server) admin(l *keyedLimiter) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler { return s.person(stageFull, l)(s.requireAdmin(h)) }
}

// agent: an agent key with the agent scope, then the route's limit per key, then gzip
// bodies inflated as read (under the handler's size cap).
func (s *Server) agent(l *keyedLimiter) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler { return s.agentAuth(s.limited(l, byAgentKey, s.acceptGzip(h))) }
}
