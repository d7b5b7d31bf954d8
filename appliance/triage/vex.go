package triage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	openvex "github.com/openvex/go-vex/pkg/vex"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// ExportScope selects the findings a VEX document speaks about: one host, one product, or
// (both 0) the whole organization.
type ExportScope struct {
	AssetID, ProductID int64
}

func (sc ExportScope) covers(f appliance.TriageFinding) bool {
	switch {
	case f.ContainerImageID != 0:
		return false // image packages carry no CPE or package URL to name them by
	case sc.ProductID != 0:
		return f.ProductID == sc.ProductID
	case sc.AssetID != 0:
		return slices.Contains(f.AssetIDs, sc.AssetID)
	}
	return true
}

// check refuses a host or product of another organization.
func (s *Service) checkScope(ctx context.Context, orgID int64, sc ExportScope) error {
	var err error
	switch {
	case sc.AssetID != 0 && sc.ProductID != 0:
		return appliance.Invalid("asset_id", "exclusive", "name a host (asset_id) or a product (product_id), not both")
	case sc.AssetID != 0:
		if _, err = s.store.TriageHost(ctx, orgID, sc.AssetID); errors.Is(err, appliance.ErrNotFound) {
			return appliance.NotFound("host %d does not exist", sc.AssetID)
		}
	case sc.ProductID != 0:
		if _, err = s.store.ProductByID(ctx, orgID, sc.ProductID); errors.Is(err, appliance.ErrNotFound) {
			return appliance.NotFound("product %d does not exist", sc.ProductID)
		}
	}
	return err
}

// ExportOpenVEX is the OpenVEX 0.2.0 document of the statements the organization's rules in
// force make about the findings in scope: one statement per rule and CVE. A rule on every
// version of a product names the product without a version; other rules name the versions
// they decide. The organization-wide document also carries product rules no current finding
// meets. The organization is the document's author.
func (s *Service) ExportOpenVEX(ctx context.Context, orgID int64, sc ExportScope) (*openvex.VEX, error) {
	if err := s.checkScope(ctx, orgID, sc); err != nil {
		return nil, err
	}
	org, err := s.store.OrganizationByID(ctx, orgID)
	if err != nil {
		return nil, fmt.Errorf("read organization: %w", err)
	}
	rules, err := s.store.TriageRules(ctx, orgID)
	if err != nil {
		return nil, fmt.Errorf("read triage rules: %w", err)
	}
	findings, err := s.store.TriageFindings(ctx, orgID)
	if err != nil {
		return nil, fmt.Errorf("read findings: %w", err)
	}
	now := s.Now()
	doc := openvex.New()
	doc.ID = fmt.Sprintf("urn:vulnkeeper:vex:%d:%s", orgID, now.Format("20060102T150405Z"))
	doc.Author, doc.AuthorRole, doc.Timestamp, doc.Tooling = org.Name, "", &now, "vulnkeeper"
	b := statementBuilder{rules: rules, index: map[[2]string]int{}}
	for _, f := range findings {
		if st := Decide(rules, f, now); st != nil && sc.covers(f) {
			b.add(st.RuleID, f)
		}
	}
	if sc == (ExportScope{}) {
		b.addUnmet(now)
	}
	doc.Statements = append([]openvex.Statement{}, b.statements...) // [] rather than null when empty
	return &doc, nil
}

// statementBuilder gathers one statement per (rule, CVE).
type statementBuilder struct {
	rules      []appliance.TriageRule
	statements []openvex.Statement
	index      map[[2]string]int
}

func (b *statementBuilder) statement(r appliance.TriageRule, cve string) *openvex.Statement {
	key := [2]string{fmt.Sprint(r.ID), cve}
	i, ok := b.index[key]
	if !ok {
		i = len(b.statements)
		b.index[key] = i
		b.statements = append(b.statements, statementOf(r, cve))
	}
	return &b.statements[i]
}

// add names f's product in the statement of the rule deciding it.
func (b *statementBuilder) add(ruleID int64, f appliance.TriageFinding) {
	i := slices.IndexFunc(b.rules, func(r appliance.TriageRule) bool { return r.ID == ruleID })
	if i < 0 {
		return
	}
	r := b.rules[i]
	c, ok := findingComponent(f.Product)
	if r.Scope == ScopeProduct {
		c, ok = componentOf(r.Product, "")
	}
	if !ok {
		return // neither a CPE nor a package URL names it
	}
	st := b.statement(r, f.CVEID)
	if !slices.ContainsFunc(st.Products, func(p openvex.Product) bool { return p.ID == c.ID }) {
		st.Products = append(st.Products, openvex.Product{Component: c})
	}
}

// addUnmet adds the product rules in force about one CVE that no current finding meets.
func (b *statementBuilder) addUnmet(now time.Time) {
	for _, r := range b.rules {
		inForce := r.ExpiresAt.IsZero() || now.Before(r.ExpiresAt)
		if _, seen := b.index[[2]string{fmt.Sprint(r.ID), r.CVEID}]; seen || !inForce || r.Scope != ScopeProduct || r.CVEID == "" {
			continue
		}
		if c, ok := componentOf(r.Product, ""); ok {
			st := b.statement(r, r.CVEID)
			st.Products = append(st.Products, openvex.Product{Component: c})
		}
	}
}

// ImportResult counts what an imported VEX document did.
type ImportResult struct {
	Created  int // new rules
	Existing int // rules in force already deciding the same
	Skipped  int // statements that are not not_affected with a justification
}

// ImportOpenVEX turns the not_affected statements of an OpenVEX document into rules of the
// actor's organization, with the document's author as theirs, in one transaction (org_admin
// only). The whole document is refused when it does not follow our OpenVEX 0.2.0 schema or
// one statement is invalid.
func (s *Service) ImportOpenVEX(ctx context.Context, actor appliance.User, data []byte) (ImportResult, error) {
	if err := mayWrite(actor, StateNotAffected); err != nil {
		return ImportResult{}, err
	}
	if err := validateOpenVEX(data); err != nil {
		return ImportResult{}, err
	}
	doc, err := openvex.Parse(data)
	if err != nil || !strings.HasPrefix(doc.Context, openvex.Context) {
		return ImportResult{}, appliance.Invalid("document", "format", "the document is not OpenVEX JSON")
	}
	author := strings.TrimSpace(doc.Author)
	if author == "" {
		return ImportResult{}, appliance.Invalid("author", "required", "the document names no author")
	}
	return s.importStatements(ctx, actor, author, "OpenVEX document "+doc.ID, doc.Statements, "statements")
}

// importStatements makes the rules of OpenVEX statements (from an OpenVEX document, or read
// from a CycloneDX one) in one transaction; field names the statements in errors.
func (s *Service) importStatements(ctx context.Context, actor appliance.User, author, source string, statements []openvex.Statement, field string) (ImportResult, error) {
	var res ImportResult
	var rules []appliance.TriageRule
	for i, st := range statements {
		ins, used, err := statementRules(st, author, "imported from "+source)
		if err != nil {
			return ImportResult{}, atItem(fmt.Sprintf("%s[%d]", field, i), err)
		}
		if !used {
			res.Skipped++
		}
		for _, in := range ins {
			r, err := s.rule(actor, in)
			if err != nil {
				return ImportResult{}, atItem(fmt.Sprintf("%s[%d]", field, i), err)
			}
			rules = append(rules, r)
		}
	}
	err := s.store.InTx(ctx, func(tx appliance.Tx) error {
		res.Created, res.Existing = 0, 0
		current, err := tx.TriageRules(ctx, actor.OrganizationID)
		if err != nil {
			return err
		}
		for _, r := range rules {
			if hasSame(current, r, s.Now()) {
				res.Existing++
				continue
			}
			if r, err = s.create(ctx, tx, actor, r); err != nil {
				return err
			}
			current = append(current, r)
			res.Created++
		}
		return s.refresh(ctx, tx, actor.OrganizationID)
	})
	return res, err
}

// atItem names the statement (or vulnerability) a validation error is about.
func atItem(field string, err error) error {
	var ve *appliance.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	if ve.Field != "" {
		field += "." + ve.Field
	}
	return appliance.Invalid(field, ve.Constraint, "%s", ve.Message)
}
