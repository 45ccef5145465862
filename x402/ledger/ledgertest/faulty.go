package ledgertest

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/agentapis/sdk/internal/ledger"
)

// ErrFault is the failure of a Faulty store.
var ErrFault = errors.New("ledgertest: the store is unreachable")

// Faulty wraps a store and fails its operations on demand, as a database does: an operation
// made to Fail returns ErrFault without reaching the store; one made to FailAfter reaches
// it, then returns ErrFault as if the answer had been lost. The operations are named
// "reserve", "sign", "mark " plus the target state ("mark committed"), "discard",
// "resolve", "totals" and "outstanding".
type Faulty struct {
	ledger.Store
	mu     sync.Mutex
	before map[string]bool
	after  map[string]bool
}

// NewFaulty returns s failing nothing yet.
func NewFaulty(s ledger.Store) *Faulty {
	return &Faulty{Store: s, before: map[string]bool{}, after: map[string]bool{}}
}

// Fail makes op fail without reaching the store.
func (f *Faulty) Fail(op string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.before[op] = true
}

// FailAfter makes op fail after the store applied it.
func (f *Faulty) FailAfter(op string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.after[op] = true
}

// run applies op through apply, failing as set.
func (f *Faulty) run(op string, apply func() error) error {
	f.mu.Lock()
	before, after := f.before[op], f.after[op]
	f.mu.Unlock()
	if before {
		return ErrFault
	}
	if err := apply(); err != nil || !after {
		return err
	}
	return ErrFault
}

// Reserve is the store's, failing as set for "reserve".
func (f *Faulty) Reserve(ctx context.Context, r ledger.Reservation) (ledger.HoldID, error) {
	var id ledger.HoldID
	err := f.run("reserve", func() (err error) { id, err = f.Store.Reserve(ctx, r); return err })
	return id, err
}

// Sign is the store's, failing as set for "sign".
func (f *Faulty) Sign(ctx context.Context, id ledger.HoldID, s ledger.Signing) error {
	return f.run("sign", func() error { return f.Store.Sign(ctx, id, s) })
}

// Mark is the store's, failing as set for "mark " plus the target state.
func (f *Faulty) Mark(ctx context.Context, id ledger.HoldID, to ledger.State, now time.Time) (ledger.State, error) {
	var st ledger.State
	err := f.run("mark "+to.String(), func() (err error) { st, err = f.Store.Mark(ctx, id, to, now); return err })
	return st, err
}

// Discard is the store's, failing as set for "discard".
func (f *Faulty) Discard(ctx context.Context, id ledger.HoldID, now time.Time) (ledger.State, error) {
	var st ledger.State
	err := f.run("discard", func() (err error) { st, err = f.Store.Discard(ctx, id, now); return err })
	return st, err
}

// Resolve is the store's, failing as set for "resolve".
func (f *Faulty) Resolve(ctx context.Context, id string, settled bool, now time.Time) error {
	return f.run("resolve", func() error { return f.Store.Resolve(ctx, id, settled, now) })
}

// Totals is the store's, failing as set for "totals".
func (f *Faulty) Totals(ctx context.Context, now time.Time) (ledger.Totals, error) {
	var t ledger.Totals
	err := f.run("totals", func() (err error) { t, err = f.Store.Totals(ctx, now); return err })
	return t, err
}

// Outstanding is the store's, failing as set for "outstanding".
func (f *Faulty) Outstanding(ctx context.Context, now time.Time) ([]ledger.Entry, error) {
	var out []ledger.Entry
	err := f.run("outstanding", func() (err error) { out, err = f.Store.Outstanding(ctx, now); return err })
	return out, err
}
