// Package budgettest runs the SDK's money tests on each budget store: the in-memory default,
// the SQLite file of x402/budgetfile and the PostgreSQL store of x402/budgetpg. A test picks a
// store itself (the fault soak runs on all three), or takes the one EnvStore names, so that
// the same suite runs again on each store:
//
//	SDK_TEST_BUDGET_STORE=file go test ./x402/ ./reportstore/ ./gpuprice/
package budgettest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/storehooks"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/budgetfile"
	"github.com/agentapis/sdk/x402/budgetpg"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/reconcile"
)

// Kind names a budget store.
type Kind string

// The stores a budget can be kept in.
const (
	Memory   Kind = "memory"
	File     Kind = "file"
	Postgres Kind = "postgres"
)

// Kinds lists every store, the default first.
var Kinds = []Kind{Memory, File, Postgres}

// EnvStore names the environment variable that picks the store of the money tests that do
// not pick one themselves: memory (the default), file or postgres.
const EnvStore = "SDK_TEST_BUDGET_STORE"

// EnvPostgresDSN names the environment variable that gives the tests their PostgreSQL
// database.
const EnvPostgresDSN = "SDK_TEST_POSTGRES_DSN"

// HowToRunPostgres says how to run the tests that need PostgreSQL.
const HowToRunPostgres = EnvPostgresDSN + " is not set: these tests need a PostgreSQL server. " +
	"To run them on Debian: apt-get install -y postgresql; pg_ctlcluster 15 main start; " +
	`su postgres -c "psql -c \"CREATE ROLE sdk LOGIN PASSWORD 'sdk-test-pw'\" -c 'CREATE DATABASE sdk_test OWNER sdk'"; ` +
	"export " + EnvPostgresDSN + "=postgres://sdk:sdk-test-pw@127.0.0.1:5432/sdk_test"

// Selected returns the store EnvStore names, Memory when it is unset. An unknown name fails
// the test: a typo must not quietly run the suite on the default store.
func Selected(t testing.TB) Kind {
	t.Helper()
	v := os.Getenv(EnvStore)
	if v == "" {
		return Memory
	}
	for _, k := range Kinds {
		if Kind(v) == k {
			return k
		}
	}
	t.Fatalf("%s=%q: want one of %v", EnvStore, v, Kinds)
	return ""
}

// PostgresDSN returns the DSN of the tests' PostgreSQL database. Without one it skips the
// test, but fails it in CI (CI set), where the server must be there.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvPostgresDSN)
	if dsn == "" {
		if os.Getenv("CI") != "" {
			t.Fatal(HowToRunPostgres)
		}
		t.Skip(HowToRunPostgres)
	}
	return dsn
}

// budgets numbers the budgets this process makes in PostgreSQL.
var budgets atomic.Int64

// Store returns a new, empty store of kind deciding with clock (nil: its own), closed when the
// test ends; nil for Memory, the budget's default (whose clock is the budget's WithClock).
func Store(t testing.TB, kind Kind, clock sdk.Clock) ledger.Store {
	t.Helper()
	var (
		s interface {
			ledger.Store
			Close() error
		}
		err error
	)
	switch kind {
	case Memory:
		return nil
	case File:
		var opts []budgetfile.Option
		if clock != nil {
			opts = append(opts, budgetfile.WithClock(clock))
		}
		s, err = budgetfile.Open(filepath.Join(t.TempDir(), "budget.db"), opts...)
	case Postgres:
		name := fmt.Sprintf("%s#%d#%d", t.Name(), os.Getpid(), budgets.Add(1))
		var pg *budgetpg.Store
		if pg, err = budgetpg.Open(t.Context(), PostgresDSN(t), budgetpg.WithName(name)); err == nil && clock != nil {
			storehooks.PostgresClock(pg, clock)
		}
		s = pg
	default:
		t.Fatalf("unknown budget store %q", kind)
	}
	if err != nil {
		t.Fatalf("open the %s budget store: %v", kind, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close the %s budget store: %v", kind, err)
		}
	})
	return s
}

// NewBudget returns a budget capped at limit (budget.Unlimited: no total) kept in a new store
// of kind, which decides with clock (nil: the store's own).
func NewBudget(t testing.TB, kind Kind, limit *big.Int, clock sdk.Clock, opts ...budget.Option) *budget.Budget {
	t.Helper()
	if s := Store(t, kind, clock); s != nil {
		opts = append([]budget.Option{budget.WithStore(s)}, opts...)
	} else if clock != nil {
		opts = append([]budget.Option{budget.WithClock(clock)}, opts...)
	}
	b, err := budget.New(limit, opts...)
	if err != nil {
		t.Fatalf("new budget on the %s store: %v", kind, err)
	}
	return b
}

// ForPayer returns policy and the options that make a payer draw on a budget kept in the
// store EnvStore names, capped at policy.MaxTotal, on clock (nil: the store's own). On the
// default, in memory, they are policy as it is and no option: the payer makes its own budget,
// as a program without WithBudget does. On another store, they are policy without MaxTotal and
// WithBudget; a WithBudget the caller appends after them wins.
func ForPayer(t testing.TB, policy x402.Policy, clock sdk.Clock) (x402.Policy, []x402.PayerOption) {
	t.Helper()
	kind := Selected(t)
	if kind == Memory {
		return policy, nil
	}
	b := NewBudget(t, kind, policy.MaxTotal, clock)
	policy.MaxTotal = nil
	return policy, []x402.PayerOption{x402.WithBudget(b)}
}

// figures is what reports a budget's figures: a *budget.Budget, an *x402.Payer.
type figures interface {
	Spent(ctx context.Context) (*big.Int, error)
	Reserved(ctx context.Context) (*big.Int, error)
	Outstanding(ctx context.Context) ([]ledger.Outstanding, error)
}

// Spent returns what b spent, failing the test when its store cannot say.
func Spent(t testing.TB, b figures) *big.Int {
	t.Helper()
	v, err := b.Spent(context.Background())
	if err != nil {
		t.Fatalf("spent: %v", err)
	}
	return v
}

// Reserved returns what b holds, failing the test when its store cannot say.
func Reserved(t testing.TB, b figures) *big.Int {
	t.Helper()
	v, err := b.Reserved(context.Background())
	if err != nil {
		t.Fatalf("reserved: %v", err)
	}
	return v
}

// Outstanding returns the payments b holds, failing the test when its store cannot say.
func Outstanding(t testing.TB, b figures) []ledger.Outstanding {
	t.Helper()
	v, err := b.Outstanding(context.Background())
	if err != nil {
		t.Fatalf("outstanding: %v", err)
	}
	return v
}

// HoldIn reserves amount to payTo in b and takes the hold to state: signed, refused and in
// doubt with an expiry a minute after clock's time; the limit tests leave a hold in every
// state before they change what a store holds.
func HoldIn(t testing.TB, b *budget.Budget, amount int64, payTo string, state ledger.State, clock sdk.Clock) *budget.Hold {
	t.Helper()
	ctx := t.Context()
	h, err := b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(amount), PayTo: payTo})
	must(t, "reserve", err)
	switch state {
	case ledger.Reserved:
		return h
	case ledger.Released:
		must(t, "release", h.Release(ctx))
		return h
	}
	must(t, "sign", h.Sign(ctx, ledger.Signature{ID: "0x" + h.ID().String(), Expires: clock.Now().Add(time.Minute)}))
	switch state {
	case ledger.Refused:
		must(t, "refused", h.Refused(ctx))
	case ledger.InDoubt:
		must(t, "in doubt", h.InDoubt(ctx))
	case ledger.Committed:
		must(t, "commit", h.Commit(ctx))
	}
	return h
}

// LimitError reserves amount to payTo in b and returns the refusal, failing the test unless
// a limit refuses it.
func LimitError(t testing.TB, b *budget.Budget, amount int64, payTo string) *budget.LimitError {
	t.Helper()
	_, err := b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(amount), PayTo: payTo})
	var le *budget.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("reserving %d to %s: want a *budget.LimitError, got %v", amount, payTo, err)
	}
	return le
}

// must fails the test when err, what doing did, is not nil.
func must(t testing.TB, doing string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", doing, err)
	}
}

// RetryAt reserves 1 in b and returns the zero time, or, when a window of a count refuses
// it, the time the window says enough frees up (UTC); any other refusal fails the test.
func RetryAt(t testing.TB, b *budget.Budget) time.Time {
	t.Helper()
	_, err := b.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(1), PayTo: "0xwindow"})
	if err == nil {
		return time.Time{}
	}
	var le *budget.LimitError
	if !errors.As(err, &le) || !errors.Is(err, budget.ErrPaymentCountExceeded) || le.RetryAt.IsZero() {
		t.Fatalf("want a full window of a count with a time to retry at, got %v", err)
	}
	return le.RetryAt.UTC()
}

// Process is one process's payer on a shared budget, as the tests of processes whose clocks
// disagree run them: it pays with its scheme on its own clock, draws on Budget and sends
// each payment once.
type Process struct {
	Budget *budget.Budget
	client *http.Client
}

// NewProcess returns the process paying with scheme on clock from b, reaching the server
// through next.
func NewProcess(t testing.TB, b *budget.Budget, scheme x402.Scheme, clock sdk.Clock, next http.RoundTripper) *Process {
	t.Helper()
	payer, err := x402.NewPayer(x402.Policy{}, []x402.Scheme{scheme}, x402.WithBudget(b), x402.WithClock(clock), x402.WithResend(0, 0))
	must(t, "new payer", err)
	return &Process{Budget: b, client: &http.Client{Transport: payer.RoundTripper(next)}}
}

// Get pays for url: nil for a 200 answer, else the payer's error; any other answer fails
// the test.
func (p *Process) Get(t testing.TB, url string) error {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	must(t, "new request", err)
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	return nil
}

// Rejected pays for url and returns the server's refusal, failing the test on any other
// outcome.
func (p *Process) Rejected(t testing.TB, url string) *x402.PaymentRejectedError {
	t.Helper()
	err := p.Get(t, url)
	var rej *x402.PaymentRejectedError
	if !errors.As(err, &rej) {
		t.Fatalf("GET %s: want a *x402.PaymentRejectedError, got %v", url, err)
	}
	return rej
}

// PayAhead makes the payments of a process whose clock reads ahead, before it ends, as the
// tests of a clock thirty years ahead leave them on p: two of price go through (on a rail
// that does not check their time), one the server at url refuses, one is left reserved and
// one signed as 0xsigned, expiring a minute after clock's time. It returns the refusal.
func PayAhead(t testing.TB, p *Process, clock sdk.Clock, price int64, payTo, url string) *x402.PaymentRejectedError {
	t.Helper()
	for range 2 {
		HoldIn(t, p.Budget, price, payTo, ledger.Committed, clock)
	}
	rej := p.Rejected(t, url)
	_, err := p.Budget.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(price), PayTo: payTo})
	must(t, "reserve", err)
	signed, err := p.Budget.Reserve(t.Context(), ledger.Reservation{Amount: big.NewInt(price), PayTo: payTo})
	must(t, "reserve", err)
	must(t, "sign", signed.Sign(t.Context(), ledger.Signature{ID: "0xsigned", Expires: clock.Now().Add(time.Minute)}))
	return rej
}

// TraceOfAhead checks what a process on time finds in b after PayAhead, whose clock read
// ahead: the two payments that went through are Spent; the refused one and the one in doubt
// are Reserved (the reservation was released) and outstanding, expiring a minute after ahead,
// by the clock that signed them. It returns the two, the refused one first.
func TraceOfAhead(t testing.TB, b *budget.Budget, price int64, ahead time.Time) []ledger.Outstanding {
	t.Helper()
	spent, reserved, err := b.Totals(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 2*price, spent.Int64(), "what went through")
	assert.Equal(t, 2*price, reserved.Int64(), "the refused payment and the one in doubt; the reservation was released")
	out, err := b.Outstanding(t.Context())
	require.NoError(t, err)
	require.Len(t, out, 2)
	assert.Equal(t, ledger.Refused, out[0].State)
	assert.True(t, ahead.Add(time.Minute).Equal(out[0].Expires), "expires by the clock that signed it: %s", out[0].Expires)
	assert.Equal(t, ledger.InDoubt, out[1].State)
	assert.Equal(t, "0xsigned", out[1].ID)
	return out
}

// AssertTotals checks what b has spent and holds.
func AssertTotals(t testing.TB, b *budget.Budget, spent, reserved int64) {
	t.Helper()
	s, r, err := b.Totals(t.Context())
	require.NoError(t, err)
	assert.Equal(t, big.NewInt(spent).String(), s.String(), "spent")
	assert.Equal(t, big.NewInt(reserved).String(), r.String(), "reserved")
}

// IDs returns the payment ids of a reconciliation's resolutions, in order.
func IDs(rs []reconcile.Resolution) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}
