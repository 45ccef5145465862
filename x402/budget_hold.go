package x402

import (
	"context"
	"math/big"
	"strings"

	"github.com/agentapis/sdk/internal/ledger"
)

// Hold is an amount held in a Budget for one payment. Its methods are safe to call from any
// goroutine; a transition that does not apply to the hold's state is ignored, so that no
// late or repeated call can give back money that may have left. Each records the change in
// the budget's store before it returns; a failure of the store is a *BudgetStoreError, and
// the hold then stays counted.
type Hold struct {
	b  *Budget
	id ledger.HoldID
	r  Reservation // its Amount is the hold's own copy
}

// Amount returns the amount held.
func (h *Hold) Amount() *big.Int { return new(big.Int).Set(h.r.Amount) }

// State returns where the hold stands.
func (h *Hold) State(ctx context.Context) (HoldState, error) {
	st, err := h.b.store.HoldState(ctx, h.id, h.b.now())
	return HoldState(st), budgetError("hold state", err)
}

// Release gives the amount back, which is allowed only while nothing was signed; otherwise it
// returns ErrHoldSigned and keeps the amount counted.
func (h *Hold) Release(ctx context.Context) error { return h.mark(ctx, "release", ledger.Released) }

// Sign records what the payment signed, before it leaves: its ID, expiry and Ref. The payee,
// rail, resource, payer and asset are the reservation's; s may repeat them, and must not
// contradict them.
// When Sign fails (ErrHoldNotReserved, a *sdk.ValidationError, a *BudgetStoreError), the
// payment must not be sent.
func (h *Hold) Sign(ctx context.Context, s Signature) error {
	switch {
	case s.PayTo != "" && !strings.EqualFold(s.PayTo, h.r.PayTo):
		return invalid("Signature.PayTo", "differs from the reservation's payee")
	case s.Rail != "" && s.Rail != h.r.Rail:
		return invalid("Signature.Rail", "differs from the reservation's rail")
	case s.Resource != "" && s.Resource != h.r.Resource:
		return invalid("Signature.Resource", "differs from the reservation's resource")
	case s.Payer != "" && !strings.EqualFold(s.Payer, h.r.Payer):
		return invalid("Signature.Payer", "differs from the reservation's payer")
	case s.Asset != "" && !strings.EqualFold(s.Asset, h.r.Asset):
		return invalid("Signature.Asset", "differs from the reservation's asset")
	}
	err := h.b.store.Sign(ctx, h.id, ledger.Signing{ID: s.ID, Expires: s.Expires, Ref: s.Ref, Now: h.b.now()})
	return budgetError("sign", err)
}

// Commit records that the payment went through: its amount moves to Spent. It applies to any
// hold that was not released, since a receipt may come after a refusal or a doubt.
func (h *Hold) Commit(ctx context.Context) error { return h.mark(ctx, "commit", ledger.Committed) }

// Refused records that the server refused the signed payment: the amount stays counted until
// the authorization expires (plus ExpiryMargin).
func (h *Hold) Refused(ctx context.Context) error { return h.mark(ctx, "refused", ledger.Refused) }

// InDoubt records that the outcome of the signed payment is unknown: the amount stays
// counted until Resolve or Commit.
func (h *Hold) InDoubt(ctx context.Context) error { return h.mark(ctx, "in doubt", ledger.InDoubt) }

// mark moves the hold to state, as the state machine allows.
func (h *Hold) mark(ctx context.Context, op string, to ledger.State) error {
	_, err := h.b.store.Mark(ctx, h.id, to, h.b.now())
	return budgetError(op, err)
}

// discard gives back the amount of a hold whose authorization was signed but never left the
// process (the request could not be built, or the context ended before it was sent): nobody
// else holds it, so it can never be used. Only the payer, which knows that, calls it; a
// failure of the store leaves the hold counted.
func (h *Hold) discard(ctx context.Context) {
	_, _ = h.b.store.Discard(ctx, h.id, h.b.now())
}
