package ledger_test

import (
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/ledger"
)

// BenchmarkReserve reserves and releases one hold beside 0 and beside 100,000 outstanding
// holds, half in doubt and half refused, under every kind of limit. Target: the second at
// most 2x the first.
func BenchmarkReserve(b *testing.B) {
	for _, n := range []int{0, testenv.Outstanding(100_000)} {
		b.Run(fmt.Sprintf("outstanding=%d", n), func(b *testing.B) {
			ctx := b.Context()
			now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
			clock := sdktest.NewClock(now)
			s := ledger.NewMemory(clock)
			huge := new(big.Int).Lsh(big.NewInt(1), 100)
			limits := ledger.Limits{Total: huge, PerPayment: huge, PerPayee: huge, Windows: []ledger.Window{
				{Length: time.Hour, Amount: huge, Count: 1 << 40}, {Length: 24 * time.Hour, Count: 1 << 40},
			}}
			if err := s.Configure(ctx, limits); err != nil {
				b.Fatal(err)
			}
			amount := big.NewInt(1000)
			for i := range n {
				id := ledger.NewHoldID()
				if err := s.Reserve(ctx, id, ledger.Reservation{Amount: amount, PayTo: fmt.Sprintf("0x%04x", i%1000)}); err != nil {
					b.Fatal(err)
				}
				// Expiries spread over a day, after the benchmark's end.
				sig := ledger.Signature{ID: fmt.Sprintf("0x%08x", i), Expires: now.Add(time.Hour + time.Duration(i)*time.Second)}
				if err := s.Sign(ctx, id, sig); err != nil {
					b.Fatal(err)
				}
				if _, err := s.Mark(ctx, id, []ledger.State{ledger.InDoubt, ledger.Refused}[i%2]); err != nil {
					b.Fatal(err)
				}
			}
			r := ledger.Reservation{Amount: amount, PayTo: "0x0001", Rail: "x402 eip155:8453", Resource: "/item"}
			ids := make([]ledger.HoldID, b.N)
			for i := range ids {
				ids[i] = ledger.NewHoldID()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				clock.Advance(time.Microsecond)
				if err := s.Reserve(ctx, ids[i], r); err != nil {
					b.Fatal(err)
				}
				if _, err := s.Mark(ctx, ids[i], ledger.Released); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
