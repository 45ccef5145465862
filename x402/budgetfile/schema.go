package budgetfile

import (
	"context"
	"database/sql"
	"fmt"
)

// applicationID marks a SQLite file as a budget file (PRAGMA application_id): "x402".
const applicationID = 0x78343032

// migration is one numbered step of the schema: it runs inside the transaction that takes the
// file from one version to the next.
type migration func(ctx context.Context, conn *sql.Conn) error

// script returns the migration that runs the statements q.
func script(q string) migration {
	return func(ctx context.Context, conn *sql.Conn) error {
		_, err := conn.ExecContext(ctx, q)
		return err
	}
}

// migrations are the schema's numbered versions: migrations[i] takes a file from version i
// to version i+1 (PRAGMA user_version). A release that changes the schema appends a step and
// never edits one, so that a file written by any earlier release is upgraded in order.
var migrations = []migration{
	// Version 1. A hold's state is a ledger.State: 0 reserved, 1 signed, 2 refused, 3 in
	// doubt, 4 committed, 5 released; the outstanding ones are below 4. Amounts are atomic
	// units in decimal; times are Unix nanoseconds.
	script(`CREATE TABLE holds (
		id          INTEGER PRIMARY KEY, -- the HoldID
		amount      TEXT    NOT NULL,
		pay_to      TEXT    NOT NULL,    -- as reserved
		rail        TEXT    NOT NULL,
		resource    TEXT    NOT NULL,
		payer       TEXT    NOT NULL,    -- who pays, and with what: what a reconciler looks up
		asset       TEXT    NOT NULL,
		reserved_at INTEGER NOT NULL,    -- never decreases with id
		signing_id  TEXT,                -- NULL until signed
		expires     INTEGER NOT NULL,    -- 0 when unknown or unsigned
		ref         TEXT    NOT NULL,    -- the rail's lookup data, '' until signed
		state       INTEGER NOT NULL
	) STRICT;
	CREATE INDEX holds_outstanding ON holds (id) WHERE state < 4;
	CREATE TABLE spent (
		payee  TEXT PRIMARY KEY,         -- in lower case
		amount TEXT NOT NULL             -- the sum of its committed holds
	) STRICT, WITHOUT ROWID;`),
	// Version 2: caller-made hold ids, payees compared exactly, the limits recorded.
	holdIDs,
}

// migrate brings the file open on conn to the latest version of steps (migrations),
// creating the schema in a new file. A file of another program, or of a later version than
// steps knows, is a *FormatError and is left as it is.
func migrate(ctx context.Context, conn *sql.Conn, path string, steps []migration) error {
	var app, version, objects int
	if err := conn.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&app); err != nil {
		return err
	}
	if err := conn.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return err
	}
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&objects); err != nil {
		return err
	}
	switch {
	case app == 0 && version == 0 && objects == 0: // a new file
	case app != applicationID:
		return &FormatError{Path: path, Reason: "it is a SQLite database of another program"}
	case version > len(steps):
		return &FormatError{Path: path, Reason: fmt.Sprintf(
			"its schema version %d is newer than this release knows (%d): it was written by a later release", version, len(steps))}
	}
	for v := version; v < len(steps); v++ {
		if err := step(ctx, conn, v, steps[v]); err != nil {
			return fmt.Errorf("budgetfile: upgrading %s to schema version %d: %w", path, v+1, err)
		}
	}
	return nil
}

// step applies m, the step from version v, and sets the version to v+1, in one
// transaction.
func step(ctx context.Context, conn *sql.Conn, v int, m migration) (err error) {
	if _, err := conn.ExecContext(ctx, `BEGIN`); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(ctx, `ROLLBACK`)
		}
	}()
	if err := m(ctx, conn); err != nil {
		return err
	}
	for _, q := range []string{
		fmt.Sprintf(`PRAGMA application_id = %d`, applicationID),
		fmt.Sprintf(`PRAGMA user_version = %d`, v+1),
		`COMMIT`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}
