package solanafake

import (
	"crypto/sha256"
	"time"

	"github.com/gagliardetto/solana-go"
)

// Outcome is what the node did with a transaction sent to it.
type Outcome string

// The outcomes.
const (
	// OutcomeApplied: it landed and succeeded; its instructions changed the ledger.
	OutcomeApplied Outcome = "applied"
	// OutcomeFailed: sent with SkipPreflight, it landed with an error; only its fee was
	// taken, and its status reports the error.
	OutcomeFailed Outcome = "failed"
	// OutcomeRejected: the node answered with an error; it never landed.
	OutcomeRejected Outcome = "rejected"
	// OutcomeDropped: sent with SkipPreflight, its signature was answered but it never
	// lands (a bad signature, an unknown or expired blockhash, malformed compute budget
	// instructions, or a fee payer that cannot pay).
	OutcomeDropped Outcome = "dropped"
	// OutcomeDuplicate: sent with SkipPreflight, its message had already landed; it was not
	// applied again.
	OutcomeDuplicate Outcome = "duplicate"
)

// Received is a transaction sent to the node, by sendTransaction or Submit.
type Received struct {
	// Signature is its first signature; zero when it could not be decoded.
	Signature     solana.Signature
	SkipPreflight bool
	Outcome       Outcome
	// Error is the node's error text, empty when the transaction was applied.
	Error string
}

// Received returns every transaction sent to the node, in order, with what it did with it.
func (c *Cluster) Received() []Received {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Received(nil), c.received...)
}

// SendOptions are the options of Submit, those of sendTransaction.
type SendOptions struct {
	// SkipPreflight sends the transaction without simulating it first: one that fails lands
	// as failed and pays its fee, and one that cannot land is dropped with its signature
	// answered.
	SkipPreflight bool
}

// Submit does what sendTransaction does with tx: it verifies every signature (an *Error
// with CodeSignatureVerification otherwise), then, with preflight, refuses a transaction
// that would fail with an *Error with CodePreflightFailure carrying the transaction error
// and the logs, and otherwise lands it and returns its signature. See SendOptions for
// SkipPreflight. A malformed transaction is an *Error with CodeInvalidParams.
func (c *Cluster) Submit(tx *solana.Transaction, opts SendOptions) (solana.Signature, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rec := Received{SkipPreflight: opts.SkipPreflight, Outcome: OutcomeRejected}
	defer func() { c.received = append(c.received, rec) }()
	w, e := encodeWire(tx)
	if e != nil {
		rec.Error = e.Message
		return solana.Signature{}, e
	}
	sig, e := c.send(w, opts, c.clock(), &rec)
	if e != nil {
		return solana.Signature{}, e
	}
	return sig, nil
}

// send runs a decoded wire transaction as sendTransaction does, recording in rec what it did.
func (c *Cluster) send(w *wireTransaction, opts SendOptions, now time.Time, rec *Received) (solana.Signature, *Error) {
	sig := w.tx.Signatures[0]
	rec.Signature = sig
	reject := func(e *Error) (solana.Signature, *Error) {
		rec.Outcome, rec.Error = OutcomeRejected, e.Message
		return solana.Signature{}, e
	}
	drop := func(text string) (solana.Signature, *Error) {
		rec.Outcome, rec.Error = OutcomeDropped, text
		return sig, nil
	}
	if !signaturesValid(w.tx, w.message) {
		if opts.SkipPreflight {
			return drop(errSignatureVerification.Message)
		}
		return reject(errSignatureVerification)
	}
	budget, failure := c.screen(w, now)
	switch {
	case failure == errAlreadyProcessed && opts.SkipPreflight:
		rec.Outcome = OutcomeDuplicate
		return sig, nil
	case failure != nil && opts.SkipPreflight:
		return drop(failure.Text)
	case failure != nil:
		return reject(preflightFailure(failure, nil, 0))
	}
	x := c.execute(w.tx, budget)
	if x.failure != nil && !opts.SkipPreflight {
		return reject(preflightFailure(x.failure, x.logs, x.units))
	}
	c.land(w, x, now)
	rec.Outcome, rec.Error = OutcomeApplied, ""
	if x.failure != nil {
		rec.Outcome, rec.Error = OutcomeFailed, x.failure.Text
	}
	return sig, nil
}

// land puts an execution of w in the newest block: a successful one's ledger becomes the
// cluster's, a failed one only pays its fee.
func (c *Cluster) land(w *wireTransaction, x *execution, now time.Time) {
	keys := w.tx.Message.AccountKeys
	tx := &landedTx{
		wire: w, slot: c.slot(now, commitmentProcessed), height: c.height(now, commitmentProcessed), time: now,
		err: x.failure, fee: x.fee, logs: x.logs, units: x.units, pre: c.view(keys),
	}
	if x.failure != nil {
		c.lamports[keys[0]] -= x.fee
	} else {
		c.tokens, c.lamports = x.tokens, x.lamports
		c.transfers = append(c.transfers, x.transfers...)
		c.memos = append(c.memos, x.memos...)
		tx.transfers = x.transfers
		for _, m := range x.memos {
			tx.memos = append(tx.memos, m.Data)
		}
	}
	tx.post = c.view(keys)
	c.processed[sha256.Sum256(w.message)] = true
	c.landed[w.tx.Signatures[0]] = tx
	c.history = append(c.history, tx)
}

// Simulation is what a simulation of a transaction that would succeed reports.
type Simulation struct {
	// Logs are the program logs.
	Logs []string
	// UnitsConsumed is what its instructions would consume.
	UnitsConsumed uint64
	// Fee is what it would cost its fee payer.
	Fee uint64
}

// Simulate runs tx against the ledger without changing it, as simulateTransaction with
// sigVerify and replaceRecentBlockhash false does (the reference x402 facilitator's
// simulation): signatures are not checked, so a fee payer's may still be zero. A
// transaction that would fail, or that could not land (an unknown or expired blockhash, a
// message that already landed, a fee payer that cannot pay), is an *Error shaped as
// sendTransaction's preflight failure (CodePreflightFailure, the transaction error, the
// logs); a malformed one is an *Error with CodeInvalidParams.
func (c *Cluster) Simulate(tx *solana.Transaction) (Simulation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w, e := encodeWire(tx)
	if e != nil {
		return Simulation{}, e
	}
	x, failure := c.simulate(w, c.clock())
	switch {
	case failure != nil:
		return Simulation{}, preflightFailure(failure, nil, 0)
	case x.failure != nil:
		return Simulation{}, preflightFailure(x.failure, x.logs, x.units)
	}
	return Simulation{Logs: x.logs, UnitsConsumed: x.units, Fee: x.fee}, nil
}

// simulate screens and executes w without landing it: the screen's refusal, or the
// execution (which may have failed).
func (c *Cluster) simulate(w *wireTransaction, now time.Time) (*execution, *TransactionError) {
	budget, failure := c.screen(w, now)
	if failure != nil {
		return nil, failure
	}
	return c.execute(w.tx, budget), nil
}
