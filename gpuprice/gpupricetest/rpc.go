package gpupricetest

import (
	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/internal/solanafake"
)

// Outcome is what the fake node did with a transaction it received.
type Outcome string

// The outcomes, those of the cluster behind the node.
const (
	// OutcomeApplied: it landed and succeeded, and changed the ledger.
	OutcomeApplied = Outcome(solanafake.OutcomeApplied)
	// OutcomeFailed: sent with skipPreflight, it landed with an error, which
	// getSignatureStatuses reports; only its fee was taken.
	OutcomeFailed = Outcome(solanafake.OutcomeFailed)
	// OutcomeRejected: the node answered with a JSON-RPC error; it never landed.
	OutcomeRejected = Outcome(solanafake.OutcomeRejected)
	// OutcomeDropped: sent with skipPreflight, its signature was answered but it never lands
	// (a bad signature, or an unknown or expired blockhash).
	OutcomeDropped = Outcome(solanafake.OutcomeDropped)
	// OutcomeDuplicate: sent with skipPreflight after it had landed; not applied again.
	OutcomeDuplicate = Outcome(solanafake.OutcomeDuplicate)
)

// ReceivedTransaction is a transaction sendTransaction received.
type ReceivedTransaction struct {
	Signature     solana.Signature // its first signature; zero when it could not be decoded
	SkipPreflight bool
	Outcome       Outcome
	Error         string // the node's error text, empty when the transaction was applied
}

// Transactions returns every transaction sendTransaction received, in order, with what the
// node did with it.
func (s *Server) Transactions() []ReceivedTransaction {
	var out []ReceivedTransaction
	for _, r := range s.cluster.Received() {
		out = append(out, ReceivedTransaction{Signature: r.Signature, SkipPreflight: r.SkipPreflight, Outcome: Outcome(r.Outcome), Error: r.Error})
	}
	return out
}

// RPCCalls returns how many times each JSON-RPC method was called.
func (s *Server) RPCCalls() map[string]int { return s.cluster.Calls() }

// confirmAfter is the stage rule of WithConfirmAfter(n): a landed transaction is processed
// until the n-th getSignatureStatuses call that asks for it, which reports it confirmed, and
// finalized from the next one on; with n = 0 it is confirmed as it lands.
func confirmAfter(n int) solanafake.StageRule {
	return func(asked int, _ uint64) solanafake.Stage {
		switch {
		case asked < n:
			return solanafake.StageProcessed
		case asked == n:
			return solanafake.StageConfirmed
		}
		return solanafake.StageFinalized
	}
}
