package budgetpg

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402/ledger"
)

// DefaultName is the budget a Store keeps unless WithName names another.
const DefaultName = "default"

// Store keeps the holds of one budget in PostgreSQL, shared by every Store opened on the same
// database and budget name, in any process on any machine. It is a ledger.Store: pass it to
// x402.NewBudget with x402.WithStore. A Store is safe for concurrent use; Close it when done.
type Store struct {
	pool   *pgxpool.Pool
	name   string
	budget int64
	live   *liveness
	clock  sdk.Clock // nil: PostgreSQL's clock; a test's clock set from export_test.go

	mu         sync.Mutex // serialises Configure, ChangeLimits and Close
	configured atomic.Bool
	closed     atomic.Bool
}

// The store is a ledger.Store.
var _ ledger.Store = (*Store)(nil)

// Option configures Open.
type Option func(*options) error

// options are what the options of Open set.
type options struct {
	name string
}

// WithName names the budget the Store keeps (DefaultName without it): several budgets, each
// with its own limits and holds, can share one database. The name is not empty.
func WithName(name string) Option {
	return func(o *options) error {
		if name == "" {
			return errors.New("budgetpg: a budget's name must not be empty")
		}
		o.name = name
		return nil
	}
}

// errDSN replaces pgx's error for a DSN it cannot parse, which may quote the DSN and its
// password.
var errDSN = errors.New("budgetpg: the DSN cannot be parsed: give a postgres:// URL or key=value settings")

// Open connects to the PostgreSQL database dsn names, brings its budget schema to this SDK's
// version (see the package documentation), creates the budget when it is new, and registers
// a session for the Store. The holds of Stores found dead are settled by the reopening
// rules: those reserved and never signed are released, those signed are in doubt. The
// Store is to be configured (x402.NewBudget does it with the budget's limits).
//
// dsn is a postgres:// URL or key=value settings, as libpq and pgx read them
// (pool_max_conns sets the size of the Store's pool, search_path the schema of its tables).
// Errors never quote the DSN.
func Open(ctx context.Context, dsn string, opts ...Option) (*Store, error) {
	o := options{name: DefaultName}
	if err := httpcore.Configure("budgetpg", &o, opts); err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, errDSN
	}
	// The operations rely on read-committed semantics: each statement of a function sees
	// what committed before it, and a row locked after a wait is read as it now is.
	cfg.ConnConfig.RuntimeParams["default_transaction_isolation"] = "read committed"
	if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = "x402-budgetpg"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("budgetpg: open: %w", err)
	}
	s := &Store{pool: pool, name: o.name}
	if err := s.open(ctx, cfg.ConnConfig); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// open migrates, finds or creates the budget, starts the session and sweeps the dead ones.
func (s *Store) open(ctx context.Context, conn *pgx.ConnConfig) error {
	if err := migrate(ctx, s.pool); err != nil {
		return fmt.Errorf("budgetpg: open: %w", err)
	}
	if _, err := s.pool.Exec(ctx, "INSERT INTO x402_budgets (name) VALUES ($1) ON CONFLICT (name) DO NOTHING", s.name); err != nil {
		return fmt.Errorf("budgetpg: open: %w", err)
	}
	if err := s.pool.QueryRow(ctx, "SELECT id FROM x402_budgets WHERE name = $1", s.name).Scan(&s.budget); err != nil {
		return fmt.Errorf("budgetpg: open: %w", err)
	}
	live, err := startLiveness(ctx, conn, s.budget)
	if err != nil {
		return fmt.Errorf("budgetpg: open: session: %w", err)
	}
	if _, err := s.pool.Exec(ctx, "SELECT x402_budget_sweep($1, $2)", s.budget, lockClass); err != nil {
		live.close()
		return fmt.Errorf("budgetpg: open: %w", err)
	}
	s.live = live
	return nil
}

// Name returns the budget's name.
func (s *Store) Name() string { return s.name }

// Configure sets the limits; see ledger.Store. The first Configure of a budget, in any
// process, records its limits with it; a later one (another process, a restart) must give
// the same limits, windows in the same order, or fails with a *ledger.LimitsError, which
// matches ledger.ErrLimitsDiffer and names both.
func (s *Store) Configure(ctx context.Context, limits ledger.Limits) error {
	return s.configure(ctx, "configure", limits, false)
}

// ChangeLimits records new limits with the budget, in place of Configure or after it; see
// ledger.Store. Every Store of the budget, in every process, enforces them from their next
// reservation on: the database checks each reservation against the limits it records. Every
// hold and Spent stay; a window added or made longer counts every hold of its length, and a
// payee limit added counts what was already paid to the payee. It reads the holds of the
// budget's windows once, and every hold of the budget when the payees' limits change.
func (s *Store) ChangeLimits(ctx context.Context, limits ledger.Limits) error {
	return s.configure(ctx, "change limits", limits, true)
}

// configure agrees on limits with the budget's recorded ones, or records them when change
// is set or there are none.
func (s *Store) configure(ctx context.Context, op string, limits ledger.Limits, change bool) error {
	if err := limits.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed.Load():
		return ledger.ErrClosed
	case s.configured.Load() && !change:
		return ledger.ErrConfigured
	}
	l := limits.Clone()
	var differ *ledger.LimitsError
	err := s.do(ctx, func(ctx context.Context, conn *pgxpool.Conn) error {
		return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			old, err := recorded(ctx, tx, s.budget)
			switch {
			case err != nil:
				return err
			case old != nil && !change && !old.Equal(l):
				differ = &ledger.LimitsError{Recorded: *old, Asked: l}
				return nil
			case old != nil && !change:
				return nil
			}
			return setLimits(ctx, tx, s.budget, old, l, s.now())
		})
	})
	switch {
	case err != nil:
		return s.fail(op, err)
	case differ != nil:
		return fmt.Errorf("budgetpg: budget %q: %w", s.name, differ)
	}
	s.configured.Store(true)
	return nil
}

// ready reports whether s is open and configured.
func (s *Store) ready() error {
	switch {
	case s.closed.Load():
		return ledger.ErrClosed
	case !s.configured.Load():
		return ledger.ErrNotConfigured
	}
	return nil
}

// fail wraps an error of the database.
func (s *Store) fail(op string, err error) error {
	return fmt.Errorf("budgetpg: %s: %w", op, err)
}

// Close ends the Store's session and closes its connections; later calls return
// ledger.ErrClosed. Closing changes no hold: the holds it reserved and never signed are
// released by the next Store to open on the budget, as a dead process's are.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Swap(true) {
		return nil
	}
	s.live.close()
	s.pool.Close()
	return nil
}
