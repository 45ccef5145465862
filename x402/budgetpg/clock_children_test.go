package budgetpg_test

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/budgetpg"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/x402test"
)

// The environment of a clocked child: how far its clock is off, and the length of its
// budget's window (which holds two payments).
const (
	envOffset = "BUDGETPG_TEST_CLOCK_OFFSET"
	envWindow = "BUDGETPG_TEST_WINDOW"
)

// init lets a child process play a process whose clock is off.
func init() { roles["clocked"] = clockedChild }

// clockedAnswer is what a clocked child answers to a command, as one line of JSON. Times
// are Unix nanoseconds.
type clockedAnswer struct {
	// Outcome is "ready", "paid", "rejected" (the server refused the payment), "limit" (the
	// budget refused it), "ok", or "error" (with Err).
	Outcome   string `json:",omitempty"`
	Reason    string `json:",omitempty"`
	RetryAt   int64  `json:",omitempty"`
	HeldUntil int64  `json:",omitempty"`
	Expires   int64  `json:",omitempty"`
	Spent     string `json:",omitempty"`
	Reserved  string `json:",omitempty"`
	Err       string `json:",omitempty"`
}

// clockedChild is a process whose clock is off by BUDGETPG_TEST_CLOCK_OFFSET: its payer
// signs by that clock, on a Budget in the shared PostgreSQL budget (a total of
// BUDGETPG_TEST_TOTAL, two payments in any BUDGETPG_TEST_WINDOW). It says it is ready, then
// answers each command of its standard input with a line:
//
//	pay PATH        pays for PATH at the server
//	probe           reserves 1 and releases it at once
//	totals          says what was spent and what is reserved
//	refuse N D      reserves N, signs a payment expiring D after its clock's time, books it refused
func clockedChild(ctx context.Context) error {
	off, err := time.ParseDuration(os.Getenv(envOffset))
	if err != nil {
		return err
	}
	window, err := time.ParseDuration(os.Getenv(envWindow))
	if err != nil {
		return err
	}
	total, ok := new(big.Int).SetString(os.Getenv(envTotal), 10)
	if !ok {
		return errors.New("no total")
	}
	store, err := budgetpg.Open(ctx, os.Getenv(envDSN), budgetpg.WithName(os.Getenv(envBudget)))
	if err != nil {
		return err
	}
	defer store.Close()
	b, err := budget.New(total, budget.WithStore(store), budget.WithWindowLimit(window, nil, 2))
	if err != nil {
		return err
	}
	clock := offClock{sdk.SystemClock(), off}
	signer, err := evm.NewPrivateKeySigner(os.Getenv(envKey))
	if err != nil {
		return err
	}
	scheme, err := evm.NewExact(signer)
	if err != nil {
		return err
	}
	payer, err := x402.NewPayer(x402.Policy{}, []x402.Scheme{scheme}, x402.WithBudget(b), x402.WithClock(clock), x402.WithResend(0, 0))
	if err != nil {
		return err
	}
	client := &http.Client{Transport: payer.RoundTripper(nil), Timeout: 30 * time.Second}
	out := json.NewEncoder(os.Stdout)
	if err := out.Encode(clockedAnswer{Outcome: "ready"}); err != nil {
		return err
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		a, err := clockedCommand(ctx, strings.Fields(in.Text()), b, client, clock)
		if err != nil {
			a = clockedAnswer{Outcome: "error", Err: err.Error()}
		}
		if err := out.Encode(a); err != nil {
			return err
		}
	}
	return in.Err()
}

// clockedCommand runs one command of a clocked child.
func clockedCommand(ctx context.Context, cmd []string, b *budget.Budget, client *http.Client, clock sdk.Clock) (clockedAnswer, error) {
	var limit *budget.LimitError
	switch {
	case len(cmd) == 2 && cmd[0] == "pay":
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, os.Getenv(envURL)+cmd[1], nil)
		if err != nil {
			return clockedAnswer{}, err
		}
		resp, err := client.Do(req)
		var rej *x402.PaymentRejectedError
		var pe *x402.PolicyError
		switch {
		case err == nil:
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return clockedAnswer{}, fmt.Errorf("status %d", resp.StatusCode)
			}
			return clockedAnswer{Outcome: "paid"}, nil
		case errors.As(err, &rej):
			return clockedAnswer{Outcome: "rejected", Reason: rej.Reason, HeldUntil: rej.HeldUntil.UnixNano()}, nil
		case errors.As(err, &pe):
			return clockedAnswer{Outcome: "limit", Reason: pe.Rule.Error(), RetryAt: unixNanos(pe.RetryAt)}, nil
		}
		return clockedAnswer{}, err
	case len(cmd) == 1 && cmd[0] == "probe":
		h, err := b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(1), PayTo: "0xprobe"})
		if errors.As(err, &limit) {
			return clockedAnswer{Outcome: "limit", Reason: limit.Rule.Error(), RetryAt: unixNanos(limit.RetryAt)}, nil
		}
		if err != nil {
			return clockedAnswer{}, err
		}
		return clockedAnswer{Outcome: "ok"}, h.Release(ctx)
	case len(cmd) == 1 && cmd[0] == "totals":
		spent, reserved, err := b.Totals(ctx)
		if err != nil {
			return clockedAnswer{}, err
		}
		return clockedAnswer{Outcome: "ok", Spent: spent.String(), Reserved: reserved.String()}, nil
	case len(cmd) == 3 && cmd[0] == "refuse":
		n, err := strconv.ParseInt(cmd[1], 10, 64)
		if err != nil {
			return clockedAnswer{}, err
		}
		d, err := time.ParseDuration(cmd[2])
		if err != nil {
			return clockedAnswer{}, err
		}
		h, err := b.Reserve(ctx, ledger.Reservation{Amount: big.NewInt(n), PayTo: "0xrefusing"})
		if err != nil {
			return clockedAnswer{}, err
		}
		expires := clock.Now().Add(d)
		if err := h.Sign(ctx, ledger.Signature{ID: "0x" + h.ID().String(), Expires: expires}); err != nil {
			return clockedAnswer{}, err
		}
		return clockedAnswer{Outcome: "ok", Expires: expires.UnixNano()}, h.Refused(ctx)
	}
	return clockedAnswer{}, fmt.Errorf("unknown command %q", cmd)
}

// unixNanos returns t in Unix nanoseconds, 0 for the zero time.
func unixNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// ask sends cmd to a clocked child and returns its answer, failing the test on an error.
func (c *child) ask(t *testing.T, cmd string) clockedAnswer {
	t.Helper()
	_, err := io.WriteString(c.in, cmd+"\n")
	require.NoError(t, err)
	var a clockedAnswer
	require.NoError(t, json.Unmarshal([]byte(c.line(t, 30*time.Second)), &a), "the answer to %q", cmd)
	require.NotEqual(t, "error", a.Outcome, "%q: %s", cmd, a.Err)
	return a
}

// newHexKey returns a new EVM private key in hex, which the secret scan knows, and its
// address.
func newHexKey(t *testing.T) (key, address string) {
	t.Helper()
	k, err := crypto.GenerateKey()
	require.NoError(t, err)
	key = hex.EncodeToString(crypto.FromECDSA(k))
	scan.Add(key)
	signer, err := evm.NewPrivateKeySigner(key)
	require.NoError(t, err)
	return key, signer.Address()
}

// Two processes of their own share a budget in PostgreSQL, one with its clock an hour
// ahead of the machine's (its payer signs by it, so the facilitator refuses its
// authorizations as not valid yet, and they expire an hour late), the other on time. The
// budget decides with PostgreSQL's own clock (clock_timestamp()), whichever process acts:
// each decision is bracketed by two readings of that clock, taken before the command is sent
// and after its answer came back. A window of two payments in 2 s refuses both processes
// until PostgreSQL's clock has moved it, and lets them in once it has; a refused hold counts
// in both until PostgreSQL's clock passes its deadline, and no longer, although the process
// ahead reads a time past it all along.
func TestProcessesWithClocksAnHourApartShareOneClock(t *testing.T) {
	t.Parallel()
	const price, window = x402test.DefaultPrice, 2 * time.Second
	name := budgetName(t)
	srv := x402test.NewServer()
	t.Cleanup(srv.Close)
	aheadKey, aheadAddress := newHexKey(t)
	rightKey, rightAddress := newHexKey(t)
	srv.Facilitator().Fund(aheadAddress, big.NewInt(100*price))
	srv.Facilitator().Fund(rightAddress, big.NewInt(100*price))
	env := []string{envURL + "=" + srv.URL, envTotal + "=" + strconv.Itoa(100*price), envWindow + "=" + window.String()}
	ahead := startChild(t, "clocked", name, append(env, envKey+"="+aheadKey, envOffset+"=1h")...)
	right := startChild(t, "clocked", name, append(env, envKey+"="+rightKey, envOffset+"=0s")...)
	children := []*child{ahead, right}
	who := map[*child]string{ahead: "the process an hour ahead", right: "the process on time"}
	for _, c := range children {
		var a clockedAnswer
		require.NoError(t, json.Unmarshal([]byte(c.line(t, 30*time.Second)), &a))
		require.Equal(t, "ready", a.Outcome, who[c])
	}
	db := admin(t)
	pgNow := func() time.Time { // PostgreSQL's clock, read as the store's functions read it
		t.Helper()
		var n int64
		require.NoError(t, db.QueryRow(t.Context(), "SELECT x402_budget_now(NULL)").Scan(&n))
		return time.Unix(0, n)
	}

	// The test reads the budget through a store of its own.
	observer, err := budgetpg.Open(t.Context(), requireDSN(t), budgetpg.WithName(name))
	require.NoError(t, err)
	t.Cleanup(func() { _ = observer.Close() })
	b, err := budget.New(big.NewInt(100*price), budget.WithStore(observer), budget.WithWindowLimit(window, nil, 2))
	require.NoError(t, err)

	// The process on time pays; the one ahead signs an authorization valid from 50 minutes
	// later, which the facilitator refuses. Both holds are reserved at PostgreSQL's time.
	before := pgNow()
	require.Equal(t, "paid", right.ask(t, "pay /right/1").Outcome)
	paid := pgNow()
	a := ahead.ask(t, "pay /ahead/1")
	reservedBy := pgNow()
	require.Equal(t, "rejected", a.Outcome)
	assert.Equal(t, evm.ReasonValidAfter, a.Reason)
	heldUntil := time.Unix(0, a.HeldUntil)
	assert.True(t, heldUntil.After(reservedBy.Add(time.Hour+ledger.ExpiryMargin)),
		"the refused authorization counts until an hour later than one signed on time: %s", heldUntil)
	out, err := b.Outstanding(t.Context())
	require.NoError(t, err)
	require.Len(t, out, 1)
	assert.Equal(t, ledger.Refused, out[0].State)
	assert.False(t, out[0].Reserved.Before(paid) || out[0].Reserved.After(reservedBy),
		"reserved at %s on PostgreSQL's clock, which read %s to %s meanwhile", out[0].Reserved, paid, reservedBy)

	// The window is full until PostgreSQL's clock reads the first payment's time plus 2 s.
	var retryAt time.Time
	admitted, refused := map[*child]bool{}, map[*child]bool{}
	probes := 0
	for i := 0; !admitted[ahead] || !admitted[right]; i++ {
		probes++
		c := children[i%2]
		from := pgNow()
		a := c.ask(t, "probe")
		to := pgNow()
		switch a.Outcome {
		case "limit":
			at := time.Unix(0, a.RetryAt)
			if retryAt.IsZero() {
				retryAt = at
				assert.False(t, at.Add(-window).Before(before) || at.Add(-window).After(paid),
					"the window frees up %s after the first payment, reserved between %s and %s: %s", window, before, paid, at)
			}
			assert.True(t, retryAt.Equal(at), "%s: the window frees up at %s, not %s", who[c], retryAt, at)
			assert.True(t, from.Before(retryAt), "%s was refused at %s or later, when the window had moved at %s", who[c], from, retryAt)
			refused[c] = true
		case "ok":
			require.False(t, retryAt.IsZero(), "the first probe, at once, was refused")
			assert.False(t, to.Before(retryAt), "%s was let in by %s, before the window moved at %s", who[c], to, retryAt)
			admitted[c] = true
		default:
			t.Fatalf("%s: %+v", who[c], a)
		}
		require.False(t, to.After(retryAt.Add(10*time.Second)), "the window never let both processes in")
		time.Sleep(10 * time.Millisecond)
	}
	assert.True(t, refused[ahead] && refused[right], "both processes were refused before the window moved")

	// A payment signed on time and refused, whose deadline is 2 s away on PostgreSQL's clock,
	// counts in both processes until that clock passes it: the one ahead reads an hour later
	// all along.
	margin := ledger.ExpiryMargin
	a = right.ask(t, "refuse 7 "+(2*time.Second-margin).String())
	deadline := time.Unix(0, a.Expires).Add(margin)
	counted, freed := map[*child]bool{}, map[*child]bool{}
	looks := 0
	for i := 0; !freed[ahead] || !freed[right]; i++ {
		looks++
		c := children[i%2]
		from := pgNow()
		a := c.ask(t, "totals")
		to := pgNow()
		assert.Equal(t, strconv.Itoa(price), a.Spent, who[c])
		switch a.Reserved {
		case strconv.Itoa(price + 7):
			assert.False(t, from.After(deadline), "%s counted the refused hold at %s or later, after its deadline %s", who[c], from, deadline)
			counted[c] = true
		case strconv.Itoa(price):
			assert.True(t, to.After(deadline), "%s freed the refused hold by %s, before its deadline %s", who[c], to, deadline)
			freed[c] = true
		default:
			t.Fatalf("%s reserves %s", who[c], a.Reserved)
		}
		require.False(t, to.After(deadline.Add(10*time.Second)), "the refused hold never expired")
		time.Sleep(10 * time.Millisecond)
	}
	assert.True(t, counted[ahead], "the process ahead counted the refused hold while its clock read past the deadline")
	t.Logf("%d probes of the window, %d looks at the refused hold", probes, looks)

	for _, c := range children {
		a := c.ask(t, "totals")
		assert.Equal(t, strconv.Itoa(price), a.Reserved, "%s: the refused authorization of the process ahead counts until it expires", who[c])
		require.NoError(t, c.in.Close())
		c.wait(t, 30*time.Second)
	}
}
