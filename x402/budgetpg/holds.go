package budgetpg

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentapis/sdk/x402/ledger"
)

// reserveSQL is the reservation: one statement, one transaction.
const reserveSQL = "SELECT x402_budget_reserve($1, $2, $3, $4::numeric, $5, $6, $7, $8, $9, $10)"

// The answers of x402_budget_reserve.
const (
	reserved     = 0
	refused      = 1
	sessionSwept = 2
	duplicate    = 3
)

// errSessionLost reports a reservation whose session was swept twice in a row.
var errSessionLost = errors.New("budgetpg: the store's session was found dead; reserve again")

// Reserve checks every limit and records the hold, in one statement in the database; see
// ledger.Store. A refusal is computed again under the budget's lock, after the sessions
// found dead gave back what they had reserved. A reservation whose session was swept while
// it waited (its connection cut) is made again under a new session.
func (s *Store) Reserve(ctx context.Context, id ledger.HoldID, r ledger.Reservation) error {
	if id.IsZero() {
		return &ledger.InputError{Field: "hold id", Reason: "must not be zero"}
	}
	if r.Amount == nil || r.Amount.Sign() < 0 {
		return &ledger.InputError{Field: "amount", Reason: "must be a non-negative number of atomic units"}
	}
	if err := s.ready(); err != nil {
		return err
	}
	for range 2 {
		session := s.live.session()
		args := []any{s.budget, session, id[:], r.Amount.String(), r.PayTo, r.Rail, r.Resource, r.Payer, r.Asset, s.now()}
		var out outcome
		err := s.do(ctx, func(ctx context.Context, conn *pgxpool.Conn) (err error) {
			if err := conn.QueryRow(ctx, reserveSQL, args...).Scan(&out.code); err != nil || out.code != refused {
				return err
			}
			out, err = s.refusal(ctx, conn, r, args)
			return err
		})
		switch {
		case err != nil:
			return s.fail("reserve", err)
		case out.code == reserved:
			return nil
		case out.code == refused:
			return out.refusal
		case out.code == duplicate:
			return ledger.ErrDuplicateHold
		case out.code != sessionSwept:
			return s.fail("reserve", fmt.Errorf("the database answered %d", out.code))
		}
		if err := s.live.renew(ctx, session); err != nil {
			return s.fail("reserve", err)
		}
	}
	return errSessionLost
}

// outcome is the answer of a reservation: x402_budget_reserve's code and, when a limit
// refused it, the *ledger.Refusal.
type outcome struct {
	code    int16
	refusal error
}

// refusal handles a reservation the database refused: in one transaction, it sweeps the
// dead sessions, reserves again, and when the reservation is still refused, computes the
// refusal under the budget's lock with the limits the budget records. It returns the second
// reservation's outcome. args are the reservation's arguments.
func (s *Store) refusal(ctx context.Context, conn *pgxpool.Conn, r ledger.Reservation, args []any) (outcome, error) {
	var out outcome
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT x402_budget_sweep($1, $2)", s.budget, lockClass); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, reserveSQL, args...).Scan(&out.code); err != nil || out.code != refused {
			return err
		}
		// The walks follow an index in its order and stop early; statistics that lag behind
		// a growing table must not turn one into a sort of every hold it could reach.
		if _, err := tx.Exec(ctx, "SET LOCAL enable_sort = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = off"); err != nil {
			return err
		}
		u, err := loadUsage(ctx, tx, s.budget, r.PayTo)
		if err != nil {
			return err
		}
		var c ledger.Checker
		out.refusal = c.Check(&u.limits, r.Amount, r.PayTo, u)
		switch {
		case u.err != nil:
			return u.err
		case out.refusal == nil:
			return errors.New("the database refused a reservation that fits the limits")
		}
		return nil
	})
	return out, err
}

// Sign records the signature of a reserved hold; see ledger.Store.
func (s *Store) Sign(ctx context.Context, id ledger.HoldID, sg ledger.Signature) error {
	if sg.ID == "" {
		return &ledger.InputError{Field: "signature id", Reason: "must not be empty"}
	}
	var expires, deadline *int64
	if !sg.Expires.IsZero() {
		e, err := ledger.Nanos("expiry", sg.Expires)
		if err != nil {
			return err
		}
		d := ledger.AddNanos(e, ledger.ExpiryMargin)
		expires, deadline = &e, &d
	}
	if err := s.ready(); err != nil {
		return err
	}
	var code int16
	err := s.do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, "SELECT x402_budget_sign($1, $2, $3, $4, $5, $6, $7)",
			s.budget, id[:], sg.ID, expires, deadline, sg.Ref, s.now()).Scan(&code)
	})
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe) && pe.Code == "23505": // another Sign took the id meanwhile
		return ledger.ErrDuplicateID
	case err != nil:
		return s.fail("sign", err)
	case code == 1:
		return ledger.ErrNotReserved
	case code == 2:
		return ledger.ErrUnknownHold
	case code == 3:
		return ledger.ErrDuplicateID
	}
	return nil
}

// Mark moves a hold; see ledger.Store.
func (s *Store) Mark(ctx context.Context, id ledger.HoldID, to ledger.State) (ledger.State, error) {
	switch to {
	case ledger.Refused, ledger.InDoubt, ledger.Committed, ledger.Released:
	default:
		return 0, &ledger.InputError{Field: "state", Reason: "a hold can be marked refused, in doubt, committed or released only"}
	}
	if err := s.ready(); err != nil {
		return 0, err
	}
	var state, code *int16
	err := s.do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, "SELECT o_state, o_code FROM x402_budget_mark($1, $2, $3, $4)",
			s.budget, id[:], int16(to), s.now()).Scan(&state, &code)
	})
	switch {
	case err != nil:
		return 0, s.fail("mark "+to.String(), err)
	case *code == 2:
		return 0, ledger.ErrUnknownHold
	case *code == 1:
		return ledger.State(*state), ledger.ErrSigned
	}
	return ledger.State(*state), nil
}

// Discard releases a hold whose payment never left; see ledger.Store.
func (s *Store) Discard(ctx context.Context, id ledger.HoldID) (ledger.State, error) {
	return s.holdState(ctx, "discard", "SELECT x402_budget_discard($1, $2, $3)", id)
}

// Resolve ends an outstanding payment by its Signature.ID; see ledger.Store.
func (s *Store) Resolve(ctx context.Context, paymentID string, settled bool) error {
	if err := s.ready(); err != nil {
		return err
	}
	var code int16
	err := s.do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, "SELECT x402_budget_resolve($1, $2, $3, $4)", s.budget, paymentID, settled, s.now()).Scan(&code)
	})
	if err != nil {
		return s.fail("resolve", err)
	}
	switch code {
	case 1:
		return ledger.ErrUnknownID
	case 2:
		return ledger.ErrNotExpired
	}
	return nil
}

// Totals returns the sums; see ledger.Store.
func (s *Store) Totals(ctx context.Context) (ledger.Totals, error) {
	if err := s.ready(); err != nil {
		return ledger.Totals{}, err
	}
	var spent, held string
	err := s.do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, "SELECT o_spent, o_held FROM x402_budget_totals($1, $2)", s.budget, s.now()).Scan(&spent, &held)
	})
	if err != nil {
		return ledger.Totals{}, s.fail("totals", err)
	}
	tot := ledger.Totals{Spent: new(big.Int), Held: new(big.Int)}
	if !setInt(tot.Spent, spent) || !setInt(tot.Held, held) {
		return ledger.Totals{}, s.fail("totals", errSums)
	}
	return tot, nil
}

// Outstanding lists the holds neither committed nor released; see ledger.Store.
func (s *Store) Outstanding(ctx context.Context) ([]ledger.Outstanding, error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	var out []ledger.Outstanding
	err := s.do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, `SELECT hold, amount::text, pay_to, rail, resource, payer, asset, reserved_at,
			coalesce(signing_id, ''), coalesce(expires, 0), ref, state FROM x402_budget_outstanding($1, $2) ORDER BY seq`, s.budget, s.now())
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, scanOutstanding)
		return err
	})
	if err != nil {
		return nil, s.fail("outstanding", err)
	}
	slices.SortStableFunc(out, ledger.CompareOutstanding)
	return append([]ledger.Outstanding{}, out...), nil
}

// scanOutstanding reads a hold of Outstanding's query.
func scanOutstanding(row pgx.CollectableRow) (ledger.Outstanding, error) {
	var o ledger.Outstanding
	var hold []byte
	var amount string
	var reserved, expires int64
	var state int16
	if err := row.Scan(&hold, &amount, &o.PayTo, &o.Rail, &o.Resource, &o.Payer, &o.Asset, &reserved, &o.ID, &expires,
		&o.Ref, &state); err != nil {
		return o, err
	}
	o.Amount = new(big.Int)
	if !setInt(o.Amount, amount) || len(hold) != len(o.Hold) {
		return o, errors.New("a hold is unreadable")
	}
	copy(o.Hold[:], hold)
	o.Reserved, o.State = ledger.Time(reserved), ledger.State(state)
	if expires != 0 { // 0 is no expiry: Sign refuses a time not after 1970
		o.Expires = ledger.Time(expires)
	}
	return o, nil
}

// HoldState returns where a hold stands; see ledger.Store.
func (s *Store) HoldState(ctx context.Context, id ledger.HoldID) (ledger.State, error) {
	return s.holdState(ctx, "hold state", "SELECT x402_budget_hold_state($1, $2, $3)", id)
}

// holdState runs query, a call of a function of the budget, the hold id and the time that
// returns the hold's state afterwards (negative for a hold the budget never recorded).
func (s *Store) holdState(ctx context.Context, op, query string, id ledger.HoldID) (ledger.State, error) {
	if err := s.ready(); err != nil {
		return 0, err
	}
	var state int16
	err := s.do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		return conn.QueryRow(ctx, query, s.budget, id[:], s.now()).Scan(&state)
	})
	if err != nil {
		return 0, s.fail(op, err)
	}
	if state < 0 {
		return 0, ledger.ErrUnknownHold
	}
	return ledger.State(state), nil
}
