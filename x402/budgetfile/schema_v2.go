package budgetfile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
)

// holdIDsSQL is the schema of version 2. The holds table is made again: seq, the old id, is
// the order of reservations (the window's ties, the listing's order of unsigned holds); hold
// is the caller's HoldID, 16 bytes, which an earlier release's hold gets from its id (8 zero
// bytes, then the id in big-endian); reserved_at is the store's clock's reading, in any order
// (the index holds_reserved finds the holds a window may count); an EVM address of an
// earlier release (0x and 40 hexadecimal digits, in any case) is written in lower case,
// the form the caller now gives, and any other payee is kept as it is. The table spent is
// kept by payee exactly. The limits are recorded, in their canonical form (ledger.Limits'
// JSON), by the first Configure.
const holdIDsSQL = `CREATE TABLE holds_v2 (
		seq         INTEGER PRIMARY KEY, -- the order of reservations
		hold        BLOB    NOT NULL UNIQUE CHECK (length(hold) = 16), -- the HoldID
		amount      TEXT    NOT NULL,
		pay_to      TEXT    NOT NULL,    -- exactly as reserved
		rail        TEXT    NOT NULL,
		resource    TEXT    NOT NULL,
		payer       TEXT    NOT NULL,    -- who pays, and with what: what a reconciler looks up
		asset       TEXT    NOT NULL,
		reserved_at INTEGER NOT NULL,    -- on the store's clock, in any order
		signing_id  TEXT,                -- the Signature.ID, NULL until signed
		expires     INTEGER NOT NULL,    -- 0 when unknown or unsigned
		ref         TEXT    NOT NULL,    -- the rail's lookup data, '' until signed
		state       INTEGER NOT NULL
	) STRICT;
	INSERT INTO holds_v2 (seq, hold, amount, pay_to, rail, resource, payer, asset, reserved_at, signing_id, expires, ref, state)
	SELECT id, unhex(printf('%032X', id)), amount,
		CASE WHEN length(pay_to) = 42 AND lower(substr(pay_to, 1, 2)) = '0x'
			AND NOT substr(pay_to, 3) GLOB '*[^0-9A-Fa-f]*' THEN lower(pay_to) ELSE pay_to END,
		rail, resource, payer, asset, reserved_at, signing_id, expires, ref, state
	FROM holds ORDER BY id;
	DROP TABLE holds;
	ALTER TABLE holds_v2 RENAME TO holds;
	CREATE INDEX holds_outstanding ON holds (seq) WHERE state < 4;
	CREATE INDEX holds_reserved ON holds (reserved_at);
	CREATE TABLE budget (
		id     INTEGER PRIMARY KEY CHECK (id = 1),
		limits TEXT NOT NULL             -- ledger.Limits' canonical form
	) STRICT;`

// holdIDs takes a file to version 2 (holdIDsSQL), and adds up again what each payee was
// paid, by payee exactly: version 1 kept it by payee in lower case, which merged Solana
// addresses that differ only in letter case.
func holdIDs(ctx context.Context, conn *sql.Conn) error {
	if _, err := conn.ExecContext(ctx, holdIDsSQL); err != nil {
		return err
	}
	spent := map[string]*big.Int{}
	rows, err := conn.QueryContext(ctx, `SELECT pay_to, amount FROM holds WHERE state = 4`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var payee, amount string
		if err := rows.Scan(&payee, &amount); err != nil {
			_ = rows.Close()
			return err
		}
		a, ok := new(big.Int).SetString(amount, 10)
		if !ok {
			_ = rows.Close()
			return fmt.Errorf("a hold to %s has an unreadable amount", payee)
		}
		if spent[payee] == nil {
			spent[payee] = new(big.Int)
		}
		spent[payee].Add(spent[payee], a)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, `DELETE FROM spent`); err != nil {
		return err
	}
	for payee, sum := range spent {
		if _, err := conn.ExecContext(ctx, `INSERT INTO spent (payee, amount) VALUES (?, ?)`, payee, sum.String()); err != nil {
			return err
		}
	}
	return nil
}
