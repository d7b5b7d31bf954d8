package sqlitestore

import "testing"

func TestStatementOpNamesTheOperation(t *testing.T) {
	for query, want := range map[string]string{
		"INSERT INTO organizations (name, created_at) VALUES (?, ?)":   "insert organizations",
		"\n\t\tUPDATE users SET last_login_at = ? WHERE id = ?":        "update users",
		"DELETE FROM kb_mappings WHERE id = ?":                         "delete kb_mappings",
		"INSERT OR IGNORE INTO settings(key, value) VALUES (?, ?)":     "insert settings",
		"WITH k(v) AS (SELECT 1) UPDATE products SET name = ? WHERE 1": "update products",
		"PRAGMA optimize": "statement",
	} {
		if got := statementOp(query); got != want {
			t.Errorf("statementOp(%q) = %q, want %q", query, got, want)
		}
	}
}
