package gpupricetest

import (
	"errors"
	"fmt"
	"maps"
	"unicode/utf8"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/programs/token"
)

// The runtime's charges, as a Solana cluster makes them.
const (
	// lamportsPerSignature is the fee of a transaction without a compute-budget instruction,
	// per signature.
	lamportsPerSignature = 5_000
	// rentPerByte is what an account pays per byte, its accountOverhead bytes included, to
	// be rent-exempt (two years of rent at 3,480 lamports a byte-year).
	rentPerByte     = 6_960
	accountOverhead = 128
)

// rentExempt returns the rent-exempt minimum balance of an account of size bytes.
func rentExempt(size uint64) uint64 { return (accountOverhead + size) * rentPerByte }

// fee returns what tx costs its fee payer.
func fee(tx *solana.Transaction) uint64 { return lamportsPerSignature * uint64(len(tx.Signatures)) }

// errInsufficientFundsForRent is the failure of a transaction that would leave its fee
// payer (account 0) holding SOL below the rent-exempt minimum of a wallet, and more than
// nothing.
var errInsufficientFundsForRent = &txError{
	value: map[string]any{"InsufficientFundsForRent": map[string]int{"account_index": 0}},
	text:  "Transaction results in an account (0) with insufficient funds for rent",
}

// rentPaying says whether a wallet left with lamports would be refused by the runtime: it
// holds some SOL, less than a wallet's rent-exempt minimum.
func rentPaying(lamports uint64) bool { return lamports > 0 && lamports < rentExempt(0) }

// payable checks that tx's fee payer can pay its fee, as the runtime does before running
// anything: a wallet without lamports is unknown (AccountNotFound), one short of the fee
// cannot pay it, and one the fee would leave below a wallet's rent-exempt minimum is refused.
// A transaction refused here never lands and costs nothing.
func (c *chain) payable(tx *solana.Transaction) *txError {
	have, cost := c.lamports[tx.Message.AccountKeys[0]], fee(tx)
	switch {
	case have == 0:
		return &txError{value: "AccountNotFound", text: "Attempt to debit an account but found no record of a prior credit."}
	case have < cost:
		return &txError{value: "InsufficientFundsForFee", text: "Insufficient funds for fee"}
	case rentPaying(have - cost):
		return errInsufficientFundsForRent
	}
	return nil
}

// chargeFee takes the fee of tx, which landed and failed, from its fee payer: a failed
// transaction still pays for its slot.
func (c *chain) chargeFee(tx *solana.Transaction) { c.lamports[tx.Message.AccountKeys[0]] -= fee(tx) }

// txError is a failed transaction as a node reports it.
type txError struct {
	// value is the TransactionError in the node's JSON: "BlockhashNotFound",
	// {"InstructionError":[0,{"Custom":1}]}, ...
	value any
	// text is its display text, as a node puts it after "Transaction simulation failed: ".
	text string
	// logs are the program logs up to the failure.
	logs []string
}

// The display texts of the instruction errors the fake programs raise, as a node writes them.
var instructionErrorTexts = map[string]string{
	"IllegalOwner":             "Provided owner is not allowed",
	"IncorrectProgramId":       "incorrect program id for instruction",
	"InvalidAccountData":       "invalid account data for instruction",
	"InvalidInstructionData":   "invalid instruction data",
	"InvalidSeeds":             "Provided seeds do not result in a valid address",
	"MissingRequiredSignature": "missing required signature for instruction",
	"NotEnoughAccountKeys":     "insufficient account keys for instruction",
	"ReadonlyDataModified":     "instruction modified data of a read-only account",
	"UnsupportedProgramId":     "Unsupported program id",
}

// The custom errors of the SPL Token program the fake raises.
const (
	tokenInsufficientFunds     = 1
	tokenInvalidMint           = 2
	tokenMintMismatch          = 3
	tokenOwnerMismatch         = 4
	tokenOverflow              = 14
	tokenMintDecimalsMismatch  = 18
	transferCheckedInstruction = 12
)

// systemResultWithNegativeLamports is the System program's custom error for a transfer from
// an account short of lamports.
const systemResultWithNegativeLamports = 1

// programError is an instruction's failure: a named InstructionError or a program's custom
// error code.
type programError struct {
	name   string
	custom uint32
}

// Error returns the node's display text.
func (e *programError) Error() string {
	if e.name == "" {
		return fmt.Sprintf("custom program error: 0x%x", e.custom)
	}
	return instructionErrorTexts[e.name]
}

// failWith returns the named instruction error.
func failWith(name string) *programError { return &programError{name: name} }

// customError returns a program's custom error.
func customError(code uint32) *programError { return &programError{custom: code} }

// execution applies a transaction's instructions to a staged copy of the token accounts and
// the wallets' lamports.
type execution struct {
	c         *chain
	signature solana.Signature
	tokens    map[solana.PublicKey]tokenAccount
	lamports  map[solana.PublicKey]uint64
	transfers []Transfer
	memos     []Memo
	logs      []string
}

// execute runs tx, whose fee payer can pay (see payable), on a copy of the ledger: it takes
// the fee, runs the instructions in order, and checks that the fee payer is not left below a
// wallet's rent-exempt minimum. On success the returned execution holds the new ledger for
// commit; on failure nothing changed.
func (c *chain) execute(tx *solana.Transaction) (*execution, *txError) {
	x := &execution{c: c, signature: tx.Signatures[0], tokens: maps.Clone(c.tokens), lamports: maps.Clone(c.lamports)}
	feePayer := tx.Message.AccountKeys[0]
	x.lamports[feePayer] -= fee(tx)
	metas, err := tx.Message.AccountMetaList()
	if err != nil {
		return nil, &txError{value: "InvalidAccountIndex", text: "Transaction contains an invalid account reference"}
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
		case solana.TokenProgramID:
			perr = x.token(accounts, ci.Data)
		case solana.SPLAssociatedTokenAccountProgramID:
			perr = x.associatedTokenAccount(accounts, ci.Data)
		case solana.MemoProgramID:
			perr = x.memo(accounts, ci.Data)
		default:
			perr = failWith("UnsupportedProgramId")
		}
		if perr != nil {
			x.logs = append(x.logs, fmt.Sprintf("Program %s failed: %s", program, perr.Error()))
			reason := any(perr.name)
			if perr.name == "" {
				reason = map[string]uint32{"Custom": perr.custom}
			}
			return nil, &txError{
				value: map[string]any{"InstructionError": []any{i, reason}},
				text:  fmt.Sprintf("Error processing Instruction %d: %s", i, perr.Error()),
				logs:  x.logs,
			}
		}
		x.logs = append(x.logs, fmt.Sprintf("Program %s success", program))
	}
	if rentPaying(x.lamports[feePayer]) {
		failure := *errInsufficientFundsForRent
		failure.logs = x.logs
		return nil, &failure
	}
	var memoData [][]byte
	for _, m := range x.memos {
		memoData = append(memoData, m.Data)
	}
	for i := range x.transfers {
		x.transfers[i].Memos = memoData
	}
	return x, nil
}

// commit makes a successful execution's changes the ledger's.
func (c *chain) commit(x *execution) {
	c.tokens = x.tokens
	c.lamports = x.lamports
	c.transfers = append(c.transfers, x.transfers...)
	c.memos = append(c.memos, x.memos...)
}

// token runs an SPL Token program instruction. The fake implements TransferChecked only.
func (x *execution) token(accounts solana.AccountMetaSlice, data []byte) *programError {
	if len(data) == 0 || data[0] != transferCheckedInstruction {
		return failWith("InvalidInstructionData")
	}
	if len(accounts) < 4 {
		return failWith("NotEnoughAccountKeys")
	}
	inst, err := token.DecodeInstruction(accounts, data)
	if err != nil {
		return failWith("InvalidInstructionData")
	}
	tc := inst.Impl.(*token.TransferChecked)
	x.logs = append(x.logs, "Program log: Instruction: TransferChecked")
	srcMeta, mintMeta, dstMeta, ownerMeta := tc.GetSourceAccount(), tc.GetMintAccount(), tc.GetDestinationAccount(), tc.GetOwnerAccount()
	src, okSrc := x.tokens[srcMeta.PublicKey]
	dst, okDst := x.tokens[dstMeta.PublicKey]
	if !okSrc || !okDst {
		return failWith("InvalidAccountData")
	}
	amount := *tc.Amount
	if src.amount < amount {
		x.logs = append(x.logs, "Program log: Error: insufficient funds")
		return customError(tokenInsufficientFunds)
	}
	if src.mint != dst.mint || mintMeta.PublicKey != src.mint {
		return customError(tokenMintMismatch)
	}
	decimals, ok := x.c.mints[mintMeta.PublicKey]
	if !ok {
		return failWith("InvalidAccountData")
	}
	if *tc.Decimals != decimals {
		return customError(tokenMintDecimalsMismatch)
	}
	if src.owner != ownerMeta.PublicKey {
		return customError(tokenOwnerMismatch)
	}
	if !ownerMeta.IsSigner {
		return failWith("MissingRequiredSignature")
	}
	if !srcMeta.IsWritable || !dstMeta.IsWritable {
		return failWith("ReadonlyDataModified")
	}
	src.amount -= amount
	x.tokens[srcMeta.PublicKey] = src
	dst = x.tokens[dstMeta.PublicKey] // the source itself when both are one account
	if dst.amount+amount < dst.amount {
		return customError(tokenOverflow)
	}
	dst.amount += amount
	x.tokens[dstMeta.PublicKey] = dst
	x.transfers = append(x.transfers, Transfer{
		Signature: x.signature,
		From:      srcMeta.PublicKey,
		To:        dstMeta.PublicKey,
		Owner:     ownerMeta.PublicKey,
		Mint:      mintMeta.PublicKey,
		Amount:    amount,
	})
	return nil
}

// associatedTokenAccount runs an associated token account program instruction: Create
// (data empty or [0]) or CreateIdempotent ([1]).
func (x *execution) associatedTokenAccount(accounts solana.AccountMetaSlice, data []byte) *programError {
	idempotent := false
	switch {
	case len(data) == 0 || len(data) == 1 && data[0] == 0:
	case len(data) == 1 && data[0] == 1:
		idempotent = true
	default:
		return failWith("InvalidInstructionData")
	}
	if len(accounts) < 6 {
		return failWith("NotEnoughAccountKeys")
	}
	payer, ata, wallet, mint, system, tokenProgram := accounts[0], accounts[1], accounts[2], accounts[3], accounts[4], accounts[5]
	x.logs = append(x.logs, "Program log: Create")
	switch {
	case system.PublicKey != solana.SystemProgramID || tokenProgram.PublicKey != solana.TokenProgramID:
		return failWith("IncorrectProgramId")
	case ata.PublicKey != associatedAccount(wallet.PublicKey, mint.PublicKey):
		return failWith("InvalidSeeds")
	case !payer.IsSigner:
		return failWith("MissingRequiredSignature")
	}
	if existing, ok := x.tokens[ata.PublicKey]; ok {
		if idempotent && existing.owner == wallet.PublicKey && existing.mint == mint.PublicKey {
			return nil
		}
		return failWith("IllegalOwner")
	}
	if _, ok := x.c.mints[mint.PublicKey]; !ok {
		return customError(tokenInvalidMint)
	}
	if !ata.IsWritable || !payer.IsWritable {
		return failWith("ReadonlyDataModified")
	}
	// The System program moves the new account's rent-exempt balance from the payer.
	x.logs = append(x.logs, fmt.Sprintf("Program %s invoke [2]", solana.SystemProgramID))
	if have := x.lamports[payer.PublicKey]; have < tokenAccountLamports {
		x.logs = append(x.logs, fmt.Sprintf("Transfer: insufficient lamports %d, need %d", have, uint64(tokenAccountLamports)),
			fmt.Sprintf("Program %s failed: custom program error: 0x%x", solana.SystemProgramID, systemResultWithNegativeLamports))
		return customError(systemResultWithNegativeLamports)
	}
	x.lamports[payer.PublicKey] -= tokenAccountLamports
	x.logs = append(x.logs, fmt.Sprintf("Program %s success", solana.SystemProgramID))
	x.tokens[ata.PublicKey] = tokenAccount{mint: mint.PublicKey, owner: wallet.PublicKey}
	return nil
}

// memo runs a Memo program instruction: every account it names must sign, and the data
// must be UTF-8. The data is recorded exactly as sent.
func (x *execution) memo(accounts solana.AccountMetaSlice, data []byte) *programError {
	var signers []solana.PublicKey
	for _, a := range accounts {
		if !a.IsSigner {
			return failWith("MissingRequiredSignature")
		}
		signers = append(signers, a.PublicKey)
	}
	if !utf8.Valid(data) {
		return failWith("InvalidInstructionData")
	}
	x.logs = append(x.logs, fmt.Sprintf("Program log: Memo (len %d): %q", len(data), data))
	x.memos = append(x.memos, Memo{Signature: x.signature, Signers: signers, Data: append([]byte(nil), data...)})
	return nil
}

// errSanitize is the node's answer to a transaction whose header or indexes are malformed.
var errSanitize = errors.New("invalid transaction: Transaction failed to sanitize accounts offsets correctly")

// sanitize checks what a node checks before anything else: one signature per required
// signer, a writable fee payer, distinct account keys, and instruction indexes in range.
// Address table lookups are refused: the fake resolves no lookup table.
func sanitize(tx *solana.Transaction) error {
	m := &tx.Message
	h, n := m.Header, len(m.AccountKeys)
	if m.IsVersioned() && m.AddressTableLookups.NumLookups() > 0 {
		return errors.New("invalid transaction: address table lookups are not supported by this node")
	}
	if h.NumRequiredSignatures == 0 || int(h.NumRequiredSignatures) != len(tx.Signatures) ||
		int(h.NumRequiredSignatures)+int(h.NumReadonlyUnsignedAccounts) > n ||
		h.NumReadonlySignedAccounts >= h.NumRequiredSignatures {
		return errSanitize
	}
	seen := make(map[solana.PublicKey]bool, n)
	for _, k := range m.AccountKeys {
		if seen[k] {
			return errors.New("invalid transaction: Account loaded twice")
		}
		seen[k] = true
	}
	for _, ci := range m.Instructions {
		if ci.ProgramIDIndex == 0 || int(ci.ProgramIDIndex) >= n {
			return errSanitize
		}
		for _, k := range ci.Accounts {
			if int(k) >= n {
				return errSanitize
			}
		}
	}
	return nil
}

// signaturesValid verifies every ed25519 signature of tx over the message bytes as sent.
func signaturesValid(tx *solana.Transaction, message []byte) bool {
	for i, sig := range tx.Signatures {
		if !sig.Verify(tx.Message.AccountKeys[i], message) {
			return false
		}
	}
	return true
}
