package gpupricetest

import "github.com/agentapis/sdk/internal/solanafake"

// Outcome is what the fake node did with a transaction it received.
type Outcome = solanafake.Outcome

// The outcomes.
const (
	// OutcomeApplied: it landed and succeeded; its instructions changed the ledger.
	OutcomeApplied = solanafake.OutcomeApplied
	// OutcomeFailed: sent with skipPreflight, it landed with an error; the ledger did not
	// change, and getSignatureStatuses reports the error.
	OutcomeFailed = solanafake.OutcomeFailed
	// OutcomeRejected: the node answered with a JSON-RPC error; it never landed.
	OutcomeRejected = solanafake.OutcomeRejected
	// OutcomeDropped: sent with skipPreflight, its signature was answered but it never
	// lands (a bad signature or an unknown or expired blockhash).
	OutcomeDropped = solanafake.OutcomeDropped
	// OutcomeDuplicate: sent with skipPreflight, its signature had already landed; it was
	// not applied again.
	OutcomeDuplicate = solanafake.OutcomeDuplicate
)

// ReceivedTransaction is a transaction sendTransaction received: its first signature (zero
// when it could not be decoded), whether it skipped preflight, its Outcome, and the node's
// error text (empty when it was applied).
type ReceivedTransaction = solanafake.Received

// Transactions returns every transaction sendTransaction received, in order, with what the
// node did with it.
func (s *Server) Transactions() []ReceivedTransaction { return s.cluster.Received() }

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
