package budget_test

import (
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/ledger"
)

// BenchmarkBudgetReserve reserves and releases one payment on a Budget beside 0 and beside
// 100,000 outstanding payments, half in doubt and half refused, with a total, a window and
// a per-payee limit. Target: the second at most 2x the first.
func BenchmarkBudgetReserve(b *testing.B) {
	for _, n := range []int{0, testenv.Outstanding(100_000)} {
		b.Run(fmt.Sprintf("outstanding=%d", n), func(b *testing.B) {
			ctx := b.Context()
			clock := sdktest.NewClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
			huge := new(big.Int).Lsh(big.NewInt(1), 100)
			budget, err := budget.New(huge, budget.WithClock(clock),
				budget.WithWindowLimit(time.Hour, huge, 1<<40), budget.WithPayeeLimit(huge))
			if err != nil {
				b.Fatal(err)
			}
			amount := big.NewInt(1000)
			for i := range n {
				h, err := budget.Reserve(ctx, ledger.Reservation{Amount: amount, PayTo: fmt.Sprintf("0x%04x", i%1000)})
				if err != nil {
					b.Fatal(err)
				}
				// Expiries spread over a day, after the benchmark's end.
				sig := ledger.Signature{ID: fmt.Sprintf("0x%08x", i), Expires: clock.Now().Add(time.Hour + time.Duration(i)*time.Second)}
				if err := h.Sign(ctx, sig); err != nil {
					b.Fatal(err)
				}
				if i%2 == 0 {
					err = h.InDoubt(ctx)
				} else {
					err = h.Refused(ctx)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			r := ledger.Reservation{Amount: amount, PayTo: "0x0001", Rail: "x402 eip155:8453", Resource: "https://shop.example/item"}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				clock.Advance(time.Microsecond)
				h, err := budget.Reserve(ctx, r)
				if err != nil {
					b.Fatal(err)
				}
				if err := h.Release(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
