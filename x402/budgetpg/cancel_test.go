package budgetpg_test

import (
	"context"
	"io"
	"math/big"
	"math/rand/v2"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/budgetpg"
	"github.com/agentapis/sdk/x402/ledger"
)

// slowProxy forwards TCP connections to target, delaying what target sends back by delay:
// a server far away, whose answers arrive well after it committed. It stops when the test
// ends.
func slowProxy(t *testing.T, target string, delay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	t.Cleanup(func() {
		_ = ln.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				_ = client.Close()
				continue
			}
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, _ = io.Copy(server, client)
				_ = server.Close()
			}()
			go func() {
				defer wg.Done()
				delayedCopy(client, server, delay)
				_ = client.Close()
			}()
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return ln.Addr().String()
}

// delayedCopy copies src to dst, each chunk delay after it was read, in order.
func delayedCopy(dst io.Writer, src io.Reader, delay time.Duration) {
	type chunk struct {
		b  []byte
		at time.Time
	}
	chunks := make(chan chunk, 1024)
	go func() {
		defer close(chunks)
		buf := make([]byte, 64<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				chunks <- chunk{b: append([]byte(nil), buf[:n]...), at: time.Now().Add(delay)}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range chunks {
		time.Sleep(time.Until(c.at))
		if _, err := dst.Write(c.b); err != nil {
			for range chunks { // let the reader end
			}
			return
		}
	}
}

// Contexts that end at random points, before or while the statements run: a call that
// reached the database finishes and reports its real answer, so that what the calls report
// recorded is exactly what the store holds. The server's answers come back 30 ms late, so
// that many contexts end after PostgreSQL committed and before the answer arrives.
func TestCancelledContextsReportTheTruth(t *testing.T) {
	t.Parallel()
	dsn := requireDSN(t)
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		t.Skip("the test puts a proxy in a postgres:// DSN")
	}
	u.Host = slowProxy(t, u.Host, 30*time.Millisecond)
	q := u.Query()
	q.Set("pool_max_conns", "8")
	u.RawQuery = q.Encode()
	name := budgetName(t)
	s, err := budgetpg.Open(t.Context(), u.String(), budgetpg.WithName(name))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.NoError(t, s.Configure(t.Context(), ledger.Limits{}))

	type call struct {
		id               ledger.HoldID
		amount           int64
		reserved, signed bool
	}
	const workers, each = 8, 30 // 240 reservations and up to as many signatures
	calls := make([][]call, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			within := func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), time.Duration(1+rng.IntN(150))*time.Millisecond)
			}
			for i := range each {
				c := call{id: ledger.NewHoldID(), amount: int64(1 + i)}
				ctx, cancel := within()
				c.reserved = s.Reserve(ctx, c.id, ledger.Reservation{Amount: big.NewInt(c.amount), PayTo: "0xaa"}) == nil
				cancel()
				if c.reserved {
					ctx, cancel := within()
					c.signed = s.Sign(ctx, c.id, ledger.Signature{ID: c.id.String(), Expires: time.Now().Add(time.Hour)}) == nil
					cancel()
				}
				calls[w] = append(calls[w], c)
			}
		}()
	}
	wg.Wait()

	// The answers are read through another store of the budget, without the proxy's delay.
	ctx := t.Context()
	direct := openBudget(t, name, ledger.Limits{})
	held := new(big.Int)
	var reported, failed int
	for _, cs := range calls {
		for _, c := range cs {
			st, err := direct.HoldState(ctx, c.id)
			switch {
			case !c.reserved:
				failed++
				require.ErrorIs(t, err, ledger.ErrUnknownHold, "a reservation reported failed was not recorded")
			case c.signed:
				require.NoError(t, err)
				assert.Equal(t, ledger.Signed, st, "a signature reported recorded")
			default:
				require.NoError(t, err)
				assert.Equal(t, ledger.Reserved, st, "a signature reported failed was not recorded")
			}
			if c.reserved {
				reported++
				held.Add(held, big.NewInt(c.amount))
			}
		}
	}
	tot, err := direct.Totals(ctx)
	require.NoError(t, err)
	assert.Equal(t, held.String(), tot.Held.String(), "the store holds what the calls reported reserved")
	t.Logf("%d reservations reported recorded, %d failed", reported, failed)
	require.Positive(t, failed, "some contexts ended before their statement was sent")
	require.Positive(t, reported, "some calls went through")
}
