package budgetfile_test

import (
	"fmt"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/budgetfile"
	"github.com/agentapis/sdk/x402/ledger"
)

// reserveLimits are the limits of BenchmarkReserve: every kind, none ever reached.
func reserveLimits() ledger.Limits {
	huge := new(big.Int).Lsh(big.NewInt(1), 100)
	return ledger.Limits{Total: huge, PerPayment: huge, PerPayee: huge, Windows: []ledger.Window{
		{Length: time.Hour, Amount: huge, Count: 1 << 40}, {Length: 24 * time.Hour, Count: 1 << 40},
	}}
}

// outstandingStore returns a configured store of kind ("memory" or "file") reading clock,
// holding n outstanding holds as budgetfile.Fill makes them.
func outstandingStore(b *testing.B, kind string, n int, clock *sdktest.Clock) ledger.Store {
	ctx := b.Context()
	now := clock.Now()
	var s ledger.Store
	switch kind {
	case "memory":
		s = ledger.NewMemory(clock)
		if err := s.Configure(ctx, reserveLimits()); err != nil {
			b.Fatal(err)
		}
		for i := range n {
			id := ledger.NewHoldID()
			if err := s.Reserve(ctx, id, ledger.Reservation{Amount: big.NewInt(1000), PayTo: fmt.Sprintf("0x%04x", i%1000)}); err != nil {
				b.Fatal(err)
			}
			sig := ledger.Signature{ID: fmt.Sprintf("0x%08x", i), Expires: now.Add(time.Hour + time.Duration(i)*time.Second)}
			if err := s.Sign(ctx, id, sig); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Mark(ctx, id, []ledger.State{ledger.InDoubt, ledger.Refused}[i%2]); err != nil {
				b.Fatal(err)
			}
		}
	case "file":
		path := filepath.Join(b.TempDir(), "budget.db")
		if err := budgetfile.Fill(path, n, now); err != nil {
			b.Fatal(err)
		}
		f, err := budgetfile.Open(path, budgetfile.WithClock(clock))
		if err != nil {
			b.Fatal(err)
		}
		if err := f.Configure(ctx, reserveLimits()); err != nil {
			b.Fatal(err)
		}
		s = f
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// BenchmarkReserve reserves and releases one hold beside 0 and beside 100,000 outstanding
// holds, half in doubt and half refused, under every kind of limit, in memory and in a file.
// Target: with 100,000 outstanding at most 2x with none, for each store.
func BenchmarkReserve(b *testing.B) {
	for _, kind := range []string{"memory", "file"} {
		for _, n := range []int{0, testenv.Outstanding(100_000)} {
			b.Run(fmt.Sprintf("store=%s/outstanding=%d", kind, n), func(b *testing.B) {
				ctx := b.Context()
				clock := sdktest.NewClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
				s := outstandingStore(b, kind, n, clock)
				r := ledger.Reservation{Amount: big.NewInt(1000), PayTo: "0x0001", Rail: "x402 eip155:8453", Resource: "/item"}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					clock.Advance(time.Microsecond)
					id := ledger.NewHoldID()
					if err := s.Reserve(ctx, id, r); err != nil {
						b.Fatal(err)
					}
					if _, err := s.Mark(ctx, id, ledger.Released); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkOpen opens and configures a budget file holding 0 and 100,000 outstanding holds:
// what a process pays once, when it starts.
func BenchmarkOpen(b *testing.B) {
	for _, n := range []int{0, testenv.Outstanding(100_000)} {
		b.Run(fmt.Sprintf("outstanding=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "budget.db")
			now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
			if err := budgetfile.Fill(path, n, now); err != nil {
				b.Fatal(err)
			}
			clock := sdktest.NewClock(now)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				s, err := budgetfile.Open(path, budgetfile.WithClock(clock))
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Configure(b.Context(), reserveLimits()); err != nil {
					b.Fatal(err)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
