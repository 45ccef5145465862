package budget

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/agentapis/sdk/x402/ledger"
)

// recovery finishes the operations whose answers were lost: a store call that failed in a
// way that does not say whether the store applied it (the context ended, a connection broke
// after the commit). The caller was told the call failed, so it sent nothing: a reservation
// or a signature is released (the store's Discard, which releases a reserved or signed hold
// and leaves any other as it is), and a move (commit, refusal, doubt, release) is made again,
// which changes nothing when it was applied already. Each is retried in the background until
// the store answers, within recoveryWindow; until then the hold stays counted, as it would
// have without the retry. The retries are paced by the wall clock, not the budget's: they wait
// for a store to answer, and must not move a test's fake clock, which decides about money.
type recovery struct {
	wg sync.WaitGroup
}

// recoveryWindow bounds how long a lost answer is retried; after it the hold stays as the
// store has it (counted), and a durable store's next opening settles it.
const recoveryWindow = 10 * time.Minute

// recoveryTimeout bounds one attempt.
const recoveryTimeout = 10 * time.Second

// start finishes hold id in s in the background: it moves it to `to` (Released by Discard).
func (r *recovery) start(s ledger.Store, id ledger.HoldID, to ledger.State) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		deadline := time.Now().Add(recoveryWindow)
		for wait := 10 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
			if err := finishOnce(s, id, to); !lost(err) || time.Now().After(deadline) {
				return
			}
			time.Sleep(wait)
		}
	}()
}

// finishOnce makes one attempt of the move, bounded by recoveryTimeout.
func finishOnce(s ledger.Store, id ledger.HoldID, to ledger.State) error {
	ctx, cancel := context.WithTimeout(context.Background(), recoveryTimeout)
	defer cancel()
	var err error
	if to == ledger.Released {
		_, err = s.Discard(ctx, id)
	} else {
		_, err = s.Mark(ctx, id, to)
	}
	if errors.Is(err, ledger.ErrUnknownHold) {
		return nil // the reservation never landed: nothing to finish
	}
	return err
}

// Wait returns once every operation whose answer was lost has been finished (or given up
// after ten minutes of failures), or when ctx ends, with ctx's error. Call it before a
// process exits, so that no hold it could give back stays counted until the store is opened
// again.
func (b *Budget) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		b.lost.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// definite are the answers of a store that say what happened: the call was applied, or
// refused with nothing changed.
var definite = []error{ledger.ErrSigned, ledger.ErrNotReserved, ledger.ErrDuplicateID, ledger.ErrDuplicateHold,
	ledger.ErrUnknownHold, ledger.ErrUnknownID, ledger.ErrNotExpired, ledger.ErrConfigured, ledger.ErrNotConfigured,
	ledger.ErrLimitsDiffer, ledger.ErrClosed}

// lost reports whether err leaves unknown whether the store applied the call: any error but
// the store's definite answers, its refusals and its input errors.
func lost(err error) bool {
	if err == nil {
		return false
	}
	var refusal *ledger.Refusal
	var input *ledger.InputError
	if errors.As(err, &refusal) || errors.As(err, &input) {
		return false
	}
	for _, d := range definite {
		if errors.Is(err, d) {
			return false
		}
	}
	return true
}
