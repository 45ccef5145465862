package ledgertest

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/ledger"
)

// differentialLimits returns limits under which every limit refuses often: with an even
// seed the total (seed%4 == 0) or the payees' limits, filled by holds in doubt and refused
// holds that expire; with an odd seed the windows.
func differentialLimits(seed uint64) ledger.Limits {
	if seed%2 == 0 {
		return ledger.Limits{
			Total:      amount(1500 + 1500*int64(seed/2%2)),
			PerPayment: amount(45),
			PerPayee:   amount(300),
			Payees:     map[string]*big.Int{"0xbb": amount(90)},
			Windows:    []ledger.Window{{Length: time.Minute, Count: 8}},
		}
	}
	return ledger.Limits{
		Total:      amount(1_000_000),
		PerPayment: amount(45),
		PerPayee:   amount(20_000),
		Windows: []ledger.Window{
			{Length: time.Minute, Amount: amount(100), Count: 5},
			{Length: 5 * time.Minute, Amount: amount(260)},
			{Length: 10 * time.Minute, Count: 14},
		},
	}
}

// Differential runs ops random operations, drawn from seed, on a store from open and on a
// Reference, with the same limits and times, and fails at the first answer that differs:
// a hold's state, a refusal (its limit, what is left, when it frees up), an error, the
// totals, the listing. The store's HoldIDs may differ from the reference's, but must grow
// with each reservation.
func Differential(t *testing.T, open Open, seed uint64, ops int) {
	differential(t, open, nil, seed, ops, 0)
}

// DifferentialReopen is Differential for a durable store: about once every `every`
// operations, it reopens the store (reopen) and the reference (Reference.Reopen), configures
// both with the same limits again, and goes on comparing, so that what a store restores
// from what it wrote (sums, windows, payees, expiries, signing ids) is checked too.
func DifferentialReopen(t *testing.T, open Open, reopen Reopen, seed uint64, ops, every int) {
	differential(t, open, reopen, seed, ops, every)
}

// differential runs Differential, reopening about once every `every` operations when
// reopen is set.
func differential(t *testing.T, open Open, reopen Reopen, seed uint64, ops, every int) {
	limits := differentialLimits(seed)
	got := configured(t, open, limits)
	ref := NewReference()
	require.NoError(t, ref.Configure(t.Context(), limits))
	want := &fixture{t: t, s: ref, ctx: t.Context()}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	d := &differ{t: t, got: got, want: want, rng: rng, now: t0, toRef: map[ledger.HoldID]ledger.HoldID{}, spends: seed%2 == 1}
	for i := range ops {
		d.step = i
		if reopen != nil && rng.IntN(every) == 0 {
			d.got = reopened(t, d.got, reopen, limits)
			d.want = &fixture{t: t, s: d.want.s.(*Reference).Reopen(), ctx: t.Context()}
			require.NoError(t, d.want.s.Configure(t.Context(), limits))
		}
		d.now = d.now.Add(time.Duration(rng.IntN(20_000)) * time.Millisecond)
		switch n := rng.IntN(100); {
		case n < 30:
			d.pay()
		case n < 45:
			d.reserve()
		case n < 60:
			d.sign(d.pick())
		case n < 80:
			d.randomMark()
		case n < 86:
			d.discard(d.pick())
		case n < 94:
			d.resolve()
		default:
			d.holdState()
		}
		d.compareTotals()
		if i%10 == 0 {
			d.compareOutstanding()
		}
	}
	d.compareOutstanding()
}

// differ drives a store and the reference in step.
type differ struct {
	t         *testing.T
	got, want *fixture
	rng       *rand.Rand
	now       time.Time
	step      int
	holds     []ledger.HoldID // the store's ids, in order
	toRef     map[ledger.HoldID]ledger.HoldID
	last      ledger.HoldID // the store's latest id
	signings  []string      // the signing ids used so far
	// spends lets holds be committed; without it the total and the payees' limits fill
	// with holds that free up, instead of with spent amounts that never do.
	spends bool
}

// fail stops the test at a difference.
func (d *differ) fail(format string, args ...any) {
	d.t.Helper()
	d.t.Fatalf("step %d at %s: %s", d.step, d.now.Format(time.RFC3339Nano), fmt.Sprintf(format, args...))
}

// pick returns the index in d.holds of a random hold, most often one of the latest (which
// are still outstanding more often); -1 when there is none.
func (d *differ) pick() int {
	n := len(d.holds)
	if n == 0 {
		return -1
	}
	if d.rng.IntN(5) > 0 {
		return max(0, n-1-d.rng.IntN(8))
	}
	return d.rng.IntN(n)
}

// ids returns the store's and the reference's id of hold i of d.holds.
func (d *differ) ids(i int) (ledger.HoldID, ledger.HoldID) { return d.holds[i], d.toRef[d.holds[i]] }

// payees are the payees the operations pay, some in several letter cases.
var payees = []string{"0xAA", "0xaa", "0xBb", "0xbb", "0xcc", "0xDD", "0xee", "0xff", "0x11", "0x22", "0x33", "0x44"}

// pay takes a new hold through a payment's usual course: reserved, signed, then mostly
// refused (to expire), sometimes discarded, left in doubt, committed or left signed.
func (d *differ) pay() {
	if !d.reserve() {
		return
	}
	d.sign(len(d.holds) - 1)
	outcomes := []ledger.State{ledger.Refused, ledger.Refused, ledger.Refused, ledger.Released, ledger.InDoubt, ledger.Signed, ledger.Committed}
	if !d.spends {
		outcomes = outcomes[:6]
	}
	switch to := outcomes[d.rng.IntN(len(outcomes))]; to {
	case ledger.Released:
		d.discard(len(d.holds) - 1)
	case ledger.Signed:
	default:
		d.mark(len(d.holds)-1, to)
	}
}

// reserve reserves a random amount to a random payee, and reports whether it was granted.
func (d *differ) reserve() bool {
	r := ledger.Reservation{Amount: amount(int64(d.rng.IntN(50))), PayTo: payees[d.rng.IntN(len(payees))],
		Rail: "test", Resource: fmt.Sprintf("/item/%d", d.step), Payer: fmt.Sprintf("0xpayer%d", d.step%3), Asset: "0xasset", Now: d.now}
	gid, gerr := d.got.s.Reserve(d.got.ctx, r)
	wid, werr := d.want.s.Reserve(d.want.ctx, r)
	d.sameError("Reserve", gerr, werr)
	if gerr != nil {
		return false
	}
	if gid <= d.last {
		d.fail("Reserve gave id %d after %d", gid, d.last)
	}
	d.last = gid
	d.holds = append(d.holds, gid)
	d.toRef[gid] = wid
	return true
}

// sign signs hold i with a new signing id (now and then one used before), expiring within
// three minutes (now and then already expired, or unknown).
func (d *differ) sign(i int) {
	if i < 0 {
		return
	}
	gid, wid := d.ids(i)
	s := ledger.Signing{ID: fmt.Sprintf("0x%x", d.step), Ref: fmt.Sprintf("ref %d", d.step), Now: d.now}
	if len(d.signings) > 0 && d.rng.IntN(10) == 0 {
		s.ID = d.signings[d.rng.IntN(len(d.signings))]
	}
	if d.rng.IntN(5) > 0 {
		s.Expires = d.now.Add(time.Duration(d.rng.IntN(240)-60) * time.Second)
	}
	gerr := d.got.s.Sign(d.got.ctx, gid, s)
	werr := d.want.s.Sign(d.want.ctx, wid, s)
	d.sameError("Sign", gerr, werr)
	if gerr == nil {
		d.signings = append(d.signings, s.ID)
	}
}

// randomMark moves a random hold to a random state (now and then Signed, which Mark
// refuses).
func (d *differ) randomMark() {
	moves := []ledger.State{ledger.Refused, ledger.InDoubt, ledger.Released, ledger.Signed, ledger.Committed}
	if !d.spends {
		moves = moves[:4]
	}
	d.mark(d.pick(), moves[d.rng.IntN(len(moves))])
}

// mark moves hold i to state to.
func (d *differ) mark(i int, to ledger.State) {
	if i < 0 {
		return
	}
	gid, wid := d.ids(i)
	gs, gerr := d.got.s.Mark(d.got.ctx, gid, to, d.now)
	ws, werr := d.want.s.Mark(d.want.ctx, wid, to, d.now)
	d.sameError("Mark "+to.String(), gerr, werr)
	if !isInput(gerr) && gs != ws {
		d.fail("Mark %s of hold %d: %s, want %s", to, gid, gs, ws)
	}
}

// discard discards hold i.
func (d *differ) discard(i int) {
	if i < 0 {
		return
	}
	gid, wid := d.ids(i)
	gs, gerr := d.got.s.Discard(d.got.ctx, gid, d.now)
	ws, werr := d.want.s.Discard(d.want.ctx, wid, d.now)
	d.sameError("Discard", gerr, werr)
	if gs != ws {
		d.fail("Discard of hold %d: %s, want %s", gid, gs, ws)
	}
}

// resolve resolves a random signing id, settled or not.
func (d *differ) resolve() {
	id := "0xnone"
	if len(d.signings) > 0 {
		id = d.signings[d.rng.IntN(len(d.signings))]
	}
	settled := d.spends && d.rng.IntN(3) == 0
	gerr := d.got.s.Resolve(d.got.ctx, id, settled, d.now)
	werr := d.want.s.Resolve(d.want.ctx, id, settled, d.now)
	d.sameError(fmt.Sprintf("Resolve %s settled=%v", id, settled), gerr, werr)
}

// holdState compares the state of a random hold.
func (d *differ) holdState() {
	i := d.pick()
	if i < 0 {
		return
	}
	gid, wid := d.ids(i)
	gs, gerr := d.got.s.HoldState(d.got.ctx, gid, d.now)
	ws, werr := d.want.s.HoldState(d.want.ctx, wid, d.now)
	d.sameError("HoldState", gerr, werr)
	if gs != ws {
		d.fail("HoldState of hold %d: %s, want %s", gid, gs, ws)
	}
}

// compareTotals compares the sums.
func (d *differ) compareTotals() {
	g, gerr := d.got.s.Totals(d.got.ctx, d.now)
	w, werr := d.want.s.Totals(d.want.ctx, d.now)
	d.sameError("Totals", gerr, werr)
	if g.Spent.Cmp(w.Spent) != 0 || g.Held.Cmp(w.Held) != 0 {
		d.fail("Totals: spent %s held %s, want spent %s held %s", g.Spent, g.Held, w.Spent, w.Held)
	}
}

// compareOutstanding compares the listings.
func (d *differ) compareOutstanding() {
	g, gerr := d.got.s.Outstanding(d.got.ctx, d.now)
	w, werr := d.want.s.Outstanding(d.want.ctx, d.now)
	d.sameError("Outstanding", gerr, werr)
	if len(g) != len(w) {
		d.fail("Outstanding lists %d holds, want %d", len(g), len(w))
	}
	for i := range g {
		ge, we := g[i], w[i]
		if d.toRef[ge.Hold] != we.Hold {
			d.fail("Outstanding[%d] is hold %d (reference %d), want reference %d", i, ge.Hold, d.toRef[ge.Hold], we.Hold)
		}
		ge.Hold = we.Hold
		if ge.Amount.Cmp(we.Amount) != 0 || ge.PayTo != we.PayTo || ge.Rail != we.Rail || ge.Resource != we.Resource ||
			ge.Payer != we.Payer || ge.Asset != we.Asset || ge.Ref != we.Ref ||
			!ge.Reserved.Equal(we.Reserved) || ge.ID != we.ID || !ge.Expires.Equal(we.Expires) || ge.State != we.State {
			d.fail("Outstanding[%d] = %+v, want %+v", i, ge, we)
		}
	}
}

// sentinels are the errors a store's answer is compared by.
var sentinels = []error{ledger.ErrSigned, ledger.ErrNotReserved, ledger.ErrDuplicateID, ledger.ErrUnknownHold,
	ledger.ErrUnknownID, ledger.ErrNotExpired, ledger.ErrConfigured, ledger.ErrNotConfigured, ledger.ErrClosed}

// sameError fails unless got and want are the same answer: both nil, the same refusal, both
// input errors, or the same sentinel.
func (d *differ) sameError(op string, got, want error) {
	d.t.Helper()
	var gr, wr *ledger.Refusal
	switch {
	case got == nil && want == nil:
		return
	case got == nil || want == nil:
		d.fail("%s: error %v, want %v", op, got, want)
	case errors.As(want, &wr):
		if !errors.As(got, &gr) || gr.Kind != wr.Kind || gr.Window != wr.Window || gr.PayTo != wr.PayTo ||
			gr.Max.Cmp(wr.Max) != 0 || gr.Left.Cmp(wr.Left) != 0 || !gr.RetryAt.Equal(wr.RetryAt) {
			d.fail("%s: %v, want %v", op, got, want)
		}
		return
	case isInput(want):
		if !isInput(got) {
			d.fail("%s: %v, want an input error (%v)", op, got, want)
		}
		return
	}
	for _, s := range sentinels {
		if errors.Is(got, s) != errors.Is(want, s) {
			d.fail("%s: %v, want %v", op, got, want)
		}
	}
}
