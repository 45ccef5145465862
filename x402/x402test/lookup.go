package x402test

import (
	"context"
	"strings"

	"github.com/agentapis/sdk/internal/addr"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/reconcile"
)

// railPrefix starts the rail of every x402 payment: "x402 " and the CAIP-2 network.
const railPrefix = "x402 "

// Handles reports whether rail is an x402 rail: the facilitator's settlements are the chain
// of every network, so that a Facilitator can stand for the chain as a reconcile.Lookup
// (reconcile.WithLookup) in tests.
func (f *Facilitator) Handles(rail string) bool { return strings.HasPrefix(rail, railPrefix) }

// Lookup reports each payment as the facilitator's ledger has it, as a token contract
// would: settled (with the settlement's transaction) when a settlement of its payer, id,
// network and asset was recorded; otherwise not settled, since the facilitator refuses a
// payment once it has expired on the facilitator's clock.
func (f *Facilitator) Lookup(ctx context.Context, payments []ledger.Outstanding) ([]reconcile.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]reconcile.Result, len(payments))
	for i, p := range payments {
		out[i] = reconcile.Result{ID: p.ID, State: reconcile.NotSettled}
		network := strings.TrimPrefix(p.Rail, railPrefix)
		for _, s := range f.settlements {
			if sameID(s.ID, p.ID) && addr.Same(s.From, p.Payer) && s.Network == network && addr.Same(s.Asset, p.Asset) {
				out[i].State, out[i].Transaction = reconcile.Settled, s.TxHash
				break
			}
		}
	}
	return out, nil
}

// sameID reports whether two payment ids are the same: an EIP-3009 nonce in any letter case,
// a Solana signature exactly.
func sameID(a, b string) bool {
	if strings.HasPrefix(a, "0x") {
		return strings.EqualFold(a, b)
	}
	return a == b
}
