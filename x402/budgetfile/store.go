package budgetfile

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/x402/ledger"
)

// Store is a budget store kept in one SQLite file; see the package documentation. Give it
// to x402.WithStore. It is safe for concurrent use.
type Store struct {
	path    string
	clock   sdk.Clock
	db      *sql.DB
	conn    *sql.Conn // the one connection, which holds the file's lock
	journal *journal

	// mu is held shared by every operation on the accounts, and exclusively by Configure,
	// ChangeLimits and Close, which make or end them.
	mu     sync.RWMutex
	mem    *ledger.Memory // the accounts, once configured
	closed bool
}

// The store is a ledger.Store.
var _ ledger.Store = (*Store)(nil)

// Configure reads the holds back from the file and sets the limits every later Reserve
// enforces; see ledger.Store. The first Configure of a file records its limits; a later one
// (a restart, another process) with other limits fails with a *ledger.LimitsError, which
// matches ledger.ErrLimitsDiffer and names both.
func (s *Store) Configure(ctx context.Context, limits ledger.Limits) error {
	if err := limits.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return ledger.ErrClosed
	case s.mem != nil:
		return ledger.ErrConfigured
	}
	recorded, err := recordedLimits(ctx, s.conn)
	switch {
	case err != nil:
		return fmt.Errorf("budgetfile: reading %s: %w", s.path, err)
	case recorded != nil && !recorded.Equal(limits):
		return fmt.Errorf("budgetfile: %s: %w", s.path, &ledger.LimitsError{Recorded: *recorded, Asked: limits.Clone()})
	}
	return s.restore(ctx, limits, recorded == nil)
}

// ChangeLimits records new limits in the file and makes them the ones every later Reserve
// enforces, in place of Configure or after it; see ledger.Store. Every hold and Spent stay;
// the accounts are read back from the file, so a window added or made longer counts every
// hold of its length.
func (s *Store) ChangeLimits(ctx context.Context, limits ledger.Limits) error {
	if err := limits.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return ledger.ErrClosed
	case s.journal.failed != nil:
		return fmt.Errorf("budgetfile: a change could not be written, so the store takes no more; reopen it: %w", s.journal.failed)
	}
	return s.restore(ctx, limits, true)
}

// restore records limits when record is set, reads the holds back and makes the accounts;
// s.mu is held.
func (s *Store) restore(ctx context.Context, limits ledger.Limits, record bool) error {
	if record {
		if err := recordLimits(ctx, s.conn, limits); err != nil {
			return fmt.Errorf("budgetfile: writing %s: %w", s.path, err)
		}
	}
	snap, err := s.journal.snapshot(ctx, limits, s.clock.Now())
	if err != nil {
		return fmt.Errorf("budgetfile: reading %s: %w", s.path, err)
	}
	if s.mem != nil {
		snap.Expired = s.mem.Expired() // this process's expiries stand while it runs
	}
	m, err := ledger.Restore(limits, snap, s.journal, s.clock)
	if err != nil {
		return err
	}
	if s.mem != nil {
		_ = s.mem.Close()
	}
	s.mem = m
	return nil
}

// use runs op on the store's accounts, or returns why there are none.
func use[T any](s *Store, op func(*ledger.Memory) (T, error)) (T, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var zero T
	switch {
	case s.closed:
		return zero, ledger.ErrClosed
	case s.mem == nil:
		return zero, ledger.ErrNotConfigured
	}
	return op(s.mem)
}

// run runs op, which answers an error only, on the store's accounts.
func run(s *Store, op func(*ledger.Memory) error) error {
	_, err := use(s, func(m *ledger.Memory) (struct{}, error) { return struct{}{}, op(m) })
	return err
}

// Reserve checks every limit and records a reserved hold; see ledger.Store.
func (s *Store) Reserve(ctx context.Context, id ledger.HoldID, r ledger.Reservation) error {
	return run(s, func(m *ledger.Memory) error { return m.Reserve(ctx, id, r) })
}

// Sign records what a reserved hold signed, on the disk before it returns; see ledger.Store.
func (s *Store) Sign(ctx context.Context, id ledger.HoldID, sig ledger.Signature) error {
	return run(s, func(m *ledger.Memory) error { return m.Sign(ctx, id, sig) })
}

// Mark moves a hold; see ledger.Store.
func (s *Store) Mark(ctx context.Context, id ledger.HoldID, to ledger.State) (ledger.State, error) {
	return use(s, func(m *ledger.Memory) (ledger.State, error) { return m.Mark(ctx, id, to) })
}

// Discard releases a hold whose payment never left the process; see ledger.Store.
func (s *Store) Discard(ctx context.Context, id ledger.HoldID) (ledger.State, error) {
	return use(s, func(m *ledger.Memory) (ledger.State, error) { return m.Discard(ctx, id) })
}

// Resolve ends an outstanding payment by its Signature.ID; see ledger.Store.
func (s *Store) Resolve(ctx context.Context, paymentID string, settled bool) error {
	return run(s, func(m *ledger.Memory) error { return m.Resolve(ctx, paymentID, settled) })
}

// Totals returns what was spent and what is held; see ledger.Store.
func (s *Store) Totals(ctx context.Context) (ledger.Totals, error) {
	return use(s, func(m *ledger.Memory) (ledger.Totals, error) { return m.Totals(ctx) })
}

// Outstanding lists the holds neither committed nor released; see ledger.Store.
func (s *Store) Outstanding(ctx context.Context) ([]ledger.Outstanding, error) {
	return use(s, func(m *ledger.Memory) ([]ledger.Outstanding, error) { return m.Outstanding(ctx) })
}

// HoldState returns where a hold stands; see ledger.Store.
func (s *Store) HoldState(ctx context.Context, id ledger.HoldID) (ledger.State, error) {
	return use(s, func(m *ledger.Memory) (ledger.State, error) { return m.HoldState(ctx, id) })
}

// Close waits for the operations in progress, if any, then closes the file and releases its
// lock; later calls return ledger.ErrClosed. Closing changes no hold: a hold reserved and not
// signed is released when the file is next opened, as the reopening rules say.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.mem != nil {
		_ = s.mem.Close()
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
