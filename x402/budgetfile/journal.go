package budgetfile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/agentapis/sdk/internal/ledger"
)

// journal writes the holds of a Store's accounts (a ledger.Memory) to its file: it is the
// Memory's ledger.Journal, called under the Memory's lock only.
type journal struct {
	conn *sql.Conn
	// The statements of Commit and Ended, prepared on conn, and all of them for close.
	stmts                                 []*sql.Stmt
	begin, commit, rollback, full, normal *sql.Stmt
	insert, sign, move, spend, state      *sql.Stmt
	pending                               []change            // told since the last Commit
	spent                                 map[string]*big.Int // by payee in lower case, pending commits included
	spentDirty                            map[string]bool     // the payees whose spent changed since the last Commit
}

// change is one change told to the journal: a hold as it then stood.
type change struct {
	e      ledger.Entry // Amount is not kept
	amount string       // the amount of a new hold, in decimal
}

// newJournal prepares the statements of a journal on conn.
func newJournal(ctx context.Context, conn *sql.Conn) (*journal, error) {
	j := &journal{conn: conn, spent: map[string]*big.Int{}, spentDirty: map[string]bool{}}
	for _, p := range []struct {
		stmt **sql.Stmt
		q    string
	}{
		{&j.begin, `BEGIN`},
		{&j.commit, `COMMIT`},
		{&j.rollback, `ROLLBACK`},
		{&j.full, `PRAGMA synchronous = FULL`},
		{&j.normal, `PRAGMA synchronous = NORMAL`},
		{&j.insert, `INSERT INTO holds (id, amount, pay_to, rail, resource, payer, asset, reserved_at, expires, ref, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, '', 0)`},
		{&j.sign, `UPDATE holds SET signing_id = ?, expires = ?, ref = ?, state = 1 WHERE id = ?`},
		{&j.move, `UPDATE holds SET state = ? WHERE id = ?`},
		{&j.spend, `INSERT INTO spent (payee, amount) VALUES (?, ?) ON CONFLICT (payee) DO UPDATE SET amount = excluded.amount`},
		{&j.state, `SELECT state FROM holds WHERE id = ?`},
	} {
		stmt, err := conn.PrepareContext(ctx, p.q)
		if err != nil {
			j.close()
			return nil, err
		}
		*p.stmt = stmt
		j.stmts = append(j.stmts, stmt)
	}
	return j, nil
}

// close closes the journal's statements.
func (j *journal) close() {
	for _, s := range j.stmts {
		_ = s.Close()
	}
}

// Record keeps a change for the next Commit; a commit adds to its payee's spent.
func (j *journal) Record(e ledger.Entry) {
	c := change{e: e}
	switch e.State {
	case ledger.Reserved:
		c.amount = e.Amount.String()
	case ledger.Committed:
		key := strings.ToLower(e.PayTo)
		sum := j.spent[key]
		if sum == nil {
			sum = new(big.Int)
			j.spent[key] = sum
		}
		sum.Add(sum, e.Amount)
		j.spentDirty[key] = true
	}
	c.e.Amount = nil
	j.pending = append(j.pending, c)
}

// Commit writes the pending changes in one transaction; with sync, the transaction is
// committed with synchronous=FULL, so that the WAL is on the disk when Commit returns.
// Without, a commit survives the end of the process (it is in the file), not a power loss.
func (j *journal) Commit(sync bool) error {
	if len(j.pending) == 0 {
		return nil
	}
	ctx := context.Background()
	if sync {
		if _, err := j.full.ExecContext(ctx); err != nil {
			return err
		}
	}
	err := j.write(ctx)
	if sync {
		if _, serr := j.normal.ExecContext(ctx); err == nil {
			err = serr
		}
	}
	if err != nil {
		return fmt.Errorf("budgetfile: %w", err)
	}
	j.pending = j.pending[:0]
	clear(j.spentDirty)
	return nil
}

// write writes the pending changes in one transaction.
func (j *journal) write(ctx context.Context) (err error) {
	if _, err := j.begin.ExecContext(ctx); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_, _ = j.rollback.ExecContext(ctx)
		}
	}()
	for _, c := range j.pending {
		e := &c.e
		switch e.State {
		case ledger.Reserved:
			_, err = j.insert.ExecContext(ctx, int64(e.Hold), c.amount, e.PayTo, e.Rail, e.Resource, e.Payer, e.Asset, e.Reserved.UnixNano())
		case ledger.Signed:
			_, err = j.sign.ExecContext(ctx, e.ID, nanos(e.Expires), e.Ref, int64(e.Hold))
		default:
			_, err = j.move.ExecContext(ctx, int(e.State), int64(e.Hold))
		}
		if err != nil {
			return err
		}
	}
	for key := range j.spentDirty {
		if _, err := j.spend.ExecContext(ctx, key, j.spent[key].String()); err != nil {
			return err
		}
	}
	_, err = j.commit.ExecContext(ctx)
	return err
}

// Ended returns the state of a hold that is no longer outstanding: the latest pending
// change to it, else what the file says.
func (j *journal) Ended(id ledger.HoldID) (ledger.State, error) {
	for i := len(j.pending) - 1; i >= 0; i-- {
		if j.pending[i].e.Hold == id {
			return j.pending[i].e.State, nil
		}
	}
	var st int
	err := j.state.QueryRowContext(context.Background(), int64(id)).Scan(&st)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, ledger.ErrUnknownHold
	case err != nil:
		return 0, fmt.Errorf("budgetfile: %w", err)
	}
	return ledger.State(st), nil
}

// nanos returns t as Unix nanoseconds, 0 for the zero time.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// holdColumns are the columns scanHold reads, in its order.
const holdColumns = `id, amount, pay_to, rail, resource, payer, asset, reserved_at, coalesce(signing_id, ''), expires, ref, state`

// scanHold reads a row of holdColumns.
func scanHold(rows *sql.Rows) (ledger.Entry, error) {
	var (
		e                 ledger.Entry
		id, at, expires   int64
		amount            string
		state             int
		payTo, rail, what string
	)
	if err := rows.Scan(&id, &amount, &payTo, &rail, &what, &e.Payer, &e.Asset, &at, &e.ID, &expires, &e.Ref, &state); err != nil {
		return e, err
	}
	a, ok := new(big.Int).SetString(amount, 10)
	if !ok || a.Sign() < 0 {
		return e, fmt.Errorf("hold %d has an unreadable amount", id)
	}
	e.Hold, e.Amount, e.PayTo, e.Rail, e.Resource, e.Reserved, e.State = ledger.HoldID(id), a, payTo, rail, what, ledger.Time(at), ledger.State(state)
	if expires != 0 {
		e.Expires = ledger.Time(expires)
	}
	return e, nil
}

// snapshot reads what ledger.Restore needs under limits: the outstanding holds, the
// committed ones that may still count in a window, and what each payee was paid. It also
// loads the journal's sums.
func (j *journal) snapshot(ctx context.Context, limits ledger.Limits) (ledger.Snapshot, error) {
	var s ledger.Snapshot
	var lastAt int64
	err := j.conn.QueryRowContext(ctx, `SELECT id, reserved_at FROM holds ORDER BY id DESC LIMIT 1`).Scan(&s.Last, &lastAt)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return s, err
	default:
		s.LastAt = ledger.Time(lastAt)
	}
	var longest time.Duration
	for _, w := range limits.Windows {
		longest = max(longest, w.Length)
	}
	// The holds that may count in a window, newest first: reservation times never decrease
	// with the id, so the walk stops at the first one outside the longest window.
	var recent []ledger.Entry
	first := s.Last + 1 // the oldest hold of recent
	if longest > 0 && s.Last > 0 {
		rows, err := j.conn.QueryContext(ctx, `SELECT `+holdColumns+` FROM holds ORDER BY id DESC`)
		if err != nil {
			return s, err
		}
		for rows.Next() {
			e, err := scanHold(rows)
			if err != nil {
				_ = rows.Close()
				return s, err
			}
			if ledger.AddNanos(e.Reserved.UnixNano(), longest) <= lastAt {
				break
			}
			first = e.Hold
			if e.State != ledger.Released {
				recent = append(recent, e)
			}
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return s, err
		}
		slices.Reverse(recent)
	}
	// The older outstanding holds, through the index of outstanding holds.
	rows, err := j.conn.QueryContext(ctx, `SELECT `+holdColumns+` FROM holds WHERE state < 4 AND id < ? ORDER BY id`, int64(first))
	if err != nil {
		return s, err
	}
	for rows.Next() {
		e, err := scanHold(rows)
		if err != nil {
			_ = rows.Close()
			return s, err
		}
		s.Holds = append(s.Holds, e)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return s, err
	}
	s.Holds = append(s.Holds, recent...)

	rows, err = j.conn.QueryContext(ctx, `SELECT payee, amount FROM spent`)
	if err != nil {
		return s, err
	}
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
