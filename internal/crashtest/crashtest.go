// Package crashtest is the crash test of a durable budget store: child processes (the test
// binary, run again) pay through an x402test paywall with the store and kill themselves
// with SIGKILL at chosen points of a payment; after each one the test opens the store again
// and checks its books against what the paywall's facilitator really settled. Every durable
// store of the SDK runs it from a test named TestCrash..., giving its own Open.
package crashtest

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/reconcile"
	"github.com/agentapis/sdk/x402/x402test"
)

// Config describes the store under test.
type Config struct {
	// Open opens the store at addr. It runs in the child processes, which pay with it, and
	// in the test between two children, to read the books.
	Open func(addr string) (ledger.Store, error)
	// NewAddr returns, in the test, where a new, empty store lives (a file's path, a DSN).
	// It is called once per round: each round pays from a budget of its own, with a payer of
	// its own, until its limit binds.
	NewAddr func(t *testing.T) string
	// Kills is the least number of children killed (default 200).
	Kills int
}

// Point is where in a payment a child kills itself.
type Point string

// The kill points, in the order a payment reaches them.
const (
	// BeforeReserve: the store is asked to reserve; nothing is recorded yet.
	BeforeReserve Point = "before reserve"
	// AfterReserve: the store recorded the reservation; nothing is signed.
	AfterReserve Point = "after reserve"
	// AfterSign: the store recorded the signature; nothing was sent.
	AfterSign Point = "after sign"
	// AfterSend: the paid request was written to the connection; no answer was read.
	AfterSend Point = "after send"
	// AfterAnswer: a 2xx answer to the paid request came; the commit is not recorded.
	AfterAnswer Point = "after answer"
	// AfterCommit: the store recorded the commit.
	AfterCommit Point = "after commit"
)

// Points are the kill points.
var Points = []Point{BeforeReserve, AfterReserve, AfterSign, AfterSend, AfterAnswer, AfterCommit}

const (
	// price is what the paywall charges for each request, in atomic units.
	price = x402test.DefaultPrice
	// budgetPayments is each round's budget, in payments: small, so that the limit binds.
	budgetPayments = 5
	// maxPayments bounds the payments of one child, far above what its budget allows.
	maxPayments = 10 * budgetPayments
	// childTimeout bounds one child's run.
	childTimeout = time.Minute
	// jobEnv names the environment variable that gives a child its job, as JSON.
	jobEnv = "CRASHTEST_JOB"
)

// job is what a child does: pay from the store at Addr with Key through the paywall at URL
// within MaxTotal, until the At-th time it reaches Point, and kill itself there.
type job struct {
	Addr     string
	URL      string
	Key      string
	MaxTotal int64
	Point    Point
	At       int
}

// IsChild reports whether this process is a child of a crash test: a package whose TestMain
// prepares something for its tests (a database schema) can skip it in a child, which only
// pays.
func IsChild() bool { return os.Getenv(jobEnv) != "" }

// Run runs the crash test in test t with the store cfg describes. In the test process it
// starts a paywall and runs rounds of children until cfg.Kills children were killed, the
// kill points taken in turn; in a child (the same test, run again by Run) it pays.
//
// After every child: the store's Spent plus Reserved is at least what the facilitator
// settled from the round's payer, its Spent at most that, and what the facilitator settled
// is at most the round's budget.
func Run(t *testing.T, cfg Config) {
	if spec := os.Getenv(jobEnv); spec != "" {
		runChild(cfg, spec)
		return
	}
	if cfg.Kills == 0 {
		cfg.Kills = 200
	}
	start := time.Now()
	srv := x402test.NewServer(x402test.WithPaywall(x402test.PaywallConfig{PayTo: x402test.DefaultPayTo, Amount: big.NewInt(price)}))
	t.Cleanup(srv.Close)
	c := &crash{t: t, cfg: cfg, srv: srv, kills: map[Point]int{}, pattern: runPattern(t.Name())}
	for c.total() < cfg.Kills {
		c.round()
	}
	// A request written just before its child was killed may have settled after the check
	// that followed: check every round again once the paywall is idle.
	require.NoError(t, waitIdle(srv))
	for _, r := range c.rounds {
		c.check(r)
		c.reconcile(r)
	}
	t.Logf("%d children killed in %d rounds (%d children, %d payments settled) in %s: %v",
		c.total(), len(c.rounds), c.children, len(srv.Facilitator().Settlements()), time.Since(start).Round(time.Millisecond), c.kills)
	for _, p := range Points {
		require.GreaterOrEqual(t, c.kills[p], cfg.Kills/len(Points), "kills at %s", p)
	}
}

// crash is the state of a crash test.
type crash struct {
	t        *testing.T
	cfg      Config
	srv      *x402test.Server
	pattern  string // the -test.run pattern of the test
	kills    map[Point]int
	children int
	rounds   []round
}

// round is one store and its payer.
type round struct {
	addr, payer string
}

// total returns the number of children killed.
func (c *crash) total() int {
	n := 0
	for _, k := range c.kills {
		n += k
	}
	return n
}

// round runs children on a new store, checking the books after each, until one finds the
// budget spent.
func (c *crash) round() {
	t := c.t
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	hexKey := hex.EncodeToString(crypto.FromECDSA(key))
	signer, err := evm.NewPrivateKeySigner(hexKey)
	require.NoError(t, err)
	r := round{addr: c.cfg.NewAddr(t), payer: signer.Address()}
	c.rounds = append(c.rounds, r)
	// Funded far beyond the budget: only the budget may stop the payments.
	c.srv.Facilitator().Fund(r.payer, big.NewInt(100*budgetPayments*price))
	for {
		j := job{Addr: r.addr, URL: c.srv.URL, Key: hexKey, MaxTotal: budgetPayments * price, Point: c.nextPoint(), At: 1 + rand.IntN(3)}
		killed := c.child(j)
		c.check(r)
		if !killed {
			return
		}
		c.kills[j.Point]++
	}
}

// nextPoint returns a kill point with the fewest kills so far, at random among them.
func (c *crash) nextPoint() Point {
	var least []Point
	for _, p := range Points {
		switch {
		case len(least) == 0 || c.kills[p] < c.kills[least[0]]:
			least = []Point{p}
		case c.kills[p] == c.kills[least[0]]:
			least = append(least, p)
		}
	}
	return least[rand.IntN(len(least))]
}

// child runs one child on j and reports whether it was killed at j.Point; false when it
// found the budget spent before it got there. Anything else fails the test.
func (c *crash) child(j job) (killed bool) {
	t := c.t
	c.children++
	spec, err := json.Marshal(j)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run="+c.pattern, "-test.count=1")
	// A child built with -race would sleep a second at its exit, waiting for reports.
	race := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	cmd.Env = append(os.Environ(), jobEnv+"="+string(spec), "GORACE="+race)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL && ctx.Err() == nil {
			require.Contains(t, out.String(), killedAt(j.Point), "the child was killed elsewhere than it was told")
			return true
		}
	}
	require.NoError(t, err, "child %+v:\n%s", j, out.String())
	require.Contains(t, out.String(), exhausted, "the child ended without spending its budget:\n%s", out.String())
	return false
}

// check opens round r's store and checks its books against the facilitator's.
func (c *crash) check(r round) {
	t := c.t
	s, err := c.cfg.Open(r.addr)
	require.NoError(t, err, "the store opens again at once after its process was killed")
	defer func() { require.NoError(t, s.Close()) }()
	books, err := budget.New(big.NewInt(budgetPayments*price), budget.WithStore(s))
	require.NoError(t, err)
	spent, reserved, err := books.Totals(t.Context())
	require.NoError(t, err)
	settled := new(big.Int)
	for _, st := range c.srv.Facilitator().Settlements() {
		if strings.EqualFold(st.From, r.payer) {
			settled.Add(settled, st.Value)
		}
	}
	counted := new(big.Int).Add(spent, reserved)
	require.True(t, counted.Cmp(settled) >= 0, "spent %s + reserved %s is less than the %s settled", spent, reserved, settled)
	require.True(t, spent.Cmp(settled) <= 0, "spent %s is more than the %s settled", spent, settled)
	require.True(t, settled.Cmp(big.NewInt(budgetPayments*price)) <= 0, "the facilitator settled %s, more than the budget", settled)
}

// reconcile reconciles the round's store against the facilitator, the chain of this test,
// and checks that the books then say exactly what settled: Spent equals the settled total,
// and what stays reserved is only what did not settle (whatever is still in doubt could still
// settle before it expires, and is kept).
func (c *crash) reconcile(r round) {
	t := c.t
	s, err := c.cfg.Open(r.addr)
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	books, err := budget.New(big.NewInt(budgetPayments*price), budget.WithStore(s))
	require.NoError(t, err)
	rec, err := reconcile.New(books, reconcile.WithLookup(c.srv.Facilitator()), reconcile.WithRate(1000))
	require.NoError(t, err)
	report, err := rec.Reconcile(t.Context())
	require.NoError(t, err)
	require.NoError(t, report.Err())
	spent, reserved, err := books.Totals(t.Context())
	require.NoError(t, err)
	settled := new(big.Int)
	for _, st := range c.srv.Facilitator().Settlements() {
		if strings.EqualFold(st.From, r.payer) {
			settled.Add(settled, st.Value)
		}
	}
	require.Equal(t, settled.String(), spent.String(), "after reconciling, spent is what settled (reserved %s)", reserved)
	outstanding, err := books.Outstanding(t.Context())
	require.NoError(t, err)
	for _, o := range outstanding {
		require.NotEqual(t, ledger.Reserved, o.State, "a reservation of a dead process was released on reopening")
	}
}

// waitIdle waits until the paywall has received no request for 200ms, or fails after 10s.
func waitIdle(srv *x402test.Server) error {
	deadline := time.Now().Add(10 * time.Second)
	last := -1
	for time.Now().Before(deadline) {
		n := len(srv.Requests())
		if n == last {
			return nil
		}
		last = n
		time.Sleep(200 * time.Millisecond)
	}
	return errors.New("crashtest: the paywall is still receiving requests")
}

// runPattern returns the -test.run pattern that selects exactly the test named name.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// The lines a child writes on its stdout.
const exhausted = "crashtest: the budget is spent"

// killedAt is the line a child writes before it kills itself at p.
func killedAt(p Point) string { return fmt.Sprintf("crashtest: killing myself %s", p) }
