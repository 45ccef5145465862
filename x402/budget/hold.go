package budget

import (
	"context"
	"math/big"

	"github.com/agentapis/sdk/x402/ledger"
)

// Hold is an amount held in a Budget for one payment. Its methods are safe to call from any
// goroutine; a transition that does not apply to the hold's state is ignored, so that no
// late or repeated call can give back money that may have left. Each records the change in
// the budget's store before it returns; a failure of the store is a *StoreError, and the
// hold then stays counted.
type Hold struct {
	b  *Budget
	id ledger.HoldID
	r  ledger.Reservation // its Amount is the hold's own copy, its PayTo canonical
}

// ID returns the identifier the budget made for the hold before reserving it.
func (h *Hold) ID() ledger.HoldID { return h.id }

// Amount returns the amount held.
func (h *Hold) Amount() *big.Int { return new(big.Int).Set(h.r.Amount) }

// State returns where the hold stands.
func (h *Hold) State(ctx context.Context) (ledger.State, error) {
	st, err := h.b.store.HoldState(ctx, h.id)
	return st, storeError("hold state", err)
}

// Release gives the amount back, which is allowed only while nothing was signed; otherwise it
// returns ErrHoldSigned and keeps the amount counted.
func (h *Hold) Release(ctx context.Context) error { return h.mark(ctx, "release", ledger.Released) }

// Sign records what the payment signed, before it leaves: its ID, expiry and Ref. When Sign
// fails (ErrHoldNotReserved, a *sdk.ValidationError, a *StoreError), the payment must not be
// sent; when the store's answer was lost, the hold is then discarded, since nothing left.
func (h *Hold) Sign(ctx context.Context, s ledger.Signature) error {
	if s.ID == "" {
		return invalid("Signature.ID", "must identify the payment on its rail")
	}
	err := h.b.store.Sign(ctx, h.id, s)
	if lost(err) {
		h.b.lost.start(h.b.store, h.id, ledger.Released) // nothing was sent
	}
	return storeError("sign", err)
}

// Commit records that the payment went through: its amount moves to Spent. It applies to any
// hold that was not released, since a receipt may come after a refusal or a doubt.
func (h *Hold) Commit(ctx context.Context) error { return h.mark(ctx, "commit", ledger.Committed) }

// Refused records that the server refused the signed payment: the amount stays counted until
// the payment expires (plus ledger.ExpiryMargin).
func (h *Hold) Refused(ctx context.Context) error { return h.mark(ctx, "refused", ledger.Refused) }

// InDoubt records that the outcome of the signed payment is unknown: the amount stays
// counted until Budget.Resolve or Commit.
func (h *Hold) InDoubt(ctx context.Context) error {
	return h.mark(ctx, "in doubt", ledger.InDoubt)
}

// Discard gives back the amount of a hold whose payment was signed but never left the
// process (the request could not be built, the context ended before it was sent): nobody
// else holds the signature, so it can never be used. Only the caller that signed knows that;
// never call it for a payment that may have been handed to a transport or a node. A hold in
// any other state than reserved or signed is left as it is.
func (h *Hold) Discard(ctx context.Context) error {
	_, err := h.b.store.Discard(ctx, h.id)
	if lost(err) {
		h.b.lost.start(h.b.store, h.id, ledger.Released)
	}
	return storeError("discard", err)
}

// mark moves the hold to state, as the state machine allows. When the store's answer is
// lost, the move is made again until the store answers: repeating it changes nothing more.
func (h *Hold) mark(ctx context.Context, op string, to ledger.State) error {
	_, err := h.b.store.Mark(ctx, h.id, to)
	if lost(err) {
		h.b.lost.start(h.b.store, h.id, to)
	}
	return storeError(op, err)
}
