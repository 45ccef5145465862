package svm

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/poll"
	"github.com/agentapis/sdk/x402/ledger"
)

// Send sends a signed transaction with preflight at commitment "confirmed" and returns its
// signature. A refusal is an *RPCError with the node's code (non-zero), the transaction error,
// the failing instruction and the program logs; no answer is one with Code 0, after which
// the transaction may have reached the cluster.
func (n *Node) Send(ctx context.Context, tx *solana.Transaction) (solana.Signature, error) {
	sig, err := Call(ctx, n, "sendTransaction", func(ctx context.Context, c *rpc.Client) (solana.Signature, error) {
		return c.SendTransactionWithOpts(ctx, tx, rpc.TransactionOpts{PreflightCommitment: rpc.CommitmentConfirmed})
	})
	if err != nil {
		var rerr *RPCError
		if errors.As(err, &rerr) {
			rerr.Instruction = FailedInstruction(tx, rerr.TransactionError, rerr.Logs)
		}
		return solana.Signature{}, err
	}
	return sig, nil
}

// The outcomes of Confirm that settle a transaction's fate.
var (
	// ErrFailedOnChain reports a transaction that landed with an error: it moved nothing,
	// though it cost its fee.
	ErrFailedOnChain = errors.New("the transaction failed on chain")
	// ErrExpired reports a transaction unseen once its blockhash expired: it can no longer
	// land.
	ErrExpired = errors.New("the blockhash expired before the transaction landed")
)

// confirmSchedule spaces Confirm's status checks.
var confirmSchedule = poll.Schedule{Min: 400 * time.Millisecond, Max: 2 * time.Second, Factor: 1.5, Jitter: 0.2}

// Confirm polls the status of sig until it is confirmed or finalized (nil), failed on chain
// (ErrFailedOnChain, with the status error), unseen past lastValid, the last block height of
// its blockhash (ErrExpired), or timeout passes on clock (a *poll.StoppedError). A status
// check that fails is repeated until then.
func (n *Node) Confirm(ctx context.Context, sig solana.Signature, lastValid uint64, clock sdk.Clock, timeout time.Duration) error {
	return poll.Run(ctx, poll.Options{Schedule: confirmSchedule, Timeout: timeout, Clock: clock},
		func(ctx context.Context, _ int) (bool, time.Duration, error) {
			res, err := Call(ctx, n, "getSignatureStatuses", func(ctx context.Context, c *rpc.Client) (*rpc.GetSignatureStatusesResult, error) {
				return c.GetSignatureStatuses(ctx, false, sig)
			})
			if err != nil {
				return false, 0, err
			}
			if res == nil || len(res.Value) == 0 || res.Value[0] == nil {
				height, err := n.BlockHeight(ctx, rpc.CommitmentConfirmed)
				if err == nil && height > lastValid {
					return true, 0, ErrExpired
				}
				return false, 0, nil // not seen yet
			}
			st := res.Value[0]
			if st.Err != nil {
				return true, 0, errors.Join(ErrFailedOnChain, errors.New("status error: "+describe(st.Err)))
			}
			switch st.ConfirmationStatus {
			case rpc.ConfirmationStatusConfirmed, rpc.ConfirmationStatusFinalized:
				return true, 0, nil
			}
			return false, 0, nil
		})
}

// describe renders a transaction error of a status, such as {"InstructionError":[0,{"Custom":1}]}.
func describe(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "unreadable error"
	}
	return string(b)
}

// HoldSignature returns what a budget hold records of a Solana payment before it is sent:
// the payer's signature as its ID, its expiry (when its blockhash ends, an upper bound), and
// its Ref, so that a Lookup finds it. Every Solana payment of the SDK records it so.
func HoldSignature(payerSig solana.Signature, ref Ref, expires time.Time) ledger.Signature {
	return ledger.Signature{ID: payerSig.String(), Expires: expires, Ref: ref.String()}
}
