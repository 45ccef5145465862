package budgetfile_test

import (
	"fmt"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentapis/sdk/internal/ledger"
	"github.com/agentapis/sdk/x402/budgetfile"
)

// reserveLimits are the limits of BenchmarkReserve: every kind, none ever reached.
func reserveLimits() ledger.Limits {
	huge := new(big.Int).Lsh(big.NewInt(1), 100)
	return ledger.Limits{Total: huge, PerPayment: huge, PerPayee: huge, Windows: []ledger.Window{
		{Length: time.Hour, Amount: huge, Count: 1 << 40}, {Length: 24 * time.Hour, Count: 1 << 40},
	}}
}

// outstandingStore returns a configured store of kind ("memory" or "file") holding n
// outstanding holds as budgetfile.Fill makes them.
func outstandingStore(b *testing.B, kind string, n int, now time.Time) ledger.Store {
	ctx := b.Context()
	var s ledger.Store
	switch kind {
	case "memory":
		s = ledger.NewMemory()
		if err := s.Configure(ctx, reserveLimits()); err != nil {
			b.Fatal(err)
		}
		for i := range n {
			id, err := s.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(1000), PayTo: fmt.Sprintf("0x%04x", i%1000), Now: now})
			if err != nil {
				b.Fatal(err)
			}
			sig := ledger.Signing{ID: fmt.Sprintf("0x%08x", i), Expires: now.Add(time.Hour + time.Duration(i)*time.Second), Now: now}
			if err := s.Sign(ctx, id, sig); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Mark(ctx, id, []ledger.State{ledger.InDoubt, ledger.Refused}[i%2], now); err != nil {
				b.Fatal(err)
			}
		}
	case "file":
		path := filepath.Join(b.TempDir(), "budget.db")
		if err := budgetfile.Fill(path, n, now); err != nil {
			b.Fatal(err)
		}
		f, err := budgetfile.Open(path)
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
		for _, n := range []int{0, 100_000} {
			b.Run(fmt.Sprintf("store=%s/outstanding=%d", kind, n), func(b *testing.B) {
				ctx := b.Context()
				now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
				s := outstandingStore(b, kind, n, now)
				r := ledger.Reservation{Amount: big.NewInt(1000), PayTo: "0x0001", Rail: "x402 eip155:8453", Resource: "/item"}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					now = now.Add(time.Microsecond)
					r.Now = now
					id, err := s.Reserve(ctx, r)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := s.Mark(ctx, id, ledger.Released, now); err != nil {
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
	for _, n := range []int{0, 100_000} {
		b.Run(fmt.Sprintf("outstanding=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "budget.db")
			if err := budgetfile.Fill(path, n, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				s, err := budgetfile.Open(path)
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
