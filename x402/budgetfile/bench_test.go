package budgetfile_test

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/budgetfile"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/x402test"
)

// syncedMemory is the floor of a store that keeps the durability rule: the in-memory store,
// plus what no such store can skip, one write of a 4 KiB page to a file and one fsync of
// it before Sign returns (at offsets that wrap around 4 MiB, as SQLite's WAL does).
type syncedMemory struct {
	*ledger.Memory
	f    *os.File
	page []byte
	at   int64
}

// Sign signs in memory, then writes a page and waits for the disk.
func (s *syncedMemory) Sign(ctx context.Context, id ledger.HoldID, sig ledger.Signature) error {
	if err := s.Memory.Sign(ctx, id, sig); err != nil {
		return err
	}
	if _, err := s.f.WriteAt(s.page, s.at); err != nil {
		return err
	}
	s.at = (s.at + int64(len(s.page))) % (4 << 20)
	return s.f.Sync()
}

// stores are the sides of BenchmarkPaidFetch: each returns a new store for one benchmark,
// nil for the default in memory.
var stores = []struct {
	name string
	open func(b *testing.B) ledger.Store
}{
	{"store=memory", func(*testing.B) ledger.Store { return nil }},
	{"store=file", func(b *testing.B) ledger.Store {
		s, err := budgetfile.Open(filepath.Join(b.TempDir(), "budget.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		return s
	}},
	{"floor=memory+fsync", func(b *testing.B) ledger.Store {
		f, err := os.Create(filepath.Join(b.TempDir(), "pages"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = f.Close() })
		return &syncedMemory{Memory: ledger.NewMemory(sdk.SystemClock()), f: f, page: make([]byte, 4096)}
	}},
}

// BenchmarkPaidFetch fetches a paid resource through the x402test paywall with a budget in
// memory, in a file, and in memory plus one fsync per payment (the floor of any store that
// writes a signature's hold to the disk before the signature leaves), beside each other.
// Target: the file at most 1.3x the memory.
func BenchmarkPaidFetch(b *testing.B) {
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			srv := x402test.NewServer()
			b.Cleanup(srv.Close)
			key, err := crypto.GenerateKey()
			if err != nil {
				b.Fatal(err)
			}
			signer, err := evm.NewPrivateKeySigner(fmt.Sprintf("%x", crypto.FromECDSA(key)))
			if err != nil {
				b.Fatal(err)
			}
			srv.Facilitator().Fund(signer.Address(), new(big.Int).Lsh(big.NewInt(1), 100))
			scheme, err := evm.NewExact(signer)
			if err != nil {
				b.Fatal(err)
			}
			var opts []budget.Option
			if s := st.open(b); s != nil {
				opts = append(opts, budget.WithStore(s))
			}
			spend, err := budget.New(budget.Unlimited, opts...)
			if err != nil {
				b.Fatal(err)
			}
			payer, err := x402.NewPayer(x402.Policy{}, []x402.Scheme{scheme}, x402.WithBudget(spend))
			if err != nil {
				b.Fatal(err)
			}
			client := &http.Client{Transport: payer.RoundTripper(srv.Client().Transport)}
			url := srv.URL + "/item"
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				resp, err := client.Get(url)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatal(resp.Status)
				}
			}
		})
	}
}
