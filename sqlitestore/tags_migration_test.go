package sqlitestore

import (
	"context"
	"testing"
)

// TestTagsMigrationKeepsTriage: a database written before 0018 keeps its triage rules, their
// history and the decisions in force when triage_rules is rebuilt for the tag scope, and the
// keys still cascade afterwards.
func TestTagsMigrationKeepsTriage(t *testing.T) {
	ctx := context.Background()
	path, db := databaseBefore(t, "0018")
	const at = `'2026-01-01T00:00:00Z'`
	for _, q := range []string{
		`INSERT INTO organizations (id, name, created_at) VALUES (1, 'acme', ` + at + `)`,
		`INSERT INTO assets (id, organization_id, hostname, created_at, last_seen_at) VALUES (1, 1, 'h1', ` + at + `, ` + at + `)`,
		`INSERT INTO products (id, organization_id, vendor, name, version, resolution, created_at, updated_at) VALUES
			(1, 1, 'v', 'lib', '1', 'exact', ` + at + `, ` + at + `)`,
		`INSERT INTO triage_rules (id, organization_id, cve_id, scope, asset_id, state, created_at, updated_at) VALUES
			(5, 1, 'CVE-2024-1', 'host', 1, 'fixed', ` + at + `, ` + at + `)`,
		`INSERT INTO triage_rule_events (rule_id, at, action, rule) VALUES (5, ` + at + `, 'created', '{}')`,
		`INSERT INTO triage_findings (product_id, cve_id, rule_id, state, suppresses) VALUES (1, 'CVE-2024-1', 5, 'fixed', 1)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, path, Options{Readers: 1}, nil) // runs 0018
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rules, err := st.TriageRules(ctx, 1)
	if err != nil || len(rules) != 1 || rules[0].ID != 5 || rules[0].Scope != "host" || rules[0].AssetID != 1 || rules[0].Tag != "" {
		t.Fatalf("rules after 0018 = %+v, %v", rules, err)
	}
	if _, err := st.writer.ExecContext(ctx, `INSERT INTO triage_rules (organization_id, scope, tag, state, created_at, updated_at)
		VALUES (1, 'tag', 'prod', 'fixed', `+at+`, `+at+`)`); err != nil {
		t.Fatalf("a tag rule after 0018: %v", err)
	}
	// Deleting the host still cascades to its rule, the rule's history and its decisions.
	if _, err := st.writer.ExecContext(ctx, `DELETE FROM assets WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := st.writer.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM triage_rules WHERE id = 5) +
		(SELECT count(*) FROM triage_rule_events) + (SELECT count(*) FROM triage_findings)`).Scan(&n); err != nil || n != 0 {
		t.Errorf("rows left after deleting the host: %d, %v", n, err)
	}
}
