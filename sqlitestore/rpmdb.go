package sqlitestore

import (
	"database/sql"
	"net/url"
)

// EachRPMHeader calls fn with the header blob of every package in an rpm sqlite database
// (RHEL 9, Fedora: rpmdb.sqlite), opened read-only. The agent's rpm collector reads a host's
// packages through it, so all SQL stays in this package.
func EachRPMHeader(file string, fn func(blob []byte) error) error {
	dsn := "file:" + (&url.URL{Path: file}).EscapedPath() + "?mode=ro&_pragma=query_only(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.Query("SELECT blob FROM Packages")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var blob []byte
		if err := rows.Scan(&blob); err != nil {
			return err
		}
		if err := fn(blob); err != nil {
			return err
		}
	}
	return rows.Err()
}
