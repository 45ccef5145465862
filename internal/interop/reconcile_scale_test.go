package interop_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"math/big"
	"testing"
	"time"

	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/reconcile"
)

// scalePayments is how many payments in doubt BenchmarkReconcileAgainstAnvil reconciles.
const scalePayments = 10_000

// BenchmarkReconcileAgainstAnvil measures one reconciliation of 10,000 payments in doubt,
// expired unused, against anvil holding Circle's USDC, with the batch and the rate a caller
// sets for a node of its own (WithBatch(500), WithRate(100)): each lookup reads the latest
// and the finalized block, the 500 payments' state at both, finds the first block they could
// settle in by its time, and searches their AuthorizationUsed events up to the latest block;
// every payment is then released. "ns/payment" is the time of one payment.
//
//	npm ci --prefix internal/interop/testdata/js --ignore-scripts
//	go test -run='^$' -bench=ReconcileAgainstAnvil -benchtime=3x ./internal/interop
func BenchmarkReconcileAgainstAnvil(b *testing.B) {
	node, anvil := requireNode(b), requireAnvil(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	b.Cleanup(cancel)
	chain := startAnvil(ctx, b, anvil)
	startJSServer(ctx, b, node, jsServerConfig{RPC: chain.RPC, PayTo: payTo, Amount: big.NewInt(price).String(), MaxTimeoutSeconds: 60})
	payer, err := evm.NewPrivateKeySigner(goPayerKey)
	if err != nil {
		b.Fatal(err)
	}
	lookup, err := evm.DialLookup(evm.NetworkBase, chain.RPC)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = lookup.Close() })
	clock := &shiftedClock{}
	passFinality(ctx, b, chain.RPC, time.Hour)

	for b.Loop() {
		b.StopTimer()
		clock.by.Store(0)
		spend, err := budget.New(budget.Unlimited, budget.WithClock(clock))
		if err != nil {
			b.Fatal(err)
		}
		for range scalePayments {
			h, err := spend.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(price), PayTo: payTo,
				Rail: "x402 " + evm.NetworkBase, Payer: payer.Address(), Asset: evm.USDCBase})
			if err != nil {
				b.Fatal(err)
			}
			var nonce [32]byte
			_, _ = rand.Read(nonce[:])
			if err := h.Sign(ctx, ledger.Signature{ID: "0x" + hex.EncodeToString(nonce[:]), Expires: clock.Now().Add(time.Minute)}); err != nil {
				b.Fatal(err)
			}
			if err := h.InDoubt(ctx); err != nil {
				b.Fatal(err)
			}
		}
		clock.add(time.Hour)
		r, err := reconcile.New(spend, reconcile.WithLookup(lookup), reconcile.WithClock(clock), reconcile.WithBatch(500),
			reconcile.WithRate(100))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()

		rep, err := r.Reconcile(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := rep.Err(); err != nil || len(rep.Released) != scalePayments {
			b.Fatalf("released %d of %d: %v", len(rep.Released), scalePayments, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*scalePayments), "ns/payment")
}
