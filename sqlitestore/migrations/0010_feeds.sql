-- Sync state per source (nvd, kev, epss): last success, record count, last error and the
-- resume point (NVD: end of the last completed lastModified window).
CREATE TABLE feed_state (
    source       TEXT PRIMARY KEY,
    last_success TEXT,
    last_attempt TEXT,
    records      INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT NOT NULL DEFAULT '',
    cursor       TEXT NOT NULL DEFAULT ''
);

-- FIRST EPSS: the latest score and percentile per CVE, with the day they were computed.
CREATE TABLE epss (
    cve_id     TEXT PRIMARY KEY,
    score      REAL NOT NULL,
    percentile REAL NOT NULL,
    score_date TEXT NOT NULL
) WITHOUT ROWID;
