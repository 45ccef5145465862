package budgetfile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/agentapis/sdk/x402/ledger"
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
	spent                                 map[string]*big.Int // by payee, pending commits included
	spentDirty                            map[string]bool     // the payees whose spent changed since the last Commit
	failed                                error               // the failure of a Commit, after which the accounts are not the file's
}

// change is one change told to the journal: a hold as it then stood.
type change struct {
	o      ledger.Outstanding // Amount is not kept
	amount string             // the amount of a new hold, in decimal
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
		{&j.insert, `INSERT INTO holds (hold, amount, pay_to, rail, resource, payer, asset, reserved_at, expires, ref, state)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, '', 0)`},
		{&j.sign, `UPDATE holds SET signing_id = ?, expires = ?, ref = ?, state = 1 WHERE hold = ?`},
		{&j.move, `UPDATE holds SET state = ? WHERE hold = ?`},
		{&j.spend, `INSERT INTO spent (payee, amount) VALUES (?, ?) ON CONFLICT (payee) DO UPDATE SET amount = excluded.amount`},
		{&j.state, `SELECT state FROM holds WHERE hold = ?`},
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
func (j *journal) Record(o ledger.Outstanding) {
	c := change{o: o}
	switch o.State {
	case ledger.Reserved:
		c.amount = o.Amount.String()
	case ledger.Committed:
		sum := j.spent[o.PayTo]
		if sum == nil {
			sum = new(big.Int)
			j.spent[o.PayTo] = sum
		}
		sum.Add(sum, o.Amount)
		j.spentDirty[o.PayTo] = true
	}
	c.o.Amount = nil
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
			j.failed = err
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
		j.failed = fmt.Errorf("budgetfile: %w", err)
		return j.failed
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
		o := &c.o
		switch o.State {
		case ledger.Reserved:
			_, err = j.insert.ExecContext(ctx, o.Hold[:], c.amount, o.PayTo, o.Rail, o.Resource, o.Payer, o.Asset, o.Reserved.UnixNano())
		case ledger.Signed:
			_, err = j.sign.ExecContext(ctx, o.ID, nanos(o.Expires), o.Ref, o.Hold[:])
		default:
			_, err = j.move.ExecContext(ctx, int(o.State), o.Hold[:])
		}
		if err != nil {
			return err
		}
	}
	for payee := range j.spentDirty {
		if _, err := j.spend.ExecContext(ctx, payee, j.spent[payee].String()); err != nil {
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
		if j.pending[i].o.Hold == id {
			return j.pending[i].o.State, nil
		}
	}
	var st int
	err := j.state.QueryRowContext(context.Background(), id[:]).Scan(&st)
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
