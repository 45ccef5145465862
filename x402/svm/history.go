package svm

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
)

// ErrHistoryTooLong reports a payment whose payer's token account has more history since the
// payment's reservation than a lookup reads (10 pages of getSignaturesForAddress): its
// history was not searched back to before the reservation, so the payment is neither
// released nor, unless found, committed. It is the cause (RPCError.Err) of the payment's
// error.
var ErrHistoryTooLong = errors.New("the token account's history since the payment's reservation is longer than a lookup reads")

// codeMinContextSlot is a node's JSON-RPC error for a request whose minContextSlot it has
// not reached.
const codeMinContextSlot = -32016

// search is one token account's history to read for some payments of a batch.
type search struct {
	account   solana.PublicKey
	finalized bool  // read at "finalized" (the payments' release may rest on it), else "confirmed"
	payments  []int // their indexes in the batch
}

// addSearch adds the payment at index j of a batch to the search of account at the
// commitment finalized says, starting one when there is none yet.
func addSearch(searches []*search, account solana.PublicKey, finalized bool, j int) []*search {
	for _, s := range searches {
		if s.account == account && s.finalized == finalized {
			s.payments = append(s.payments, j)
			return searches
		}
	}
	return append(searches, &search{account: account, finalized: finalized, payments: []int{j}})
}

// oldest returns how far back the search must read: a little before the earliest
// reservation of its payments (the zero time, all of the history, when one has none).
func (s *search) oldest(batch []*payment) time.Time {
	var oldest time.Time
	for i, j := range s.payments {
		reserved := batch[j].p.Reserved
		if reserved.IsZero() {
			return time.Time{}
		}
		if t := reserved.Add(-historyMargin); i == 0 || t.Before(oldest) {
			oldest = t
		}
	}
	return oldest
}

// history reads account's history, newest first, back to its first entry older than oldest
// or to its end (an empty page), following each page with "before" its last entry, at most
// historyPages pages: beyond that it is an *RPCError whose cause is ErrHistoryTooLong. At
// "finalized" it asks for minContextSlot height, the node's finalized block height (a slot
// is never below its block height): a node whose finalized history lags the height it
// claimed fails instead of showing too little.
func (e *endpoint) history(ctx context.Context, account solana.PublicKey, finalized bool, height uint64, oldest time.Time) ([]*rpc.TransactionSignature, error) {
	opts := rpc.GetSignaturesForAddressOpts{Commitment: rpc.CommitmentConfirmed}
	if finalized {
		opts.Commitment, opts.MinContextSlot = rpc.CommitmentFinalized, &height
	}
	var all []*rpc.TransactionSignature
	for range historyPages {
		page, err := Call(ctx, e.node, "getSignaturesForAddress", func(ctx context.Context, c *rpc.Client) ([]*rpc.TransactionSignature, error) {
			return c.GetSignaturesForAddressWithOpts(ctx, account, &opts)
		})
		var rerr *RPCError
		if finalized && errors.As(err, &rerr) && rerr.Code == codeMinContextSlot {
			return nil, e.node.answerError("getSignaturesForAddress", "the node's finalized history is behind the finalized "+
				"block height it reported: its answers contradict each other")
		}
		if err != nil {
			return nil, err
		}
		if len(page) == 0 {
			return all, nil
		}
		for _, entry := range page {
			if entry == nil {
				return nil, e.node.answerError("getSignaturesForAddress", "the node answered an empty entry")
			}
			all = append(all, entry)
			if entry.BlockTime != nil && entry.BlockTime.Time().Before(oldest) {
				return all, nil
			}
		}
		opts.Before = page[len(page)-1].Signature
	}
	msg := "the token account's history since the payment's reservation is longer than " + strconv.Itoa(historyPages) +
		" pages: it was not searched to its end, so the payment is not released"
	return nil, &RPCError{Service: e.node.service, Method: "getSignaturesForAddress", Message: msg, Err: ErrHistoryTooLong}
}

// inHistory looks p up in entries, its payer's token account's history read at "finalized"
// or "confirmed" as finalized says, newest first, back to a little before p's reservation:
// the transactions that are p's id or whose memo holds p's memo (every one, when the node
// or p has no memo), read at the same commitment and checked (see payment.check). Not found
// is unseen, past its last valid height when read at "finalized". A transaction the history
// lists but the node does not return, or returns in another slot, leaves p unresolved.
func (e *endpoint) inHistory(ctx context.Context, p *payment, entries []*rpc.TransactionSignature, finalized bool, txs transactions) (sighting, error) {
	commitment := rpc.CommitmentConfirmed
	if finalized {
		commitment = rpc.CommitmentFinalized
	}
	oldest := p.p.Reserved.Add(-historyMargin)
	if p.p.Reserved.IsZero() {
		oldest = time.Time{}
	}
	for _, entry := range entries {
		if entry.BlockTime != nil && entry.BlockTime.Time().Before(oldest) {
			break
		}
		if entry.Signature != p.sig && len(p.ref.Memo) > 0 && entry.Memo != nil && !memoHolds(*entry.Memo, p.ref.Memo) {
			continue
		}
		res, err := e.transaction(ctx, entry.Signature, commitment, txs)
		if err != nil {
			return sighting{}, err
		}
		if res == nil {
			return sighting{err: e.node.answerError("getTransaction", "the node lists a transaction in the token account's "+
				"history that it does not return")}, nil
		}
		carries, succeeded, err := p.check(res, entry.Signature)
		switch {
		case err != nil:
			return sighting{err: e.node.answerError("getTransaction", err.Error())}, nil
		case !carries:
			continue
		case res.Slot != entry.Slot:
			return sighting{err: e.node.answerError("getTransaction", "the node's history and transaction of the payment "+
				"name different slots")}, nil
		}
		return sightingOf(entry.Signature, succeeded, finalized), nil
	}
	return sighting{seen: unseen, past: finalized}, nil
}

// memoHolds reports whether a node's memo field ("[<len>] <text>", several joined by "; ")
// holds memo.
func memoHolds(field string, memo []byte) bool {
	return bytes.Contains([]byte(field), memo)
}
