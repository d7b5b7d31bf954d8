package triage

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Store is what the triage service reads, and the transaction it writes in.
type Store interface {
	appliance.TriageReader
	OrganizationByID(ctx context.Context, id int64) (appliance.Organization, error)
	ProductByID(ctx context.Context, orgID, id int64) (appliance.Product, error)
	ProductVulnerabilities(ctx context.Context, orgID, productID int64) ([]appliance.ProductVulnerability, error)
	appliance.Transactor
}

// Service keeps the rules of each organization and the decisions they put in force.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService builds the service; now may be nil for the wall clock.
func NewService(store Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, now: now}
}

// Now is the service's clock.
func (s *Service) Now() time.Time { return s.now().UTC() }

// Input is a rule as a person (or an import) states it.
type Input struct {
	CVEID         string
	Scope         string
	Product       string
	VersionStart  string
	VersionEnd    string
	AssetID       int64
	Tag           string
	State         string
	Justification string
	Note          string
	ExpiresAt     string // RFC 3339 or a date (the start of that day, UTC); "" for none
	Author        string // imports only: the vendor; people are named by their account
}

// ParseExpiry reads an expiry: RFC 3339, or a date meaning the start of that day (UTC).
func ParseExpiry(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, appliance.Invalid("expires_at", "format", "expires_at must be an RFC 3339 time or a date (YYYY-MM-DD)")
}

func (s *Service) rule(actor appliance.User, in Input) (appliance.TriageRule, error) {
	exp, err := ParseExpiry(in.ExpiresAt)
	if err != nil {
		return appliance.TriageRule{}, err
	}
	author := strings.TrimSpace(in.Author)
	if author == "" {
		author = actor.Username
	}
	r := appliance.TriageRule{OrganizationID: actor.OrganizationID, CVEID: in.CVEID, Scope: in.Scope, Product: in.Product,
		VersionStart: strings.TrimSpace(in.VersionStart), VersionEnd: strings.TrimSpace(in.VersionEnd), AssetID: in.AssetID, Tag: in.Tag,
		State: in.State, Justification: in.Justification, Note: in.Note, Author: author, ExpiresAt: exp}
	if err := Validate(&r, s.Now()); err != nil {
		return r, err
	}
	return r, nil
}

var errAdminOnly = appliance.Forbidden("only an organization admin may decide a finding's state; members may propose in_triage")

// mayWrite: admins decide; members may only propose in_triage.
func mayWrite(actor appliance.User, state string) error {
	if actor.Role == appliance.RoleOrgAdmin || state == StateInTriage {
		return nil
	}
	return errAdminOnly
}

// Rules lists the organization's rules in force (deleted ones only keep their history).
func (s *Service) Rules(ctx context.Context, orgID int64) ([]appliance.TriageRule, error) {
	return s.store.TriageRules(ctx, orgID)
}

// Rule returns one live rule of the organization.
func (s *Service) Rule(ctx context.Context, orgID, id int64) (appliance.TriageRule, error) {
	r, err := s.store.TriageRule(ctx, orgID, id)
	return r, ruleErr(err, id)
}

func ruleErr(err error, id int64) error {
	if errors.Is(err, appliance.ErrNotFound) {
		return appliance.NotFound("triage rule %d does not exist", id)
	}
	return err
}

// History returns a rule's audit trail, oldest first; deleted rules keep theirs.
func (s *Service) History(ctx context.Context, orgID, id int64) ([]appliance.TriageEvent, error) {
	evs, err := s.store.TriageEvents(ctx, orgID, id)
	if err == nil && len(evs) == 0 {
		err = appliance.ErrNotFound
	}
	return evs, ruleErr(err, id)
}

// Create saves a rule and applies it.
func (s *Service) Create(ctx context.Context, actor appliance.User, in Input) (appliance.TriageRule, error) {
	r, err := s.rule(actor, in)
	if err != nil {
		return r, err
	}
	if err := mayWrite(actor, r.State); err != nil {
		return r, err
	}
	err = s.store.InTx(ctx, func(tx appliance.Tx) error {
		if err := s.checkHost(ctx, tx, r); err != nil {
			return err
		}
		r, err = s.create(ctx, tx, actor, r)
		if err != nil {
			return err
		}
		return s.refresh(ctx, tx, actor.OrganizationID)
	})
	return r, err
}

func (s *Service) create(ctx context.Context, tx appliance.Tx, actor appliance.User, r appliance.TriageRule) (appliance.TriageRule, error) {
	now := s.Now()
	r.CreatedBy, r.CreatedAt, r.UpdatedBy, r.UpdatedAt = actor.ID, now, actor.ID, now
	id, err := tx.CreateTriageRule(ctx, r)
	if err != nil {
		return r, fmt.Errorf("save triage rule: %w", err)
	}
	r.ID = id
	return r, tx.AddTriageEvent(ctx, appliance.TriageEvent{RuleID: id, At: now, Action: "created", By: actor.ID, Rule: r})
}

// checkHost refuses a host rule naming a host of another organization.
func (s *Service) checkHost(ctx context.Context, tx appliance.Tx, r appliance.TriageRule) error {
	if r.Scope != ScopeHost {
		return nil
	}
	_, err := tx.TriageHost(ctx, r.OrganizationID, r.AssetID)
	if errors.Is(err, appliance.ErrNotFound) {
		return appliance.Invalid("asset_id", "exists", "host %d does not exist", r.AssetID)
	}
	return err
}

// Update replaces a rule's decision and scope; the previous version stays in its history.
func (s *Service) Update(ctx context.Context, actor appliance.User, id int64, in Input) (appliance.TriageRule, error) {
	next, err := s.rule(actor, in)
	if err != nil {
		return next, err
	}
	var out appliance.TriageRule
	err = s.store.InTx(ctx, func(tx appliance.Tx) error {
		cur, err := tx.TriageRule(ctx, actor.OrganizationID, id)
		if err != nil {
			return ruleErr(err, id)
		}
		if err := mayWrite(actor, cur.State); err != nil {
			return err
		}
		if err := mayWrite(actor, next.State); err != nil {
			return err
		}
		if err := s.checkHost(ctx, tx, next); err != nil {
			return err
		}
		if strings.TrimSpace(in.Author) == "" {
			next.Author = cur.Author
		}
		next.ID, next.CreatedBy, next.CreatedAt = cur.ID, cur.CreatedBy, cur.CreatedAt
		next.UpdatedBy, next.UpdatedAt = actor.ID, s.Now()
		if err := tx.UpdateTriageRule(ctx, next); err != nil {
			return err
		}
		if err := tx.AddTriageEvent(ctx, appliance.TriageEvent{RuleID: id, At: next.UpdatedAt, Action: "updated", By: actor.ID, Rule: next}); err != nil {
			return err
		}
		out = next
		return s.refresh(ctx, tx, actor.OrganizationID)
	})
	return out, err
}

// Delete retires a rule: it stops applying, its history stays.
func (s *Service) Delete(ctx context.Context, actor appliance.User, id int64) error {
	return s.store.InTx(ctx, func(tx appliance.Tx) error {
		cur, err := tx.TriageRule(ctx, actor.OrganizationID, id)
		if err != nil {
			return ruleErr(err, id)
		}
		if err := mayWrite(actor, cur.State); err != nil {
			return err
		}
		now := s.Now()
		cur.DeletedAt, cur.UpdatedAt, cur.UpdatedBy = now, now, actor.ID
		if err := tx.UpdateTriageRule(ctx, cur); err != nil {
			return err
		}
		if err := tx.AddTriageEvent(ctx, appliance.TriageEvent{RuleID: id, At: now, Action: "deleted", By: actor.ID, Rule: cur}); err != nil {
			return err
		}
		return s.refresh(ctx, tx, actor.OrganizationID)
	})
}

// Change is a finding whose decision a rule would change.
type Change struct {
	Product          appliance.Product // for a container finding: the package (see TriageFinding)
	ContainerImageID int64             // a container finding's image record, 0 for a product's
	CVEID            string
	From, To         *appliance.TriageState
}

// Preview is a dry run: the current findings whose decision would change if the rule were
// saved (replacing rule replaceID when not 0). Nothing is written.
func (s *Service) Preview(ctx context.Context, actor appliance.User, replaceID int64, in Input) ([]Change, error) {
	r, err := s.rule(actor, in)
	if err != nil {
		return nil, err
	}
	rules, err := s.store.TriageRules(ctx, actor.OrganizationID)
	if err != nil {
		return nil, err
	}
	findings, err := s.store.TriageFindings(ctx, actor.OrganizationID)
	if err != nil {
		return nil, err
	}
	r.ID = 1 << 62 // the newest rule
	next := []appliance.TriageRule{r}
	for _, old := range rules {
		if old.ID != replaceID {
			next = append(next, old)
		}
	}
	now := s.Now()
	out := []Change{}
	for _, f := range findings {
		from, to := Decide(rules, f, now), Decide(next, f, now)
		if to != nil && to.RuleID == r.ID {
			to.RuleID = 0 // not saved yet
		}
		if !sameState(from, to) {
			out = append(out, Change{Product: f.Product, ContainerImageID: f.ContainerImageID, CVEID: f.CVEID, From: from, To: to})
		}
	}
	return out, nil
}

func sameState(a, b *appliance.TriageState) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.State == b.State && a.Justification == b.Justification && a.ExpiresAt.Equal(b.ExpiresAt)
}

// refresh records the decisions in force on the organization's current findings.
func (s *Service) refresh(ctx context.Context, tx appliance.Tx, orgID int64) error {
	rules, err := tx.TriageRules(ctx, orgID)
	if err != nil {
		return fmt.Errorf("read triage rules: %w", err)
	}
	if len(rules) == 0 {
		return tx.ReplaceAppliedTriage(ctx, orgID, nil)
	}
	findings, err := tx.TriageFindings(ctx, orgID)
	if err != nil {
		return fmt.Errorf("read findings to triage: %w", err)
	}
	if err := tx.ReplaceAppliedTriage(ctx, orgID, Apply(rules, findings, s.Now())); err != nil {
		return fmt.Errorf("record triage decisions: %w", err)
	}
	return nil
}

// Refresh re-applies the rules of every organization that has some to its current findings
// (after inventories, re-matching and product changes), one transaction per organization.
func (s *Service) Refresh(ctx context.Context) error {
	orgs, err := s.store.TriageOrganizations(ctx)
	if err != nil {
		return fmt.Errorf("list organizations with triage rules: %w", err)
	}
	for _, id := range orgs {
		if err := s.store.InTx(ctx, func(tx appliance.Tx) error { return s.refresh(ctx, tx, id) }); err != nil {
			return fmt.Errorf("apply triage rules of organization %d: %w", id, err)
		}
	}
	return nil
}

// Sweep lets lapsed decisions go: the organizations holding a suppression whose expiry has
// come get their decisions recomputed, so the findings count again. It returns how many
// organizations changed.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	orgs, err := s.store.TriageExpiredBy(ctx, s.Now())
	if err != nil {
		return 0, err
	}
	for _, id := range orgs {
		if err := s.store.InTx(ctx, func(tx appliance.Tx) error { return s.refresh(ctx, tx, id) }); err != nil {
			return 0, fmt.Errorf("let lapsed triage decisions go in organization %d: %w", id, err)
		}
	}
	return len(orgs), nil
}
