package svm

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/agentapis/sdk/x402/ledger"
)

// What one node of a Lookup says of a batch of payments: its reading, made of one sighting
// a payment. The Lookup judges the readings of all its nodes together (lookup.go).

// endpoint is one node of a Lookup, with what it learnt of the node's cluster.
type endpoint struct {
	node *Node

	mu      sync.Mutex
	checked bool  // the node answered getGenesisHash
	cluster error // what its answer says: nil when it serves every network of the lookup
}

// payment is one payment of a lookup, as the lookup reads it.
type payment struct {
	index  int // in the caller's slice
	p      *ledger.Outstanding
	sig    solana.Signature // its id: the payer's signature
	ref    Ref
	hasRef bool
	x402   bool // an x402 payment, whose id is not its transaction's
}

// newPayment reads the payment p, whose id is sig, at index i of a lookup's payments.
func newPayment(i int, p *ledger.Outstanding, sig solana.Signature) *payment {
	ref, ok := ParseRef(p.Ref)
	return &payment{index: i, p: p, sig: sig, ref: ref, hasRef: ok, x402: p.Rail != PurchaseRail}
}

// seen is how far a node saw a payment's transaction.
type seen int

// The sightings of a payment's transaction.
const (
	// unseen: no trace of it.
	unseen seen = iota
	// traced: a trace that settles nothing yet: a status only processed, or a failure not
	// yet finalized.
	traced
	// landed: it landed and succeeded.
	landed
	// failedFinal: it landed and failed, read at "finalized".
	failedFinal
)

// sighting is what one node says of one payment.
type sighting struct {
	seen seen
	// tx is the transaction found, for landed and failedFinal.
	tx solana.Signature
	// past, for unseen, says that the node's finalized block height is past the payment's
	// last valid one and that every read that found nothing was at "finalized" and complete.
	past bool
	// err says why the node cannot say what became of the payment.
	err error
}

// reading is what one node says of a batch: a sighting of each payment, or the node's
// failure.
type reading struct {
	sightings []sighting
	err       error
}

// errNoHeight is the error of a payment whose Ref does not say until when it can land.
var errNoHeight = errors.New("the payment records no last valid block height")

// errNoSource is the error of an x402 payment whose Ref records no token account: its
// transaction cannot be searched for, so nothing says it did not land.
var errNoSource = errors.New("the payment records no token account to search its transaction in: it is not released")

// read asks the node what became of each payment of batch.
func (e *endpoint) read(ctx context.Context, networks []string, batch []*payment) reading {
	s, err := e.sightings(ctx, networks, batch)
	return reading{sightings: s, err: err}
}

// sightings reads the node's finalized block height and the statuses of the payments' ids,
// checks the transaction of each status, and searches the token account histories that
// must be searched (see Lookup).
func (e *endpoint) sightings(ctx context.Context, networks []string, batch []*payment) ([]sighting, error) {
	for _, p := range batch {
		if p.x402 {
			if err := e.checkCluster(ctx, networks); err != nil {
				return nil, err
			}
			break
		}
	}
	height, err := e.node.BlockHeight(ctx, rpc.CommitmentFinalized)
	if err != nil {
		return nil, err
	}
	statuses, err := e.statuses(ctx, batch)
	if err != nil {
		return nil, err
	}
	out := make([]sighting, len(batch))
	txs := transactions{}
	var searches []*search
	for j, p := range batch {
		if st := statuses[j]; st != nil {
			if out[j], err = e.fromStatus(ctx, p, st, txs); err != nil {
				return nil, err
			}
			continue
		}
		if !p.hasRef {
			out[j].err = errNoHeight
			continue
		}
		past := height > p.ref.LastValid
		switch {
		case p.ref.Source.IsZero() && p.x402 && past:
			out[j].err = errNoSource
		case p.ref.Source.IsZero():
			// A purchase's status speaks for it (its id is its transaction's); an x402
			// payment that could still land stays pending.
			out[j].past = past
		case p.x402 || past:
			searches = addSearch(searches, p.ref.Source, past, j)
		}
	}
	for _, s := range searches {
		entries, err := e.history(ctx, s.account, s.finalized, height, s.oldest(batch))
		if errors.Is(err, ErrHistoryTooLong) {
			for _, j := range s.payments {
				out[j].err = err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, j := range s.payments {
			if out[j], err = e.inHistory(ctx, batch[j], entries, s.finalized, txs); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// checkCluster makes sure the node serves the lookup's networks: on another cluster every
// payment would read as never landed. The node's answer is remembered; a failure to get one
// is not, so the next lookup asks again.
func (e *endpoint) checkCluster(ctx context.Context, networks []string) error {
	e.mu.Lock()
	checked, verdict := e.checked, e.cluster
	e.mu.Unlock()
	if checked {
		return verdict
	}
	hash, err := Call(ctx, e.node, "getGenesisHash", func(ctx context.Context, c *rpc.Client) (solana.Hash, error) {
		return c.GetGenesisHash(ctx)
	})
	if err != nil {
		return err
	}
	for _, n := range networks {
		if ref := strings.TrimPrefix(n, "solana:"); !strings.HasPrefix(hash.String(), ref) {
			verdict = e.node.answerError("getGenesisHash", "the node serves another cluster than "+n)
			break
		}
	}
	e.mu.Lock()
	e.checked, e.cluster = true, verdict
	e.mu.Unlock()
	return verdict
}

// statuses returns the status of each payment's id, up to 256 a call, searching the node's
// whole history. An answer that does not have exactly one entry per signature asked is an
// error; one whose entries are in another order is caught by fromStatus.
func (e *endpoint) statuses(ctx context.Context, batch []*payment) ([]*rpc.SignatureStatusesResult, error) {
	out := make([]*rpc.SignatureStatusesResult, len(batch))
	for start := 0; start < len(batch); start += maxStatusSignatures {
		end := min(start+maxStatusSignatures, len(batch))
		sigs := make([]solana.Signature, 0, end-start)
		for _, p := range batch[start:end] {
			sigs = append(sigs, p.sig)
		}
		res, err := Call(ctx, e.node, "getSignatureStatuses", func(ctx context.Context, c *rpc.Client) (*rpc.GetSignatureStatusesResult, error) {
			return c.GetSignatureStatuses(ctx, true, sigs...)
		})
		if err != nil {
			return nil, err
		}
		if res == nil || len(res.Value) != len(sigs) {
			return nil, e.node.answerError("getSignatureStatuses", "the node answered another number of statuses than signatures asked")
		}
		copy(out[start:], res.Value)
	}
	return out, nil
}

// fromStatus returns what a status st of p's id says, once the transaction it names is read
// at the commitment the status claims and checked. A status only processed is a trace, and
// nothing more. A status whose transaction the node does not return, or returns in another
// slot or with another outcome, is the node's failure: its statuses do not belong to the
// signatures asked (an answer in another order), so none of them can be relied on.
func (e *endpoint) fromStatus(ctx context.Context, p *payment, st *rpc.SignatureStatusesResult, txs transactions) (sighting, error) {
	var commitment rpc.CommitmentType
	switch st.ConfirmationStatus {
	case rpc.ConfirmationStatusFinalized:
		commitment = rpc.CommitmentFinalized
	case rpc.ConfirmationStatusConfirmed:
		commitment = rpc.CommitmentConfirmed
	case "":
		if st.Confirmations != nil {
			return sighting{seen: traced}, nil // a node without confirmationStatus: null confirmations means rooted
		}
		commitment = rpc.CommitmentFinalized
	default:
		return sighting{seen: traced}, nil // processed only: it could still be dropped with its fork
	}
	res, err := e.transaction(ctx, p.sig, commitment, txs)
	if err != nil {
		return sighting{}, err
	}
	contradiction := func(what string) (sighting, error) {
		return sighting{}, e.node.answerError("getSignatureStatuses", "the node's statuses contradict its transactions ("+
			what+"): they do not answer the signatures asked")
	}
	switch {
	case res == nil:
		return contradiction("a status of a transaction it does not return")
	case res.Slot != st.Slot:
		return contradiction("a status in another slot than its transaction")
	case res.Meta != nil && (res.Meta.Err == nil) != (st.Err == nil):
		return contradiction("a status with another outcome than its transaction")
	}
	_, succeeded, err := p.check(res, p.sig) // the transaction asked for: p's id is its first signature
	if err != nil {
		return sighting{err: e.node.answerError("getTransaction", err.Error())}, nil
	}
	return sightingOf(p.sig, succeeded, commitment == rpc.CommitmentFinalized), nil
}

// sightingOf returns the sighting of a checked transaction tx: landed when it succeeded;
// failedFinal when it failed and was read at "finalized"; else a trace.
func sightingOf(tx solana.Signature, succeeded, finalized bool) sighting {
	switch {
	case succeeded:
		return sighting{seen: landed, tx: tx}
	case finalized:
		return sighting{seen: failedFinal, tx: tx}
	}
	return sighting{seen: traced}
}

// transactions remembers the transactions a node returned during one reading, by signature
// and commitment; nil for one it does not have.
type transactions map[txKey]*rpc.GetTransactionResult

// txKey names a transaction read at a commitment.
type txKey struct {
	sig        solana.Signature
	commitment rpc.CommitmentType
}

// transaction returns the transaction sig at commitment, nil when the node does not have
// it there; each is read once a reading.
func (e *endpoint) transaction(ctx context.Context, sig solana.Signature, commitment rpc.CommitmentType, txs transactions) (*rpc.GetTransactionResult, error) {
	key := txKey{sig, commitment}
	if res, ok := txs[key]; ok {
		return res, nil
	}
	version := uint64(0)
	res, err := Call(ctx, e.node, "getTransaction", func(ctx context.Context, c *rpc.Client) (*rpc.GetTransactionResult, error) {
		return c.GetTransaction(ctx, sig, &rpc.GetTransactionOpts{Encoding: solana.EncodingBase64,
			Commitment: commitment, MaxSupportedTransactionVersion: &version})
	})
	if errors.Is(err, rpc.ErrNotFound) {
		res, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	txs[key] = res
	return res, nil
}
