package x402

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
	"golang.org/x/time/rate"

	"github.com/agentapis/sdk/internal/httpcore"
)

// Defaults of a Reconciler.
const (
	// DefaultReconcileRate is how many lookups a second a Reconciler sends by default. A
	// lookup is a few requests to a node (an x402 lookup: the latest block, one JSON-RPC
	// batch of calls, and the settlements' logs; a Solana one: the block height and the
	// statuses), well within what public endpoints tolerate.
	DefaultReconcileRate = 1.0
	// DefaultReconcileBatch is how many payments one lookup covers by default.
	DefaultReconcileBatch = 20
	// DefaultLookupTimeout bounds one lookup by default.
	DefaultLookupTimeout = 30 * time.Second
)

// Reconciler resolves the payments a Budget holds in doubt by asking their chains. A
// payment whose answer was lost (a dropped connection after the server settled it, a
// crash) stays counted in the budget until someone finds out what became of it; a
// Reconciler does that, on demand (Reconcile) or in the background (Run).
//
// It looks at the payments the budget lists as in doubt or refused (Budget.Outstanding,
// so also those a durable store kept across a restart) and asks each rail's lookup:
//
//   - x402 authorizations, on the networks given with WithEVMRPC or WithEVMClient: the token
//     contract's authorizationState(payer, nonce) at the latest block. True commits the
//     payment, with the settling transaction from the contract's AuthorizationUsed event
//     where the node's logs reach it (a missing log never holds a commit back). False at a
//     block past validBefore releases it once its validBefore plus ExpiryMargin has passed
//     on the reconciler's clock; false before that keeps it.
//   - other rails, through WithLookup (such as gpuprice's lookup of its Solana key
//     purchases).
//
// Nothing is ever released because of an error: a lookup that fails, times out or answers
// something it cannot read leaves every payment it covered as it is, and so does a payment
// no lookup handles. Nothing that could still settle is released, whatever a node says:
// a release needs the lookup's word that the payment cannot settle any more and the
// payment's expiry, plus ExpiryMargin, past on the reconciler's clock (the budget's store
// checks the expiry again).
//
// Lookups are batched (WithReconcileBatch) and paced (WithReconcileRate), and each is
// bounded in time (WithLookupTimeout). A Reconciler is safe for concurrent use; its
// reconciliations run one at a time. Close it when done with it.
type Reconciler struct {
	budget  *Budget
	lookups []PaymentLookup
	dialed  []*rpc.Client
	evm     map[string]bool // the networks of the EVM lookups
	limiter *rate.Limiter
	batch   int
	timeout time.Duration
	logger  *slog.Logger
	now     func() time.Time
	mu      sync.Mutex // one reconciliation at a time
}

// ReconcilerOption configures a Reconciler.
type ReconcilerOption func(*Reconciler) error

// WithEVMRPC looks up the x402 payments on network (CAIP-2, such as NetworkBase) through
// the JSON-RPC endpoint at rawURL (http or https). The URL may carry a provider's access
// key: it never appears in an error or a log line. The node must serve network's chain:
// a lookup first checks its chain id.
func WithEVMRPC(network, rawURL string) ReconcilerOption {
	return func(r *Reconciler) error {
		u, err := url.Parse(rawURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return invalid("EVM RPC URL", "must be an absolute http or https URL")
		}
		client, err := rpc.DialOptions(context.Background(), rawURL)
		if err != nil {
			return invalid("EVM RPC URL", "cannot be used: "+scrubText(err, rawURL))
		}
		if err := r.addEVM(network, client, rawURL); err != nil {
			client.Close()
			return err
		}
		r.dialed = append(r.dialed, client)
		return nil
	}
}

// WithEVMClient looks up the x402 payments on network (CAIP-2) through client, for a node
// that needs a transport or headers of its own; an *ethclient.Client gives its own with
// Client(). The Reconciler does not close it.
func WithEVMClient(network string, client *rpc.Client) ReconcilerOption {
	return func(r *Reconciler) error {
		if client == nil {
			return invalid("EVM client", "must not be nil")
		}
		return r.addEVM(network, client, "")
	}
}

// addEVM adds the lookup of network's x402 payments through client.
func (r *Reconciler) addEVM(network string, client *rpc.Client, rawURL string) error {
	n, err := normalizeNetwork(network)
	if err != nil {
		return invalid("network", err.Error())
	}
	id, err := evmChainID(n)
	if err != nil {
		return invalid("network", err.Error())
	}
	if r.evm[n] {
		return invalid("network", "has an EVM RPC already")
	}
	r.evm[n] = true
	r.lookups = append(r.lookups, newEVMLookup(n, id, client, rawURL))
	return nil
}

// WithLookup adds a lookup for other rails, such as gpuprice's for its Solana key
// purchases. When several lookups handle a rail, the first given is used.
func WithLookup(l PaymentLookup) ReconcilerOption {
	return func(r *Reconciler) error {
		if l == nil {
			return invalid("lookup", "must not be nil")
		}
		r.lookups = append(r.lookups, l)
		return nil
	}
}

// WithReconcileRate sets how many lookups a second the Reconciler sends at most (default
// DefaultReconcileRate).
func WithReconcileRate(perSecond float64) ReconcilerOption {
	return func(r *Reconciler) error {
		if !(perSecond > 0) || math.IsInf(perSecond, 0) {
			return invalid("reconcile rate", "must be a positive number of lookups a second")
		}
		r.limiter = rate.NewLimiter(rate.Limit(perSecond), 1)
		return nil
	}
}

// WithReconcileBatch sets how many payments one lookup covers at most (default
// DefaultReconcileBatch): the calls of one JSON-RPC batch for x402 payments, the signatures
// of one getSignatureStatuses for Solana ones (which takes up to 256).
func WithReconcileBatch(n int) ReconcilerOption {
	return func(r *Reconciler) error {
		if n < 1 {
			return invalid("reconcile batch", "must be at least 1")
		}
		r.batch = n
		return nil
	}
}

// WithLookupTimeout bounds each lookup (default DefaultLookupTimeout); one that takes
// longer fails, and leaves its payments as they are.
func WithLookupTimeout(d time.Duration) ReconcilerOption {
	return func(r *Reconciler) error {
		if d <= 0 {
			return invalid("lookup timeout", "must be positive")
		}
		r.timeout = d
		return nil
	}
}

// WithReconcileLogger logs each resolution and each failed lookup to l: metadata only
// (rail, payee, amount, outcome, until when a payment stays in doubt), never a payment's
// identifier, which for a Solana purchase redeems a key. Without it nothing is logged.
func WithReconcileLogger(l *slog.Logger) ReconcilerOption {
	return func(r *Reconciler) error {
		r.logger = l
		return nil
	}
}

// WithReconcileClock sets the clock that decides whether a payment has expired (default:
// the budget's clock, WithBudgetClock). The budget's store checks the expiry on the
// budget's clock too, so a payment is released only when both say it has expired.
func WithReconcileClock(now func() time.Time) ReconcilerOption {
	return func(r *Reconciler) error {
		if now == nil {
			return invalid("reconcile clock", "must not be nil")
		}
		r.now = now
		return nil
	}
}

// NewReconciler returns a reconciler of b's payments. An invalid option is a
// *sdk.ValidationError.
func NewReconciler(b *Budget, opts ...ReconcilerOption) (*Reconciler, error) {
	if b == nil {
		return nil, invalid("budget", "must not be nil")
	}
	r := &Reconciler{
		budget:  b,
		evm:     map[string]bool{},
		limiter: rate.NewLimiter(rate.Limit(DefaultReconcileRate), 1),
		batch:   DefaultReconcileBatch,
		timeout: DefaultLookupTimeout,
		now:     b.now,
	}
	if err := httpcore.Configure("x402", r, opts); err != nil {
		_ = r.Close()
		return nil, err
	}
	return r, nil
}

// Close closes the connections the reconciler opened (WithEVMRPC); those given to it stay
// open. Reconcile must not be called after.
func (r *Reconciler) Close() error {
	for _, c := range r.dialed {
		c.Close()
	}
	r.dialed = nil
	return nil
}

// ReconcileReport says what one reconciliation did.
type ReconcileReport struct {
	// Committed lists the payments found settled: their amounts moved to Spent.
	Committed []Resolution
	// Released lists the payments found unable to settle after their expiry: their
	// amounts were given back.
	Released []Resolution
	// Pending lists the payments looked at that stay counted: still able to settle, not
	// yet expired, or left as they were because their lookup or the budget failed (Err).
	Pending []Resolution
	// Failures lists the lookups that failed, and the payments no lookup handles
	// (ErrNoLookup); the payments they covered are in Pending.
	Failures []*LookupError
}

// Resolution is what a reconciliation did with one payment.
type Resolution struct {
	// Outstanding is the payment as the budget listed it before.
	Outstanding
	// Chain is what its lookup found (ChainPending when it found nothing).
	Chain ChainState
	// Transaction is the transaction that settled it, where known (see LookupResult).
	Transaction string
	// Until is, for a pending payment, when it can be released at the earliest if it does
	// not settle: its expiry plus ExpiryMargin. Zero when its expiry is unknown.
	Until time.Time
	// Err says why a pending payment was left as it was: its lookup failed (a
	// *LookupError), or the budget could not record the outcome (a *BudgetStoreError).
	Err error
}

// Err returns the failures of the reconciliation joined (the failed lookups, and the
// outcomes the budget could not record), or nil when there were none.
func (rep *ReconcileReport) Err() error {
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
// *BudgetStoreError), or when ctx ended before it was done (the report then says what it
// did, and the payments it did not reach are in Pending). The failures of single lookups
// are in the report (ReconcileReport.Err).
func (r *Reconciler) Reconcile(ctx context.Context) (*ReconcileReport, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	all, err := r.budget.OutstandingContext(ctx)
	if err != nil {
		return nil, err
	}
	rep := &ReconcileReport{}
	byRail := map[string][]Outstanding{}
	var rails []string // in the order of their first payment: oldest expiry first
	for _, p := range all {
		if p.ID == "" || (p.State != HoldInDoubt && p.State != HoldRefused) {
			continue
		}
		if byRail[p.Rail] == nil {
			rails = append(rails, p.Rail)
		}
		byRail[p.Rail] = append(byRail[p.Rail], p)
	}
	for _, rail := range rails {
		payments := byRail[rail]
		l := r.lookupOf(rail)
		if l == nil {
			r.fail(ctx, rep, payments, ErrNoLookup)
			continue
		}
		for chunk := range slices.Chunk(payments, r.batch) {
			if err := r.limiter.Wait(ctx); err != nil {
				if cause := context.Cause(ctx); cause != nil {
					err = cause
				}
				r.fail(ctx, rep, chunk, err) // ctx ended, or will before the next lookup may go
				continue
			}
			r.lookup(ctx, rep, l, chunk)
		}
	}
	return rep, context.Cause(ctx)
}

// lookupOf returns the first lookup that handles rail, or nil.
func (r *Reconciler) lookupOf(rail string) PaymentLookup {
	for _, l := range r.lookups {
		if l.Handles(rail) {
			return l
		}
	}
	return nil
}

// lookup looks chunk, payments of one rail, up with l and resolves what it found.
func (r *Reconciler) lookup(ctx context.Context, rep *ReconcileReport, l PaymentLookup, chunk []Outstanding) {
	lctx, cancel := context.WithTimeout(ctx, r.timeout)
	results, err := l.Lookup(lctx, chunk)
	cancel()
	if err != nil {
		r.fail(ctx, rep, chunk, err)
		return
	}
	byID := make(map[string]LookupResult, len(results))
	for _, res := range results {
		if _, seen := byID[res.ID]; !seen {
			byID[res.ID] = res
		}
	}
	// The outcomes found are booked whatever becomes of ctx: they are facts of the chain.
	book := context.WithoutCancel(ctx)
	now := r.now()
	for _, p := range chunk {
		res, ok := byID[p.ID]
		switch {
		case !ok:
			r.fail(ctx, rep, []Outstanding{p}, errNoResult)
		case res.Err != nil:
			r.fail(ctx, rep, []Outstanding{p}, res.Err)
		default:
			r.resolve(book, rep, p, res, now)
		}
	}
}

// resolve applies what a lookup found of p to the budget.
func (r *Reconciler) resolve(ctx context.Context, rep *ReconcileReport, p Outstanding, res LookupResult, now time.Time) {
	out := resolutionOf(p)
	out.Chain, out.Transaction = res.State, res.Transaction
	var err error
	switch res.State {
	case ChainSettled:
		if err = r.budget.Resolve(ctx, p.ID, true); err == nil {
			rep.Committed = append(rep.Committed, out)
			r.log(ctx, slog.LevelInfo, out, "committed")
			return
		}
	case ChainFailed, ChainNotSettled:
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
	case errors.Is(err, ErrPaymentNotFound):
		return // resolved meanwhile: committed by its answer, or expired
	case errors.Is(err, ErrPaymentNotExpired):
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
func resolutionOf(p Outstanding) Resolution {
	out := Resolution{Outstanding: p}
	if !p.Expires.IsZero() {
		out.Until = p.Expires.Add(ExpiryMargin)
	}
	return out
}

// fail records that payments, all of one rail, could not be looked up: they stay as they
// are.
func (r *Reconciler) fail(ctx context.Context, rep *ReconcileReport, payments []Outstanding, err error) {
	le := &LookupError{Rail: payments[0].Rail, Payments: len(payments), Err: err}
	rep.Failures = append(rep.Failures, le)
	for _, p := range payments {
		out := resolutionOf(p)
		out.Err = le
		rep.Pending = append(rep.Pending, out)
	}
	if r.logger != nil {
		r.logger.LogAttrs(ctx, slog.LevelWarn, "x402: payment lookup failed",
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
	r.logger.LogAttrs(ctx, level, "x402: payment reconciled", attrs...)
}

// Run reconciles at once, then every interval, until ctx ends; it then returns ctx's
// error. After each reconciliation it calls report, when not nil, with what Reconcile
// returned. An interval that is not positive is a *sdk.ValidationError.
func (r *Reconciler) Run(ctx context.Context, every time.Duration, report func(*ReconcileReport, error)) error {
	if every <= 0 {
		return invalid("reconcile interval", "must be positive")
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-timer.C:
		}
		rep, err := r.Reconcile(ctx)
		if report != nil {
			report(rep, err)
		}
		timer.Reset(every)
	}
}
