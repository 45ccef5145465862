package solanafake

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"time"

	"github.com/gagliardetto/solana-go"
)

// The compute units an instruction consumes. The Compute Budget program's is Agave's; the
// others are nominal, of the order the real programs report. The fake reports them
// (unitsConsumed) and enforces no limit with them.
const (
	computeBudgetUnits          = 150
	tokenUnits                  = 6_200
	associatedTokenAccountUnits = 20_000
	memoUnits                   = 6_000
)

// rentPaying says whether a wallet left with lamports would be refused by the runtime: it
// holds some SOL, less than a wallet's rent-exempt minimum.
func rentPaying(lamports uint64) bool { return lamports > 0 && lamports < RentExempt(0) }

// screen makes the checks a node makes before running a transaction, in Agave's order: its
// blockhash was given out and has not expired (BlockhashNotFound); its message has not
// landed (AlreadyProcessed: the status cache holds a message for as long as its blockhash is
// valid, which the first check covers); its Compute Budget instructions are well formed; its
// fee payer can pay the fee: a wallet without lamports is unknown (AccountNotFound), one short
// of the fee cannot pay it, and one the fee would leave below a wallet's rent-exempt minimum
// is refused. A transaction refused here never lands and pays nothing.
func (c *Cluster) screen(w *wireTransaction, now time.Time) (computeBudget, *TransactionError) {
	m := &w.tx.Message
	if !c.blockhashValid(m.RecentBlockhash, now) {
		return computeBudget{}, errBlockhashNotFound
	}
	if c.processed[sha256.Sum256(w.message)] {
		return computeBudget{}, errAlreadyProcessed
	}
	budget, err := computeBudgetOf(m)
	if err != nil {
		return budget, err
	}
	have, cost := c.lamports[m.AccountKeys[0]], fee(m, budget)
	switch {
	case have == 0:
		return budget, errAccountNotFound
	case have < cost:
		return budget, errInsufficientFee
	case rentPaying(have - cost):
		return budget, errInsufficientFundsForRent
	}
	return budget, nil
}

// execution is a transaction's run on a staged copy of the token accounts and the wallets'
// lamports.
type execution struct {
	c         *Cluster
	signature solana.Signature
	fee       uint64
	tokens    map[solana.PublicKey]TokenAccount
	lamports  map[solana.PublicKey]uint64
	transfers []Transfer
	memos     []Memo
	logs      []string
	units     uint64
	// failure is why the transaction failed, nil when it succeeded.
	failure *TransactionError
}

// execute runs tx, which passed screen with budget, on a copy of the ledger: it takes the
// fee, runs the instructions in order, and checks that the fee payer is not left below a
// wallet's rent-exempt minimum. On success the execution holds the new ledger for commit; on
// failure its failure says why, and its logs and units go up to the failure.
func (c *Cluster) execute(tx *solana.Transaction, budget computeBudget) *execution {
	x := &execution{c: c, signature: tx.Signatures[0], fee: fee(&tx.Message, budget),
		tokens: maps.Clone(c.tokens), lamports: maps.Clone(c.lamports)}
	feePayer := tx.Message.AccountKeys[0]
	x.lamports[feePayer] -= x.fee
	metas, err := tx.Message.AccountMetaList()
	if err != nil {
		x.failure = errInvalidAccountIndex
		return x
	}
	for i, ci := range tx.Message.Instructions {
		program := tx.Message.AccountKeys[ci.ProgramIDIndex]
		accounts := make(solana.AccountMetaSlice, len(ci.Accounts))
		for j, k := range ci.Accounts {
			accounts[j] = metas[k]
		}
		x.logs = append(x.logs, fmt.Sprintf("Program %s invoke [1]", program))
		var perr *programError
		switch program {
		case solana.ComputeBudget: // read before running; nothing to do now
			x.units += computeBudgetUnits
		case solana.TokenProgramID, solana.Token2022ProgramID:
			x.units += tokenUnits
			perr = x.token(program, accounts, ci.Data)
		case solana.SPLAssociatedTokenAccountProgramID:
			x.units += associatedTokenAccountUnits
			perr = x.associatedTokenAccount(accounts, ci.Data)
		case solana.MemoProgramID:
			x.units += memoUnits
			perr = x.memo(accounts, ci.Data)
		default:
			perr = failWith("UnsupportedProgramId")
		}
		if perr != nil {
			x.logs = append(x.logs, fmt.Sprintf("Program %s failed: %s", program, perr.Error()))
			x.failure = instructionError(i, perr)
			return x
		}
		x.logs = append(x.logs, fmt.Sprintf("Program %s success", program))
	}
	if rentPaying(x.lamports[feePayer]) {
		x.failure = errInsufficientFundsForRent
		return x
	}
	var memoData [][]byte
	for _, m := range x.memos {
		memoData = append(memoData, m.Data)
	}
	for i := range x.transfers {
		x.transfers[i].Memos = memoData
	}
	return x
}
