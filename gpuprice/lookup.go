package gpuprice

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"

	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402"
)

// maxStatusSignatures is the most signatures one getSignatureStatuses call may ask for.
const maxStatusSignatures = 256

// PurchaseLookup looks key purchases up on a Solana node, so that an x402.Reconciler
// resolves the purchases a budget holds in doubt (x402.WithLookup):
//
//	lookup, err := client.PurchaseLookup()
//	if err != nil {
//		return err
//	}
//	reconciler, err := x402.NewReconciler(budget, x402.WithLookup(lookup))
//
// It asks getSignatureStatuses, searching the node's whole history, for each purchase's
// transaction signature. A transaction that landed, confirmed, without an error settled;
// one that landed with an error failed (it moved no USDC, though it cost its fee); one the
// node has not seen while the finalized block height is past the last valid block height
// of its blockhash (the hold's Ref) can no longer land. Anything else, such as a
// transaction only processed so far, is still pending; a failure of the node, or an answer
// it cannot read, leaves every purchase of the call as it is. Its errors never quote a
// signature, which redeems a key, nor the node's URL.
type PurchaseLookup struct {
	c *Client // the node, and how its errors are scrubbed
}

// PurchaseLookup returns the lookup of key purchases on the client's Solana node
// (WithRPCURL, WithRPCClient or SOLANA_RPC_URL); without a node it is a
// *sdk.ValidationError.
func (c *Client) PurchaseLookup() (*PurchaseLookup, error) {
	if c.node == nil {
		return nil, invalid("RPC URL", "not set: use WithRPCURL, WithRPCClient or the "+EnvRPCURL+" environment variable")
	}
	return &PurchaseLookup{c: c}, nil
}

// NewPurchaseLookup returns the lookup of key purchases on node. A nil node is a
// *sdk.ValidationError.
func NewPurchaseLookup(node *rpc.Client) (*PurchaseLookup, error) {
	if node == nil {
		return nil, invalid("RPC client", "must not be nil")
	}
	return &PurchaseLookup{c: &Client{node: node}}, nil
}

// Handles reports whether rail is PaymentRail.
func (l *PurchaseLookup) Handles(rail string) bool { return rail == PaymentRail }

// Lookup looks payments up: the finalized block height first, then the statuses of their
// signatures, up to 256 a call. Reading the height first means that a transaction absent
// from the statuses was absent from every block up to that height.
func (l *PurchaseLookup) Lookup(ctx context.Context, payments []x402.Outstanding) ([]x402.LookupResult, error) {
	results := make([]x402.LookupResult, len(payments))
	sigs := make([]solana.Signature, 0, len(payments))
	texts := make([]string, 0, len(payments))
	index := make([]int, 0, len(payments))
	for i, p := range payments {
		results[i].ID = p.ID
		sig, err := solana.SignatureFromBase58(p.ID)
		if err != nil {
			results[i].Err = errors.New(serviceName + ": the payment's id is not a transaction signature")
			continue
		}
		sigs, texts, index = append(sigs, sig), append(texts, p.ID), append(index, i)
	}
	if len(sigs) == 0 {
		return results, nil
	}
	height, err := l.c.node.GetBlockHeight(ctx, rpc.CommitmentFinalized)
	if err != nil {
		return nil, l.nodeError("getBlockHeight", err, texts)
	}
	for start := 0; start < len(sigs); start += maxStatusSignatures {
		end := min(start+maxStatusSignatures, len(sigs))
		res, err := l.c.node.GetSignatureStatuses(ctx, true, sigs[start:end]...)
		if err != nil {
			return nil, l.nodeError("getSignatureStatuses", err, texts)
		}
		if len(res.Value) != end-start {
			return nil, &RPCError{Method: "getSignatureStatuses", Message: "the node answered " + strconv.Itoa(len(res.Value)) +
				" statuses for " + strconv.Itoa(end-start) + " signatures"}
		}
		for k, st := range res.Value {
			i := index[start+k]
			results[i].State, results[i].Err = purchaseState(payments[i], st, height)
		}
	}
	return results, nil
}

// purchaseState returns what status st of p's transaction says at finalized block height height.
func purchaseState(p x402.Outstanding, st *rpc.SignatureStatusesResult, height uint64) (x402.ChainState, error) {
	if st == nil {
		lastValid, ok := lastValidHeight(p.Ref)
		switch {
		case !ok:
			return x402.ChainPending, errors.New(serviceName + ": the payment records no last valid block height")
		case height > lastValid:
			return x402.ChainNotSettled, nil
		}
		return x402.ChainPending, nil
	}
	switch st.ConfirmationStatus {
	case rpc.ConfirmationStatusConfirmed, rpc.ConfirmationStatusFinalized:
	case "":
		if st.Confirmations != nil {
			return x402.ChainPending, nil // a node without confirmationStatus: null confirmations means rooted
		}
	default:
		return x402.ChainPending, nil // processed only: it could still be dropped with its fork
	}
	if st.Err != nil {
		return x402.ChainFailed, nil
	}
	return x402.ChainSettled, nil
}

// lastValidHeight reads the last valid block height of a Ref ("<blockhash> <height>").
func lastValidHeight(ref string) (uint64, bool) {
	_, height, ok := strings.Cut(ref, " ")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(height, 10, 64)
	return n, err == nil
}

// nodeError returns the *RPCError of a failed call, its texts scrubbed of the node's URL and
// of the signatures looked up.
func (l *PurchaseLookup) nodeError(method string, err error, sigs []string) *RPCError {
	rerr := l.c.rpcError(method, err)
	rerr.Message = httpcore.Scrub(rerr.Message, sigs...)
	if !errors.Is(rerr.Err, context.Canceled) && !errors.Is(rerr.Err, context.DeadlineExceeded) {
		rerr.Err = errors.New(httpcore.Scrub(rerr.Err.Error(), sigs...))
	}
	for i, line := range rerr.Logs {
		rerr.Logs[i] = httpcore.Scrub(line, sigs...)
	}
	return rerr
}
