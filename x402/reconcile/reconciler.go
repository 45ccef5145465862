package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/ledger"
)

// Defaults of a Reconciler.
const (
	// DefaultRate is how many lookups a second a Reconciler sends by default: gentle with
	// public endpoints, which allow a few requests a second per client. A lookup is a few
	// requests to each of its nodes: an EVM lookup sends, per endpoint, one batch of two
	// block headers (the latest and the finalized), one batch of the payments' state, and
	// for the payments found used or releasable a few headers (the first block they could
	// settle in, found by its time) and the AuthorizationUsed events of that range, one
	// request per range the node accepts; a Solana lookup the block height and the
	// statuses. A caller with a node of its own raises the rate and the batch: 10,000
	// payments reconcile in seconds against a local node (WithBatch(500), WithRate(100)).
	DefaultRate = 1.0
	// DefaultBatch is how many payments one lookup covers by default.
	DefaultBatch = 20
	// DefaultLookupTimeout bounds one lookup by default.
	DefaultLookupTimeout = 30 * time.Second
)

// Reconciler resolves the payments a Budget holds in doubt by asking their chains. A
// payment whose answer was lost (a dropped connection after the server settled it, a
// crash) stays counted in the budget until someone finds out what became of it; a
// Reconciler does that, on demand (Reconcile) or in the background (Run).
//
// It looks at the payments the budget lists as in doubt or refused (Budget.Outstanding, so
// also those a durable store kept across a restart) and asks the lookup of each one's rail
// (WithLookup): evm.Lookup for the x402 authorizations of an EVM network, svm.Lookup for
// the payments on Solana, or a lookup of the caller's. A payment found settled is committed;
// one found unable to settle is released once its expiry, plus ledger.ExpiryMargin, has
// passed on the reconciler's clock; anything else stays as it is.
//
// Nothing is ever released because of an error: a lookup that fails, times out or answers
// something it cannot read leaves every payment it covered as it is, and so does a payment
// no lookup handles. Nothing that could still settle is released, whatever a lookup says: a
// release needs the lookup's word that the payment cannot settle any more and the payment's
// expiry, plus the margin, past on the reconciler's clock (the budget's store checks the
// expiry again, on its own clock).
//
// Lookups are batched (WithBatch) and paced (WithRate), and each is bounded in time
// (WithLookupTimeout). A Reconciler is safe for concurrent use; its reconciliations run one
// at a time.
type Reconciler struct {
	budget  *budget.Budget
	lookups []Lookup
	limiter *rate.Limiter
	batch   int
	timeout time.Duration
	logger  *slog.Logger
	clock   sdk.Clock
	mu      sync.Mutex // one reconciliation at a time
}

// Option configures a Reconciler.
type Option func(*Reconciler) error

// WithLookup adds the lookup of the rails l handles. When several lookups handle a rail, the
// first given is used.
func WithLookup(l Lookup) Option {
	return func(r *Reconciler) error {
		if l == nil {
			return invalid("lookup", "must not be nil")
		}
		r.lookups = append(r.lookups, l)
		return nil
	}
}

// WithRate sets how many lookups a second the Reconciler sends at most (default
// DefaultRate).
func WithRate(perSecond float64) Option {
	return func(r *Reconciler) error {
		if !(perSecond > 0) || math.IsInf(perSecond, 0) {
			return invalid("reconcile rate", "must be a positive number of lookups a second")
		}
		r.limiter = rate.NewLimiter(rate.Limit(perSecond), 1)
		return nil
	}
}

// WithBatch sets how many payments one lookup covers at most (default DefaultBatch): the
// calls of one JSON-RPC batch for EVM payments, the signatures of one getSignatureStatuses
// for Solana ones (which takes up to 256).
func WithBatch(n int) Option {
	return func(r *Reconciler) error {
		if n < 1 {
			return invalid("reconcile batch", "must be at least 1")
		}
		r.batch = n
		return nil
	}
}

// WithLookupTimeout bounds each lookup (default DefaultLookupTimeout); one that takes
// longer fails and leaves its payments as they are, and its rail is not asked again in the
// same reconciliation (see ErrUnreachable): a dead node costs one such wait.
func WithLookupTimeout(d time.Duration) Option {
	return func(r *Reconciler) error {
		if d <= 0 {
			return invalid("lookup timeout", "must be positive")
		}
		r.timeout = d
		return nil
	}
}

// WithLogger logs each resolution and each failed lookup to l: metadata only (rail, payee,
// amount, outcome, until when a payment stays in doubt), never a payment's identifier, which
// for a Solana purchase redeems a key. Without it nothing is logged.
func WithLogger(l *slog.Logger) Option {
	return func(r *Reconciler) error {
		r.logger = l
		return nil
	}
}

// WithClock sets the clock that decides whether a payment has expired and paces the lookups
// (default: the budget's, budget.Budget.Clock). The budget's store checks the expiry on its
// own clock too, so a payment is released only when both say it has expired.
func WithClock(c sdk.Clock) Option {
	return func(r *Reconciler) error {
		if c == nil {
			return invalid("reconcile clock", "must not be nil")
		}
		r.clock = c
		return nil
	}
}

// New returns a reconciler of b's payments. An invalid option is a *sdk.ValidationError.
func New(b *budget.Budget, opts ...Option) (*Reconciler, error) {
	if b == nil {
		return nil, invalid("budget", "must not be nil")
	}
	r := &Reconciler{
		budget:  b,
		limiter: rate.NewLimiter(rate.Limit(DefaultRate), 1),
		batch:   DefaultBatch,
		timeout: DefaultLookupTimeout,
		clock:   b.Clock(),
	}
	if err := httpcore.Configure("x402", r, opts); err != nil {
		return nil, err
	}
	return r, nil
}

// Report says what one reconciliation did.
type Report struct {
	// Committed lists the payments found settled: their amounts moved to Spent.
	Committed []Resolution
	// Released lists the payments found unable to settle after their expiry: their
	// amounts were given back.
	Released []Resolution
	// Pending lists the payments looked at that stay counted: still able to settle, not
	// yet expired, or left as they were because their lookup or the budget failed (Err).
	Pending []Resolution
	// Failures lists the lookups that failed, and the payments no lookup handles
	// (ErrNoLookup); the payments they covered are in Pending. After a lookup failed as
	// unreachable (ErrUnreachable) the rest of its rail's payments are one more failure,
	// with the same error, and its lookup is not asked again.
	Failures []*LookupError
	// Caveats lists, each once, what the answers of the lookups this reconciliation used
	// still trust (Cautious): an EVM lookup with a single RPC endpoint, for one, trusts that
	// node not to lie consistently about state, events and time at once.
	Caveats []string
}

// Resolution is what a reconciliation did with one payment.
type Resolution struct {
	// Outstanding is the payment as the budget listed it before.
	ledger.Outstanding
	// Chain is what its lookup found (Pending when it found nothing).
	Chain ChainState
	// Transaction is the transaction that settled it, where known (see Result).
	Transaction string
	// Until is, for a pending payment, when it can be released at the earliest if it does
	// not settle: its expiry plus ExpiryMargin. Zero when its expiry is unknown.
	Until time.Time
	// Err says why a pending payment was left as it was: its lookup failed (a
	// *LookupError), or the budget could not record the outcome (a *budget.StoreError).
	Err error
}

// Err returns the failures of the reconciliation joined (the failed lookups, and the
// outcomes the budget could not record), or nil when there were none.
func (rep *Report) Err() error {
	errs := make([]error, 0, len(rep.Failures))
	for _, f := range rep.Failures {
		errs = append(errs, f)
	}
	for _, p := range rep.Pending {
		var le *LookupError
		if p.Err != nil && !errors.As(p.Err, &le) {
			errs = append(errs, p.Err)
		}
	}
	return errors.Join(errs...)
}

// Reconcile looks up every payment the budget holds in doubt or refused, commits those
// that settled and releases those that can no longer settle and have expired. It returns
// what it did; an error only when it could not list the budget's payments (a
// *budget.StoreError), or when ctx ended before it was done (the report then says what it
// did, and the payments it did not reach are in Pending). The failures of single lookups
// are in the report (Report.Err). A lookup that fails as unreachable (ErrUnreachable, or
// one that outlived WithLookupTimeout) is not asked again in the same reconciliation: the
// rest of its rail's payments stay pending with that failure, so that a dead node costs one
// bounded wait.
func (r *Reconciler) Reconcile(ctx context.Context) (*Report, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	all, err := r.budget.Outstanding(ctx)
	if err != nil {
		return nil, err
	}
	rep := &Report{}
	byRail := map[string][]ledger.Outstanding{}
	var rails []string // in the order of their first payment: oldest expiry first
	for _, p := range all {
		if p.ID == "" || (p.State != ledger.InDoubt && p.State != ledger.Refused) {
			continue
		}
		if byRail[p.Rail] == nil {
			rails = append(rails, p.Rail)
		}
		byRail[p.Rail] = append(byRail[p.Rail], p)
	}
	used := make([]bool, len(r.lookups)) // by index in r.lookups
	for _, rail := range rails {
		payments := byRail[rail]
		i := r.lookupOf(rail)
		if i < 0 {
			r.fail(ctx, rep, payments, ErrNoLookup)
			continue
		}
		l := r.lookups[i]
		used[i] = true
		for start := 0; start < len(payments); start += r.batch {
			chunk := payments[start:min(start+r.batch, len(payments))]
			if err := r.pace(ctx); err != nil {
				r.fail(ctx, rep, chunk, err) // ctx ended, or will before the next lookup may go
				continue
			}
			if err := r.lookup(ctx, rep, l, chunk); err != nil {
				if rest := payments[start+len(chunk):]; len(rest) > 0 {
					r.fail(ctx, rep, rest, err)
				}
				break
			}
		}
	}
	rep.Caveats = r.caveats(used)
	return rep, context.Cause(ctx)
}

// caveats returns the caveats of the lookups used (by index) that implement Cautious, each
// once, in the order the lookups were given.
func (r *Reconciler) caveats(used []bool) []string {
	var out []string
	for i, l := range r.lookups {
		if c, ok := l.(Cautious); ok && used[i] {
			for _, s := range c.Caveats() {
				if !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// lookupOf returns the index of the first lookup that handles rail, or -1.
func (r *Reconciler) lookupOf(rail string) int {
	return slices.IndexFunc(r.lookups, func(l Lookup) bool { return l.Handles(rail) })
}

// lookup looks chunk, payments of one rail, up with l and resolves what it found. It
// returns the lookup's failure when the lookup must not be asked again in this
// reconciliation: its node was unreachable (ErrUnreachable) or the lookup outlived the
// timeout while ctx had not ended.
func (r *Reconciler) lookup(ctx context.Context, rep *Report, l Lookup, chunk []ledger.Outstanding) error {
	lctx, cancel := context.WithTimeout(ctx, r.timeout)
	results, err := l.Lookup(lctx, chunk)
	timedOut := errors.Is(lctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	if err != nil {
		r.fail(ctx, rep, chunk, err)
		if errors.Is(err, ErrUnreachable) || timedOut {
			return err
		}
		return nil
	}
	byID := make(map[string]Result, len(results))
	for _, res := range results {
		if _, seen := byID[res.ID]; !seen {
			byID[res.ID] = res
		}
	}
	// The outcomes found are booked whatever becomes of ctx: they are facts of the chain.
	book := context.WithoutCancel(ctx)
	now := r.clock.Now()
	for _, p := range chunk {
		res, ok := byID[p.ID]
		switch {
		case !ok:
			r.fail(ctx, rep, []ledger.Outstanding{p}, errNoResult)
		case res.Err != nil:
			r.fail(ctx, rep, []ledger.Outstanding{p}, res.Err)
		default:
			r.resolve(book, rep, p, res, now)
		}
	}
	return nil
}

// resolve applies what a lookup found of p to the budget.
func (r *Reconciler) resolve(ctx context.Context, rep *Report, p ledger.Outstanding, res Result, now time.Time) {
	out := resolutionOf(p)
	out.Chain, out.Transaction = res.State, res.Transaction
	var err error
	switch res.State {
	case Settled:
		if err = r.budget.Resolve(ctx, p.ID, true); err == nil {
			rep.Committed = append(rep.Committed, out)
			r.log(ctx, slog.LevelInfo, out, "committed")
			return
		}
	case Failed, NotSettled:
		if out.Until.IsZero() || !now.After(out.Until) {
			break // it could still settle as far as this clock knows
		}
		if err = r.budget.Resolve(ctx, p.ID, false); err == nil {
			rep.Released = append(rep.Released, out)
			r.log(ctx, slog.LevelInfo, out, "released")
			return
		}
	}
	switch {
	case errors.Is(err, budget.ErrPaymentNotFound):
		return // resolved meanwhile: committed by its answer, or expired
	case errors.Is(err, budget.ErrPaymentNotExpired):
		err = nil // the budget's clock says it could still settle
	}
	out.Err = err
	rep.Pending = append(rep.Pending, out)
	level := slog.LevelDebug
	if err != nil {
		level = slog.LevelWarn
	}
	r.log(ctx, level, out, "pending")
}

// resolutionOf returns the Resolution of p before anything is known of it: pending, until
// its expiry plus ExpiryMargin.
func resolutionOf(p ledger.Outstanding) Resolution {
	out := Resolution{Outstanding: p}
	if !p.Expires.IsZero() {
		out.Until = p.Expires.Add(ledger.ExpiryMargin)
	}
	return out
}

// fail records that payments, all of one rail, could not be looked up: they stay as they
// are.
func (r *Reconciler) fail(ctx context.Context, rep *Report, payments []ledger.Outstanding, err error) {
	le := &LookupError{Rail: payments[0].Rail, Payments: len(payments), Err: err}
	rep.Failures = append(rep.Failures, le)
	for _, p := range payments {
		out := resolutionOf(p)
		out.Err = le
		rep.Pending = append(rep.Pending, out)
	}
	if r.logger != nil {
		r.logger.LogAttrs(ctx, slog.LevelWarn, "reconcile: payment lookup failed",
			slog.String("rail", le.Rail), slog.Int("payments", le.Payments), slog.String("error", err.Error()))
	}
}

// log writes one resolution: metadata only, never the payment's identifier.
func (r *Reconciler) log(ctx context.Context, level slog.Level, out Resolution, outcome string) {
	if r.logger == nil {
		return
	}
	attrs := []slog.Attr{slog.String("rail", out.Rail), slog.String("payee", out.PayTo),
		slog.String("amount", out.Amount.String()), slog.String("outcome", outcome), slog.String("chain", out.Chain.String())}
	if outcome == "pending" && !out.Until.IsZero() {
		attrs = append(attrs, slog.Time("until", out.Until))
	}
	if out.Err != nil {
		attrs = append(attrs, slog.String("error", out.Err.Error()))
	}
	r.logger.LogAttrs(ctx, level, "reconcile: payment reconciled", attrs...)
}

// Run reconciles at once, then every interval, until ctx ends; it then returns ctx's
// error. After each reconciliation it calls report, when not nil, with what Reconcile
// returned. An interval that is not positive is a *sdk.ValidationError.
func (r *Reconciler) Run(ctx context.Context, every time.Duration, report func(*Report, error)) error {
	if every <= 0 {
		return invalid("reconcile interval", "must be positive")
	}
	for {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		rep, err := r.Reconcile(ctx)
		if report != nil {
			report(rep, err)
		}
		if err := r.clock.Sleep(ctx, every); err != nil {
			return context.Cause(ctx)
		}
	}
}

// pace waits, on the reconciler's clock, until the rate allows the next lookup; it fails
// when ctx ends first, or would end before the lookup may go.
func (r *Reconciler) pace(ctx context.Context) error {
	now := r.clock.Now()
	res := r.limiter.ReserveN(now, 1)
	delay := res.DelayFrom(now)
	// The deadline is the wall clock's; the delay is a duration on the reconciler's clock,
	// which may be set apart from it.
	if deadline, ok := ctx.Deadline(); ok && delay > time.Until(deadline) {
		res.CancelAt(now)
		return fmt.Errorf("the next lookup may go only after the context's deadline: %w", context.DeadlineExceeded)
	}
	if err := r.clock.Sleep(ctx, delay); err != nil {
		res.CancelAt(r.clock.Now())
		if cause := context.Cause(ctx); cause != nil {
			return cause
		}
		return err
	}
	return nil
}

// invalid returns the *sdk.ValidationError for a field of the reconciler's configuration.
func invalid(field, reason string) error {
	return &sdk.ValidationError{Service: "x402", Field: field, Reason: reason}
}
