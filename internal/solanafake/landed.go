package solanafake

import (
	"math/big"
	"time"

	"github.com/gagliardetto/solana-go"
)

// Transfer is a token transfer that landed successfully.
type Transfer struct {
	// Signature is the first signature of its transaction, the fee payer's.
	Signature solana.Signature
	// From and To are the source and destination token accounts.
	From, To solana.PublicKey
	// Owner is the wallet that owns From and signed the transfer.
	Owner solana.PublicKey
	Mint  solana.PublicKey
	// Amount is how much moved, in the mint's atomic units (a whole number below 2⁶⁴).
	Amount *big.Int
	// Memos holds the data of every Memo instruction of its transaction, exactly as sent.
	Memos [][]byte
}

// Memo is a Memo program instruction of a transaction that landed successfully.
type Memo struct {
	// Signature is the first signature of its transaction.
	Signature solana.Signature
	// Signers are the accounts the instruction named, all of which signed.
	Signers []solana.PublicKey
	// Data is the memo, exactly as sent.
	Data []byte
}

// Landed is a transaction that landed in a block, successfully or not.
type Landed struct {
	// Signature is its first signature, the fee payer's.
	Signature solana.Signature
	// Slot is the slot of its block.
	Slot uint64
	// Err is why it failed, nil when it succeeded.
	Err *TransactionError
	// Transfers and Memos are what it did, empty when it failed; Memos holds the data of its
	// Memo instructions, exactly as sent.
	Transfers []Transfer
	Memos     [][]byte
	// Stage is how far it is confirmed now, by the cluster's StageRule.
	Stage Stage
}

// Stage is how far a landed transaction is confirmed, as a node's confirmationStatus says.
type Stage string

// The stages.
const (
	StageProcessed Stage = "processed"
	StageConfirmed Stage = "confirmed"
	StageFinalized Stage = "finalized"
)

// StageRule decides how far a landed transaction is confirmed from how many
// getSignatureStatuses calls have asked for it (the call being answered included) and how
// many blocks ago it landed. getSignatureStatuses reports the stage, getTransaction and
// getSignaturesForAddress show a transaction only once it has reached their commitment,
// and Landed reports it.
type StageRule func(asked int, age uint64) Stage

// ByAge is the stage rule of a real cluster whose blocks all get confirmed: a transaction is
// confirmed as it lands and finalized once FinalityDepth blocks old.
func ByAge(_ int, age uint64) Stage {
	if age >= FinalityDepth {
		return StageFinalized
	}
	return StageConfirmed
}

// reaches says whether a transaction at stage s shows at commitment cm.
func (s Stage) reaches(cm commitment) bool {
	switch cm {
	case commitmentFinalized:
		return s == StageFinalized
	case commitmentConfirmed:
		return s != StageProcessed
	}
	return true
}

// landedTx is a transaction that landed, with what getTransaction reports of it.
type landedTx struct {
	wire         *wireTransaction
	slot, height uint64
	time         time.Time
	// err is why it failed, nil when it succeeded.
	err       *TransactionError
	fee       uint64
	logs      []string
	units     uint64
	pre, post ledgerView
	transfers []Transfer
	memos     [][]byte
	// asked counts the getSignatureStatuses calls that asked for it.
	asked int
}

// stageOf returns how far tx is confirmed now.
func (c *Cluster) stageOf(tx *landedTx, now time.Time) Stage {
	return c.stage(tx.asked, c.age(tx, now))
}

// age returns how many blocks ago tx landed, 0 when a clock that went back puts it in the
// future.
func (c *Cluster) age(tx *landedTx, now time.Time) uint64 {
	return c.height(now, commitmentProcessed) - min(tx.height, c.height(now, commitmentProcessed))
}

// Landed returns the transaction with the signature if it landed, and whether it did.
func (c *Cluster) Landed(sig solana.Signature) (Landed, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tx := c.landed[sig]
	if tx == nil {
		return Landed{}, false
	}
	return Landed{
		Signature: sig,
		Slot:      tx.slot,
		Err:       tx.err,
		Transfers: append([]Transfer(nil), tx.transfers...),
		Memos:     append([][]byte(nil), tx.memos...),
		Stage:     c.stageOf(tx, c.clock()),
	}, true
}

// Transfers returns the token transfers that landed successfully, in order.
func (c *Cluster) Transfers() []Transfer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Transfer(nil), c.transfers...)
}

// Memos returns the Memo instructions of the transactions that landed successfully, in
// order.
func (c *Cluster) Memos() []Memo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Memo(nil), c.memos...)
}
