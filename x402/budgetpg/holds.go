package budgetpg

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/agentapis/sdk/internal/ledger"
)

// reserveSQL is the reservation: one statement, one transaction.
const reserveSQL = "SELECT x402_budget_reserve($1, $2, $3::numeric, $4, $5, $6, $7, $8, $9, $10)"

// errSessionLost reports a reservation whose session was swept twice in a row.
var errSessionLost = errors.New("budgetpg: the store's session was found dead; reserve again")

// Reserve checks every limit and records the hold, in one statement in the database; see
// ledger.Store. A refusal is computed again under the budget's lock, after the sessions
// found dead gave back what they had reserved.
func (s *Store) Reserve(ctx context.Context, r ledger.Reservation) (ledger.HoldID, error) {
	if r.Amount == nil || r.Amount.Sign() < 0 {
		return 0, &ledger.InputError{Field: "amount", Reason: "must be a non-negative number of atomic units"}
	}
	now, err := ledger.Nanos("reservation time", r.Now)
	if err != nil {
		return 0, err
	}
	if err := s.ready(); err != nil {
		return 0, err
	}
	key := strings.ToLower(r.PayTo)
	args := []any{s.budget, int64(0), r.Amount.String(), r.PayTo, key, r.Rail, r.Resource, r.Payer, r.Asset, now}
	for range 2 {
		session := s.live.session()
		args[1] = session
		var id int64
		if err := s.pool.QueryRow(ctx, reserveSQL, args...).Scan(&id); err != nil {
			return 0, s.fail("reserve", err)
		}
		if id == 0 {
			id, err = s.refusal(ctx, r, key, args)
		}
		switch {
		case err != nil:
			return 0, err
		case id > 0:
			return ledger.HoldID(id), nil
		}
		if err := s.live.renew(ctx, session); err != nil {
			return 0, s.fail("reserve", err)
		}
	}
	return 0, errSessionLost
}

// refusal handles a reservation the database refused: in one transaction, it sweeps the
// dead sessions, reserves again, and when the reservation is still refused, computes the
// refusal under the budget's lock. It returns the hold's id when the second reservation
// went through, -1 when the session was swept, or the *ledger.Refusal. key is the payee in
// lower case, args the reservation's arguments.
func (s *Store) refusal(ctx context.Context, r ledger.Reservation, key string, args []any) (int64, error) {
	var id int64
	var refusal error
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT x402_budget_sweep($1, $2)", s.budget, lockClass); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, reserveSQL, args...).Scan(&id); err != nil || id != 0 {
			return err
		}
		// The walks follow an index in its order and stop early; statistics that lag behind
		// a growing table must not turn one into a sort of every hold it could reach.
		if _, err := tx.Exec(ctx, "SET LOCAL enable_sort = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = off"); err != nil {
			return err
		}
		u, err := loadUsage(ctx, tx, s.budget, &s.limits, key)
		if err != nil {
			return err
		}
		var c ledger.Checker
		refusal = c.Check(&s.limits, r.Amount, r.PayTo, u)
		switch {
		case u.err != nil:
			return u.err
		case refusal == nil:
			return errors.New("the database refused a reservation that fits the limits")
		}
		return nil
	})
	if err != nil {
		return 0, s.fail("reserve", err)
	}
	return id, refusal
}

// Sign records the signing of a reserved hold; see ledger.Store.
func (s *Store) Sign(ctx context.Context, id ledger.HoldID, sg ledger.Signing) error {
	if sg.ID == "" {
		return &ledger.InputError{Field: "signing id", Reason: "must not be empty"}
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
	now, err := s.begin("time", sg.Now)
	if err != nil {
		return err
	}
	var code int16
	err = s.pool.QueryRow(ctx, "SELECT x402_budget_sign($1, $2, $3, $4, $5, $6, $7)",
		s.budget, int64(id), sg.ID, expires, deadline, sg.Ref, now).Scan(&code)
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

// begin checks the time of an operation and that s is ready, and returns the time.
func (s *Store) begin(field string, t time.Time) (int64, error) {
	now, err := ledger.Nanos(field, t)
	if err != nil {
		return 0, err
	}
	return now, s.ready()
}

// Mark moves a hold; see ledger.Store.
func (s *Store) Mark(ctx context.Context, id ledger.HoldID, to ledger.State, t time.Time) (ledger.State, error) {
	switch to {
	case ledger.Refused, ledger.InDoubt, ledger.Committed, ledger.Released:
	default:
		return 0, &ledger.InputError{Field: "state", Reason: "a hold can be marked refused, in doubt, committed or released only"}
	}
	now, err := s.begin("time", t)
	if err != nil {
		return 0, err
	}
	var state, code *int16
	err = s.pool.QueryRow(ctx, "SELECT o_state, o_code FROM x402_budget_mark($1, $2, $3, $4)",
		s.budget, int64(id), int16(to), now).Scan(&state, &code)
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
func (s *Store) Discard(ctx context.Context, id ledger.HoldID, t time.Time) (ledger.State, error) {
	return s.holdState(ctx, "discard", "SELECT x402_budget_discard($1, $2, $3)", id, t)
}

// Resolve ends an outstanding payment by its signing ID; see ledger.Store.
func (s *Store) Resolve(ctx context.Context, id string, settled bool, t time.Time) error {
	now, err := s.begin("time", t)
	if err != nil {
		return err
	}
	var code int16
	if err := s.pool.QueryRow(ctx, "SELECT x402_budget_resolve($1, $2, $3, $4)", s.budget, id, settled, now).Scan(&code); err != nil {
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
func (s *Store) Totals(ctx context.Context, t time.Time) (ledger.Totals, error) {
	now, err := s.begin("time", t)
	if err != nil {
		return ledger.Totals{}, err
	}
	var spent, held string
	if err := s.pool.QueryRow(ctx, "SELECT o_spent, o_held FROM x402_budget_totals($1, $2)", s.budget, now).Scan(&spent, &held); err != nil {
		return ledger.Totals{}, s.fail("totals", err)
	}
	tot := ledger.Totals{Spent: new(big.Int), Held: new(big.Int)}
	if _, ok := tot.Spent.SetString(spent, 10); !ok {
		return ledger.Totals{}, s.fail("totals", errors.New("spent is not an integer"))
	}
	if _, ok := tot.Held.SetString(held, 10); !ok {
		return ledger.Totals{}, s.fail("totals", errors.New("held is not an integer"))
	}
	return tot, nil
}

// Outstanding lists the holds neither committed nor released; see ledger.Store.
func (s *Store) Outstanding(ctx context.Context, t time.Time) ([]ledger.Entry, error) {
	now, err := s.begin("time", t)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT id, amount::text, pay_to, rail, resource, payer, asset, reserved_at,
		coalesce(signing_id, ''), coalesce(expires, 0), ref, state FROM x402_budget_outstanding($1, $2)`, s.budget, now)
	if err != nil {
		return nil, s.fail("outstanding", err)
	}
	out := []ledger.Entry{}
	for rows.Next() {
		var e ledger.Entry
		var amount string
		var reserved, expires int64
		var state int16
		if err := rows.Scan(&e.Hold, &amount, &e.PayTo, &e.Rail, &e.Resource, &e.Payer, &e.Asset, &reserved, &e.ID, &expires,
			&e.Ref, &state); err != nil {
			rows.Close()
			return nil, s.fail("outstanding", err)
		}
		e.Amount, _ = new(big.Int).SetString(amount, 10)
		if e.Amount == nil {
			rows.Close()
			return nil, s.fail("outstanding", errors.New("an amount is not an integer"))
		}
		e.Reserved, e.State = ledger.Time(reserved), ledger.State(state)
		if expires != 0 { // 0 is no expiry: Sign refuses a time not after 1970
			e.Expires = ledger.Time(expires)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("outstanding", err)
	}
	slices.SortFunc(out, ledger.CompareEntries)
	return out, nil
}

// HoldState returns where a hold stands; see ledger.Store.
func (s *Store) HoldState(ctx context.Context, id ledger.HoldID, t time.Time) (ledger.State, error) {
	return s.holdState(ctx, "hold state", "SELECT x402_budget_hold_state($1, $2, $3)", id, t)
}

// holdState runs query, a call of a function of the budget, the hold id and the time that
// returns the hold's state afterwards (negative for a hold the budget never gave).
func (s *Store) holdState(ctx context.Context, op, query string, id ledger.HoldID, t time.Time) (ledger.State, error) {
	now, err := s.begin("time", t)
	if err != nil {
		return 0, err
	}
	var state int16
	if err := s.pool.QueryRow(ctx, query, s.budget, int64(id), now).Scan(&state); err != nil {
		return 0, s.fail(op, err)
	}
	if state < 0 {
		return 0, ledger.ErrUnknownHold
	}
	return ledger.State(state), nil
}
