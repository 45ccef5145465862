package budgetfile

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/agentapis/sdk/x402/ledger"
)

// holdColumns are the columns scanHold reads, in its order.
const holdColumns = `seq, hold, amount, pay_to, rail, resource, payer, asset, reserved_at, coalesce(signing_id, ''), expires, ref, state`

// row is a hold read back, with its place in the order of reservations.
type row struct {
	seq int64
	o   ledger.Outstanding
}

// scanHold reads a row of holdColumns.
func scanHold(rows *sql.Rows) (row, error) {
	var (
		r                 row
		hold              []byte
		at, expires       int64
		amount            string
		state             int
		payTo, rail, what string
	)
	o := &r.o
	if err := rows.Scan(&r.seq, &hold, &amount, &payTo, &rail, &what, &o.Payer, &o.Asset, &at, &o.ID, &expires, &o.Ref, &state); err != nil {
		return r, err
	}
	a, ok := new(big.Int).SetString(amount, 10)
	if !ok || a.Sign() < 0 || len(hold) != len(o.Hold) {
		return r, fmt.Errorf("hold %d is unreadable", r.seq)
	}
	copy(o.Hold[:], hold)
	o.Amount, o.PayTo, o.Rail, o.Resource, o.Reserved, o.State = a, payTo, rail, what, ledger.Time(at), ledger.State(state)
	if expires != 0 {
		o.Expires = ledger.Time(expires)
	}
	return r, nil
}

// readHolds appends to out the holds query (of holdColumns) returns.
func readHolds(ctx context.Context, conn *sql.Conn, out []row, query string, args ...any) ([]row, error) {
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return out, err
	}
	for rows.Next() {
		r, err := scanHold(rows)
		if err != nil {
			_ = rows.Close()
			return out, err
		}
		out = append(out, r)
	}
	return out, errors.Join(rows.Err(), rows.Close())
}

// snapshot reads what ledger.Restore needs under limits at reading at of the store's clock:
// the outstanding holds (through the index of outstanding holds), the committed ones a window
// may count (through the index by reservation time), and what each payee was paid. It also
// loads the journal's sums.
func (j *journal) snapshot(ctx context.Context, limits ledger.Limits, at time.Time) (ledger.Snapshot, error) {
	s := ledger.Snapshot{At: at}
	holds, err := readHolds(ctx, j.conn, nil, `SELECT `+holdColumns+` FROM holds WHERE state < 4`)
	if err != nil {
		return s, err
	}
	if since := limits.Since(at); !since.IsZero() {
		holds, err = readHolds(ctx, j.conn, holds, `SELECT `+holdColumns+` FROM holds WHERE reserved_at > ? AND state = 4`, since.UnixNano())
		if err != nil {
			return s, err
		}
	}
	slices.SortFunc(holds, func(a, b row) int { return cmp.Compare(a.seq, b.seq) })
	for _, r := range holds {
		s.Holds = append(s.Holds, r.o)
	}

	rows, err := j.conn.QueryContext(ctx, `SELECT payee, amount FROM spent`)
	if err != nil {
		return s, err
	}
	clear(j.spent)
	for rows.Next() {
		var payee, amount string
		if err := rows.Scan(&payee, &amount); err != nil {
			_ = rows.Close()
			return s, err
		}
		a, ok := new(big.Int).SetString(amount, 10)
		if !ok || a.Sign() < 0 {
			_ = rows.Close()
			return s, fmt.Errorf("what was spent with %s is unreadable", payee)
		}
		j.spent[payee] = a
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return s, err
	}
	s.Spent = make(map[string]*big.Int, len(j.spent))
	for k, v := range j.spent {
		s.Spent[k] = new(big.Int).Set(v)
	}
	return s, nil
}
