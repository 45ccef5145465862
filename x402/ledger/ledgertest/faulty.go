package ledgertest

import (
	"context"
	"errors"
	"sync"

	"github.com/agentapis/sdk/x402/ledger"
)

// ErrFault is the failure of a Faulty store.
var ErrFault = errors.New("ledgertest: the store is unreachable")

// Faulty wraps a store and fails its operations on demand, as a database does: an operation
// made to Fail returns ErrFault without reaching the store; one made to FailAfter reaches
// it, then returns ErrFault as if the answer had been lost (a Reserve whose answer is lost
// recorded its hold: HoldState finds it). The operations are named "configure", "change
// limits", "reserve", "sign", "mark " plus the target state ("mark committed"), "discard",
// "resolve", "totals", "outstanding" and "hold state".
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

// Heal makes op reach the store and answer again, as a database that came back.
func (f *Faulty) Heal(op string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.before, op)
	delete(f.after, op)
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

// answer is run for an operation that answers a value.
func answer[T any](f *Faulty, op string, apply func() (T, error)) (T, error) {
	var v T
	err := f.run(op, func() (err error) { v, err = apply(); return err })
	return v, err
}

// Configure is the store's, failing as set for "configure".
func (f *Faulty) Configure(ctx context.Context, limits ledger.Limits) error {
	return f.run("configure", func() error { return f.Store.Configure(ctx, limits) })
}

// ChangeLimits is the store's, failing as set for "change limits".
func (f *Faulty) ChangeLimits(ctx context.Context, limits ledger.Limits) error {
	return f.run("change limits", func() error { return f.Store.ChangeLimits(ctx, limits) })
}

// Reserve is the store's, failing as set for "reserve".
func (f *Faulty) Reserve(ctx context.Context, id ledger.HoldID, r ledger.Reservation) error {
	return f.run("reserve", func() error { return f.Store.Reserve(ctx, id, r) })
}

// Sign is the store's, failing as set for "sign".
func (f *Faulty) Sign(ctx context.Context, id ledger.HoldID, s ledger.Signature) error {
	return f.run("sign", func() error { return f.Store.Sign(ctx, id, s) })
}

// Mark is the store's, failing as set for "mark " plus the target state.
func (f *Faulty) Mark(ctx context.Context, id ledger.HoldID, to ledger.State) (ledger.State, error) {
	return answer(f, "mark "+to.String(), func() (ledger.State, error) { return f.Store.Mark(ctx, id, to) })
}

// Discard is the store's, failing as set for "discard".
func (f *Faulty) Discard(ctx context.Context, id ledger.HoldID) (ledger.State, error) {
	return answer(f, "discard", func() (ledger.State, error) { return f.Store.Discard(ctx, id) })
}

// Resolve is the store's, failing as set for "resolve".
func (f *Faulty) Resolve(ctx context.Context, paymentID string, settled bool) error {
	return f.run("resolve", func() error { return f.Store.Resolve(ctx, paymentID, settled) })
}

// Totals is the store's, failing as set for "totals".
func (f *Faulty) Totals(ctx context.Context) (ledger.Totals, error) {
	return answer(f, "totals", func() (ledger.Totals, error) { return f.Store.Totals(ctx) })
}

// Outstanding is the store's, failing as set for "outstanding".
func (f *Faulty) Outstanding(ctx context.Context) ([]ledger.Outstanding, error) {
	return answer(f, "outstanding", func() ([]ledger.Outstanding, error) { return f.Store.Outstanding(ctx) })
}

// HoldState is the store's, failing as set for "hold state".
func (f *Faulty) HoldState(ctx context.Context, id ledger.HoldID) (ledger.State, error) {
	return answer(f, "hold state", func() (ledger.State, error) { return f.Store.HoldState(ctx, id) })
}
