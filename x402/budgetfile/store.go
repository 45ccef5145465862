package budgetfile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/ledger"
	"github.com/agentapis/sdk/x402"
)

// Store is a budget store kept in one SQLite file; see the package documentation. Give it
// to x402.WithStore. It is safe for concurrent use.
type Store struct {
	path string
	db   *sql.DB
	conn *sql.Conn // the one connection, which holds the file's lock
	mem  atomic.Pointer[ledger.Memory]

	mu      sync.Mutex // guards what follows, and Configure against Close
	closed  atomic.Bool
	journal *journal
}

// The store is a BudgetStore.
var _ x402.BudgetStore = (*Store)(nil)

// Option configures Open.
type Option func(*config) error

// config is what the options of Open set.
type config struct {
	wait time.Duration
}

// WithWait makes Open wait up to d for another process (or another Store of this process)
// to close the file, instead of failing at once with a *LockedError: for a program restarted
// while its previous run is still shutting down.
func WithWait(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return &sdk.ValidationError{Service: "budgetfile", Field: "wait", Reason: "must not be negative"}
		}
		c.wait = d
		return nil
	}
}

// Open opens the budget file at path, creating it with its schema when it does not exist,
// and upgrading the schema of a file written by an earlier release. The returned Store holds
// the file for its life: another process, or another Open of this one, gets a *LockedError
// until Close (or the end of the process, whatever ends it). A file that is not a budget
// file, or one written by a later release, is a *FormatError. Opening applies the reopening
// rules: holds reserved and never signed are released, signed ones are in doubt.
func Open(path string, opts ...Option) (*Store, error) {
	if path == "" {
		return nil, &sdk.ValidationError{Service: "budgetfile", Field: "path", Reason: "must name a file"}
	}
	var cfg config
	if err := httpcore.Configure("budgetfile", &cfg, opts); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("budgetfile: %s: %w", path, err)
	}
	// A URI, so that no character of the path is read as a parameter.
	db, err := sql.Open("sqlite", "file://"+(&url.URL{Path: abs}).EscapedPath())
	if err != nil {
		return nil, fmt.Errorf("budgetfile: %s: %w", path, err)
	}
	s := &Store{path: path, db: db}
	if err := s.open(cfg); err != nil {
		_ = s.release()
		if isBusy(err) {
			return nil, &LockedError{Path: path}
		}
		var fe *FormatError
		if errors.As(err, &fe) {
			return nil, err
		}
		return nil, fmt.Errorf("budgetfile: opening %s: %w", path, err)
	}
	return s, nil
}

// open takes the file's lock, brings its schema up to date and applies the reopening rules.
func (s *Store) open(cfg config) error {
	ctx := context.Background()
	s.db.SetMaxOpenConns(1)
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	s.conn = conn
	for _, q := range []string{
		fmt.Sprintf(`PRAGMA busy_timeout = %d`, cfg.wait.Milliseconds()),
		// Every lock taken is kept until the connection closes, and the WAL's index lives in
		// this process's memory: no other process can read or write the file meanwhile.
		`PRAGMA locking_mode = EXCLUSIVE`,
		// Take the lock at once: a brand-new file is not in WAL mode yet, and two processes
		// sharing a read lock would both fail to switch it.
		`BEGIN EXCLUSIVE`,
		`COMMIT`,
		`PRAGMA busy_timeout = 0`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	var mode string
	if err := conn.QueryRowContext(ctx, `PRAGMA journal_mode = WAL`).Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		return fmt.Errorf("the file cannot be put in WAL mode (it stays in %q)", mode)
	}
	// A commit is in the WAL (which a process's end does not lose) when it returns; the
	// journal asks for FULL where a power loss must not lose it either.
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
		return err
	}
	if err := migrate(ctx, conn, s.path, migrations); err != nil {
		return err
	}
	// The reopening rules. A reserved hold was never signed: nothing can have left. A signed
	// one may have left: in doubt until resolved. ("state < 4" lets the index of outstanding
	// holds serve.)
	if _, err := conn.ExecContext(ctx, `BEGIN;
		UPDATE holds SET state = 5 WHERE state < 4 AND state = 0;
		UPDATE holds SET state = 3 WHERE state < 4 AND state = 1;
		COMMIT`); err != nil {
		_, _ = conn.ExecContext(ctx, `ROLLBACK`)
		return err
	}
	s.journal, err = newJournal(ctx, conn)
	return err
}

// isBusy reports whether err is SQLite's "database is locked".
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// Configure reads the holds back from the file and sets the limits every later Reserve
// enforces; see x402.BudgetStore. x402.NewBudget calls it.
func (s *Store) Configure(ctx context.Context, limits ledger.Limits) error {
	if err := limits.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed.Load():
		return ledger.ErrClosed
	case s.mem.Load() != nil:
		return ledger.ErrConfigured
	}
	snap, err := s.journal.snapshot(ctx, limits)
	if err != nil {
		return fmt.Errorf("budgetfile: reading %s: %w", s.path, err)
	}
	m, err := ledger.Restore(limits, snap, s.journal)
	if err != nil {
		return err
	}
	s.mem.Store(m)
	return nil
}

// accounts returns the store's accounts, or why there are none.
func (s *Store) accounts() (*ledger.Memory, error) {
	if m := s.mem.Load(); m != nil {
		return m, nil
	}
	if s.closed.Load() {
		return nil, ledger.ErrClosed
	}
	return nil, ledger.ErrNotConfigured
}

// use runs op on the store's accounts, or returns why there are none.
func use[T any](s *Store, op func(*ledger.Memory) (T, error)) (T, error) {
	m, err := s.accounts()
	if err != nil {
		var zero T
		return zero, err
	}
	return op(m)
}

// Reserve checks every limit and records a reserved hold; see x402.BudgetStore.
func (s *Store) Reserve(ctx context.Context, r ledger.Reservation) (ledger.HoldID, error) {
	return use(s, func(m *ledger.Memory) (ledger.HoldID, error) { return m.Reserve(ctx, r) })
}

// Sign records what a reserved hold signed, on the disk before it returns; see
// x402.BudgetStore.
func (s *Store) Sign(ctx context.Context, id ledger.HoldID, sig ledger.Signing) error {
	m, err := s.accounts()
	if err != nil {
		return err
	}
	return m.Sign(ctx, id, sig)
}

// Mark moves a hold; see x402.BudgetStore.
func (s *Store) Mark(ctx context.Context, id ledger.HoldID, to ledger.State, now time.Time) (ledger.State, error) {
	return use(s, func(m *ledger.Memory) (ledger.State, error) { return m.Mark(ctx, id, to, now) })
}

// Discard releases a hold whose payment never left the process; see x402.BudgetStore.
func (s *Store) Discard(ctx context.Context, id ledger.HoldID, now time.Time) (ledger.State, error) {
	return use(s, func(m *ledger.Memory) (ledger.State, error) { return m.Discard(ctx, id, now) })
}

// Resolve ends an outstanding payment by its signing ID; see x402.BudgetStore.
func (s *Store) Resolve(ctx context.Context, id string, settled bool, now time.Time) error {
	m, err := s.accounts()
	if err != nil {
		return err
	}
	return m.Resolve(ctx, id, settled, now)
}

// Totals returns what was spent and what is held; see x402.BudgetStore.
func (s *Store) Totals(ctx context.Context, now time.Time) (ledger.Totals, error) {
	return use(s, func(m *ledger.Memory) (ledger.Totals, error) { return m.Totals(ctx, now) })
}

// Outstanding lists the holds neither committed nor released; see x402.BudgetStore.
func (s *Store) Outstanding(ctx context.Context, now time.Time) ([]ledger.Entry, error) {
	return use(s, func(m *ledger.Memory) ([]ledger.Entry, error) { return m.Outstanding(ctx, now) })
}

// HoldState returns where a hold stands; see x402.BudgetStore.
func (s *Store) HoldState(ctx context.Context, id ledger.HoldID, now time.Time) (ledger.State, error) {
	return use(s, func(m *ledger.Memory) (ledger.State, error) { return m.HoldState(ctx, id, now) })
}

// Close waits for the operation in progress, if any, then closes the file and releases its
// lock; later calls return ledger.ErrClosed. Closing changes no hold: a hold reserved and not
// signed is released when the file is next opened, as the reopening rules say.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Swap(true) {
		return nil
	}
	if m := s.mem.Load(); m != nil {
		_ = m.Close() // waits for the operation in progress
	}
	return s.release()
}

// release closes the journal, the connection and the database.
func (s *Store) release() error {
	if s.journal != nil {
		s.journal.close()
	}
	var err error
	if s.conn != nil {
		err = s.conn.Close()
	}
	return errors.Join(err, s.db.Close())
}
