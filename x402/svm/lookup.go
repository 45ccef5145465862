package svm

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/reconcile"
	"github.com/agentapis/sdk/x402/wire"
)

// PurchaseRail is the rail of gpuprice's key purchases in a budget: a Solana payment whose
// payer pays its own fee, so that the payer's signature is the transaction's id.
const PurchaseRail = "solana"

// maxStatusSignatures is the most signatures one getSignatureStatuses call may ask for.
const maxStatusSignatures = 256

// historyPages bounds the pages of a token account's history one lookup reads (1,000
// signatures a page), and historyMargin how far before a payment's reservation it looks.
const (
	historyPages  = 10
	historyMargin = 10 * time.Minute
)

// Lookup looks Solana payments up on a node, so that a reconcile.Reconciler resolves the
// ones a budget holds in doubt (reconcile.WithLookup): the x402 payments of the networks
// given to NewLookup, and gpuprice's key purchases (PurchaseRail).
//
// It reads the finalized block height first, then the statuses of the payments' ids
// (getSignatureStatuses, searching the node's whole history): a gpuprice purchase's id is its
// transaction's. An x402 payment's id is the payer's signature, not the transaction's (the
// facilitator's fee-payer signature is), so one the statuses do not know is searched in the
// payer's token account's history (getSignaturesForAddress, its memo first, then
// getTransaction for the candidates, matched by the payer's signature). A transaction that
// landed, confirmed, without an error settled; one that landed with an error failed; one not
// found anywhere while the finalized height is past the last block height at which it could
// land can no longer land; anything else is still pending. A failure of the node, or an
// answer it cannot read, leaves every payment of the call as it is. Its errors never quote a
// signature nor the node's URL.
type Lookup struct {
	node     *Node
	rails    map[string]bool // "x402 " + network, and PurchaseRail
	networks []string        // the x402 networks, whose genesis hash the node must have
	checked  sync.Once
	checkErr error
}

// The lookup is a reconcile.Lookup.
var _ reconcile.Lookup = (*Lookup)(nil)

// NewLookup returns the lookup of Solana payments on node: gpuprice's key purchases, and the
// x402 payments of networks (CAIP-2, such as NetworkMainnet), whose cluster the node must
// serve: the first lookup of an x402 payment checks the node's genesis hash.
func NewLookup(node *Node, networks ...string) (*Lookup, error) {
	if node == nil {
		return nil, invalid("Solana node", "must not be nil")
	}
	l := &Lookup{node: node, rails: map[string]bool{PurchaseRail: true}}
	for _, n := range networks {
		c, err := wire.NormalizeNetwork(n)
		if err != nil || wire.Namespace(c) != "solana" {
			return nil, invalid("network", strconv.Quote(n)+" is not a Solana network in CAIP-2 form")
		}
		l.rails["x402 "+c] = true
		l.networks = append(l.networks, c)
	}
	return l, nil
}

// Handles reports whether rail is PurchaseRail or one of the lookup's x402 networks.
func (l *Lookup) Handles(rail string) bool { return l.rails[rail] }

// found is what the lookup found of one payment's transaction.
type found struct {
	status *rpc.SignatureStatusesResult // nil: not found
	tx     string                       // the transaction's id, when it differs from the payment's
}

// Lookup looks payments up; see Lookup.
func (l *Lookup) Lookup(ctx context.Context, payments []ledger.Outstanding) ([]reconcile.Result, error) {
	results := make([]reconcile.Result, len(payments))
	sigs := make([]solana.Signature, 0, len(payments))
	index := make([]int, 0, len(payments))
	x402 := false
	for i, p := range payments {
		results[i].ID = p.ID
		sig, err := solana.SignatureFromBase58(p.ID)
		if err != nil {
			results[i].Err = errors.New(l.node.service + ": the payment's id is not a Solana signature")
			continue
		}
		sigs, index = append(sigs, sig), append(index, i)
		x402 = x402 || p.Rail != PurchaseRail
	}
	if len(sigs) == 0 {
		return results, nil
	}
	secrets := make([]string, len(payments))
	for i, p := range payments {
		secrets[i] = p.ID
	}
	if x402 {
		if err := l.checkCluster(ctx); err != nil {
			return nil, l.scrub(err, secrets)
		}
	}
	height, err := l.node.BlockHeight(ctx, rpc.CommitmentFinalized)
	if err != nil {
		return nil, l.scrub(err, secrets)
	}
	finds, err := l.statuses(ctx, sigs)
	if err != nil {
		return nil, l.scrub(err, secrets)
	}
	for k, i := range index {
		p := payments[i]
		if finds[k].status == nil && p.Rail != PurchaseRail {
			f, err := l.inHistory(ctx, p, sigs[k])
			if err != nil {
				return nil, l.scrub(err, secrets)
			}
			finds[k] = f
		}
		results[i].State, results[i].Err = stateOf(p, finds[k].status, height)
		results[i].Transaction = finds[k].tx
	}
	return results, nil
}

// checkCluster makes sure, once, that the node serves the lookup's networks: on another
// cluster every payment would read as never landed.
func (l *Lookup) checkCluster(ctx context.Context) error {
	l.checked.Do(func() {
		hash, err := Call(ctx, l.node, "getGenesisHash", func(ctx context.Context, c *rpc.Client) (solana.Hash, error) {
			return c.GetGenesisHash(ctx)
		})
		if err != nil {
			l.checkErr = err
			return
		}
		for _, n := range l.networks {
			if ref := strings.TrimPrefix(n, "solana:"); !strings.HasPrefix(hash.String(), ref) {
				l.checkErr = l.node.answerError("getGenesisHash", "the node serves another cluster than "+n)
				return
			}
		}
	})
	if l.checkErr != nil && (errors.Is(l.checkErr, context.Canceled) || errors.Is(l.checkErr, context.DeadlineExceeded)) {
		err := l.checkErr
		l.checked, l.checkErr = sync.Once{}, nil // a context's end says nothing of the node: ask again next time
		return err
	}
	return l.checkErr
}

// statuses returns the status of each signature, up to 256 a call.
func (l *Lookup) statuses(ctx context.Context, sigs []solana.Signature) ([]found, error) {
	out := make([]found, len(sigs))
	for start := 0; start < len(sigs); start += maxStatusSignatures {
		end := min(start+maxStatusSignatures, len(sigs))
		res, err := Call(ctx, l.node, "getSignatureStatuses", func(ctx context.Context, c *rpc.Client) (*rpc.GetSignatureStatusesResult, error) {
			return c.GetSignatureStatuses(ctx, true, sigs[start:end]...)
		})
		if err != nil {
			return nil, err
		}
		if res == nil || len(res.Value) != end-start {
			return nil, l.node.answerError("getSignatureStatuses", "the node answered another number of statuses than signatures asked")
		}
		for k, st := range res.Value {
			out[start+k].status = st
		}
	}
	return out, nil
}

// inHistory looks an x402 payment up in its payer's token account's history (its Ref's
// source), newest first, back to a little before its reservation: the transactions whose
// memo is the payment's, then those that carry the payer's signature sig. Not found is no
// error: the caller decides by the block height.
func (l *Lookup) inHistory(ctx context.Context, p ledger.Outstanding, sig solana.Signature) (found, error) {
	ref, ok := ParseRef(p.Ref)
	if !ok || ref.Source.IsZero() {
		return found{}, nil
	}
	oldest := p.Reserved.Add(-historyMargin)
	var before solana.Signature
	for page := 0; page < historyPages; page++ {
		entries, err := Call(ctx, l.node, "getSignaturesForAddress", func(ctx context.Context, c *rpc.Client) ([]*rpc.TransactionSignature, error) {
			return c.GetSignaturesForAddressWithOpts(ctx, ref.Source, &rpc.GetSignaturesForAddressOpts{Before: before, Commitment: rpc.CommitmentConfirmed})
		})
		if err != nil {
			return found{}, err
		}
		for _, e := range entries {
			if e == nil || (e.BlockTime != nil && e.BlockTime.Time().Before(oldest)) {
				return found{}, nil
			}
			if len(ref.Memo) > 0 && e.Memo != nil && !memoHolds(*e.Memo, ref.Memo) {
				continue
			}
			if ok, err := l.signedBy(ctx, e.Signature, sig); err != nil || ok {
				return found{status: &rpc.SignatureStatusesResult{Slot: e.Slot, Err: e.Err,
					ConfirmationStatus: e.ConfirmationStatus}, tx: e.Signature.String()}, err
			}
		}
		if len(entries) == 0 {
			return found{}, nil
		}
		before = entries[len(entries)-1].Signature
	}
	return found{}, nil
}

// memoHolds reports whether a node's memo field ("[<len>] <text>", several joined by "; ")
// holds memo.
func memoHolds(field string, memo []byte) bool {
	return bytes.Contains([]byte(field), memo)
}

// signedBy reports whether transaction txSig carries the payer's signature sig.
func (l *Lookup) signedBy(ctx context.Context, txSig, sig solana.Signature) (bool, error) {
	version := uint64(0)
	res, err := Call(ctx, l.node, "getTransaction", func(ctx context.Context, c *rpc.Client) (*rpc.GetTransactionResult, error) {
		return c.GetTransaction(ctx, txSig, &rpc.GetTransactionOpts{Encoding: solana.EncodingBase64,
			Commitment: rpc.CommitmentConfirmed, MaxSupportedTransactionVersion: &version})
	})
	if err != nil {
		if errors.Is(err, rpc.ErrNotFound) {
			return false, nil
		}
		return false, err
	}
	if res == nil || res.Transaction == nil {
		return false, nil
	}
	tx, err := res.Transaction.GetTransaction()
	if err != nil {
		return false, l.node.answerError("getTransaction", "the transaction cannot be read")
	}
	for _, s := range tx.Signatures {
		if s == sig {
			return true, nil
		}
	}
	return false, nil
}

// errNoHeight is the error of a payment whose Ref does not say until when it can land.
var errNoHeight = errors.New("the payment records no last valid block height")

// stateOf returns what status st of p's transaction says at finalized block height height.
func stateOf(p ledger.Outstanding, st *rpc.SignatureStatusesResult, height uint64) (reconcile.ChainState, error) {
	if st == nil {
		ref, ok := ParseRef(p.Ref)
		switch {
		case !ok:
			return reconcile.Pending, errNoHeight
		case height > ref.LastValid:
			return reconcile.NotSettled, nil
		}
		return reconcile.Pending, nil
	}
	switch st.ConfirmationStatus {
	case rpc.ConfirmationStatusConfirmed, rpc.ConfirmationStatusFinalized:
	case "":
		if st.Confirmations != nil {
			return reconcile.Pending, nil // a node without confirmationStatus: null confirmations means rooted
		}
	default:
		return reconcile.Pending, nil // processed only: it could still be dropped with its fork
	}
	if st.Err != nil {
		return reconcile.Failed, nil
	}
	return reconcile.Settled, nil
}

// scrub returns err with the payments' ids (signatures) removed from every text it carries.
func (l *Lookup) scrub(err error, secrets []string) error {
	var rerr *RPCError
	if errors.As(err, &rerr) {
		return rerr.Scrubbed(secrets...)
	}
	return errors.New(httpcore.Scrub(err.Error(), secrets...))
}
