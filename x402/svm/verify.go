package svm

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"slices"

	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/x402/wire"
)

// Reasons a payment is invalid: the codes of the reference Solana "exact" facilitator, which
// a server returns in the error field of its 402 and a client sees in a
// *x402.PaymentRejectedError.
const (
	ReasonUnsupportedScheme        = "invalid_exact_svm_unsupported_scheme"
	ReasonNetworkMismatch          = "invalid_exact_svm_network_mismatch"
	ReasonMissingFeePayer          = "invalid_exact_svm_payload_missing_fee_payer"
	ReasonFeePayerNotManaged       = "invalid_exact_svm_fee_payer_not_managed_by_facilitator"
	ReasonCouldNotBeDecoded        = "invalid_exact_svm_payload_transaction_could_not_be_decoded"
	ReasonFeePayerMismatch         = "invalid_exact_svm_fee_payer_mismatch"
	ReasonSignatureInvalid         = "invalid_exact_svm_payload_signature_invalid"
	ReasonInstructionsLength       = "invalid_exact_svm_payload_transaction_instructions_length"
	ReasonComputeLimitInstruction  = "invalid_exact_svm_payload_transaction_instructions_compute_limit_instruction"
	ReasonComputePriceInstruction  = "invalid_exact_svm_payload_transaction_instructions_compute_price_instruction"
	ReasonComputePriceTooHigh      = "invalid_exact_svm_payload_transaction_instructions_compute_price_instruction_too_high"
	ReasonNoTransferInstruction    = "invalid_exact_svm_payload_no_transfer_instruction"
	ReasonFeePayerTransferring     = "invalid_exact_svm_payload_transaction_fee_payer_transferring_funds"
	ReasonMintMismatch             = "invalid_exact_svm_payload_mint_mismatch"
	ReasonRecipientMismatch        = "invalid_exact_svm_payload_recipient_mismatch"
	ReasonAmountMismatch           = "invalid_exact_svm_payload_amount_mismatch"
	ReasonUnknownFourthInstruction = "invalid_exact_svm_payload_unknown_fourth_instruction"
	ReasonUnknownFifthInstruction  = "invalid_exact_svm_payload_unknown_fifth_instruction"
	ReasonUnknownSixthInstruction  = "invalid_exact_svm_payload_unknown_sixth_instruction"
	ReasonUnknownSeventhInstruct   = "invalid_exact_svm_payload_unknown_seventh_instruction"
	ReasonMemoCount                = "invalid_exact_svm_payload_memo_count"
	ReasonMemoMismatch             = "invalid_exact_svm_payload_memo_mismatch"
	ReasonSimulationFailed         = "invalid_exact_svm_transaction_simulation_failed"
	ReasonTransactionFailed        = "invalid_exact_svm_transaction_failed"
	ReasonDuplicateSettlement      = "duplicate_settlement"
)

// lighthouseProgram is the Lighthouse assertion program, which a wallet may append after the
// transfer.
var lighthouseProgram = solana.MustPublicKeyFromBase58("L2TExMFKdjpN9kozasaurPirfHy9P8sbXoAN1qA3S95")

// transferCheckedTag is the token programs' TransferChecked instruction.
const transferCheckedTag = 12

// Verified is a payment that passed VerifyExact: its transaction, the wallet that pays and
// the amount.
type Verified struct {
	// Transaction is the decoded transaction, with the fee payer's signature still empty.
	Transaction *solana.Transaction
	// Payer is the transfer's authority, the paying wallet.
	Payer solana.PublicKey
	// FeePayer is the facilitator key that pays the fee (key 0).
	FeePayer solana.PublicKey
	// Mint and Program are the token paid and its program.
	Mint, Program solana.PublicKey
	// Amount is the amount transferred.
	Amount uint64
}

// VerifyExact checks offline that p pays req under the Solana "exact" scheme, as the
// reference facilitator does before it simulates the transaction: the scheme and the
// network; extra.feePayer present, one of feePayers (the facilitator's keys), and key 0 of
// the transaction; every signature but the fee payer's valid; 3 to 7 instructions: a
// SetComputeUnitLimit, a SetComputeUnitPrice of at most MaxComputeUnitPrice, a
// TransferChecked of the Token or Token-2022 program whose authority is no facilitator key,
// of req's mint, to the associated token account of req.PayTo, of exactly req.Amount, then
// only Memo or Lighthouse instructions, with exactly one memo equal to extra.memo when the
// seller set one. It does not simulate the transaction: a facilitator does that against its
// chain. A failure is a *wire.VerifyError with the reference code.
func VerifyExact(p *wire.PaymentPayload, req wire.PaymentRequirements, feePayers []solana.PublicKey) (*Verified, error) {
	fail := func(reason, msg string, payer solana.PublicKey) (*Verified, error) {
		e := &wire.VerifyError{Reason: reason, Message: msg}
		if !payer.IsZero() {
			e.Payer = payer.String()
		}
		return nil, e
	}
	none := solana.PublicKey{}
	if p == nil {
		return fail(ReasonCouldNotBeDecoded, "no payload", none)
	}
	scheme, network := p.ChosenScheme()
	if scheme != SchemeExact || req.Scheme != SchemeExact {
		return fail(ReasonUnsupportedScheme, "scheme must be exact", none)
	}
	if network != req.Network {
		return fail(ReasonNetworkMismatch, "payload network is not the required network", none)
	}
	feePayer, err := ParseAddress(req.ExtraString("feePayer"))
	if err != nil {
		return fail(ReasonMissingFeePayer, "requirements lack a valid extra.feePayer", none)
	}
	if !slices.ContainsFunc(feePayers, feePayer.Equals) {
		return fail(ReasonFeePayerNotManaged, "extra.feePayer is not one of the facilitator's keys", none)
	}
	tx, err := DecodeExactPayload(p)
	if err != nil {
		return fail(ReasonCouldNotBeDecoded, err.Error(), none)
	}
	msg := &tx.Message
	if len(msg.AccountKeys) == 0 || !msg.AccountKeys[0].Equals(feePayer) {
		return fail(ReasonFeePayerMismatch, "key 0 is not extra.feePayer", none)
	}
	if !signaturesValid(tx) {
		return fail(ReasonSignatureInvalid, "a signature is missing or does not verify", none)
	}
	ixs := msg.Instructions
	if len(ixs) < 3 || len(ixs) > 7 {
		return fail(ReasonInstructionsLength, "a payment has 3 to 7 instructions", none)
	}
	if reason := checkComputeBudget(msg, ixs[0], ixs[1]); reason != "" {
		return fail(reason, "the first two instructions must set the compute unit limit and price", none)
	}
	v, reason := transferOf(msg, ixs[2])
	if reason != "" {
		return fail(reason, "the third instruction must be a TransferChecked", none)
	}
	v.Transaction, v.FeePayer = tx, feePayer
	payer := v.Payer
	switch {
	case slices.ContainsFunc(feePayers, payer.Equals):
		return fail(ReasonFeePayerTransferring, "the transfer's authority is a facilitator key", payer)
	case v.Mint.String() != req.Asset:
		return fail(ReasonMintMismatch, "the transfer's mint is not the required asset", payer)
	}
	payTo, err := ParseAddress(req.PayTo)
	if err != nil {
		return fail(ReasonRecipientMismatch, "payTo is not a Solana address", payer)
	}
	if want, err := AssociatedTokenAccount(payTo, v.Mint, v.Program); err != nil || !want.Equals(destinationOf(msg, ixs[2])) {
		return fail(ReasonRecipientMismatch, "the transfer's destination is not payTo's token account", payer)
	}
	if req.Amount == nil || !req.Amount.IsUint64() || v.Amount != req.Amount.Uint64() {
		return fail(ReasonAmountMismatch, "the transfer's amount is not the required amount", payer)
	}
	if reason := checkTail(msg, ixs[3:], req.ExtraString("memo")); reason != "" {
		return fail(reason, "the instructions after the transfer must be memos as the seller asked", payer)
	}
	return v, nil
}

// DecodeExactPayload reads the transaction of a Solana "exact" payload: {"transaction":
// base64 wire transaction}, legacy or v0 without address lookup tables.
func DecodeExactPayload(p *wire.PaymentPayload) (*solana.Transaction, error) {
	var w struct {
		Transaction string `json:"transaction"`
	}
	if err := json.Unmarshal(p.Payload, &w); err != nil || w.Transaction == "" {
		return nil, errBadPayload("payload.transaction is missing")
	}
	raw, err := base64.StdEncoding.DecodeString(w.Transaction)
	if err != nil {
		return nil, errBadPayload("payload.transaction is not standard base64")
	}
	tx, err := solana.TransactionFromBytes(raw)
	if err != nil {
		return nil, errBadPayload("payload.transaction is not a Solana transaction")
	}
	if len(tx.Message.AddressTableLookups) > 0 {
		return nil, errBadPayload("address lookup tables are not supported")
	}
	if int(tx.Message.Header.NumRequiredSignatures) != len(tx.Signatures) || len(tx.Message.AccountKeys) < len(tx.Signatures) {
		return nil, errBadPayload("the transaction's signatures do not match its header")
	}
	for _, ix := range tx.Message.Instructions {
		if int(ix.ProgramIDIndex) >= len(tx.Message.AccountKeys) || slices.ContainsFunc(ix.Accounts, func(a uint16) bool {
			return int(a) >= len(tx.Message.AccountKeys)
		}) {
			return nil, errBadPayload("an instruction names an account the transaction does not have")
		}
	}
	return tx, nil
}

// errBadPayload is the error of a payload whose transaction cannot be read.
type errBadPayload string

// Error returns the reason.
func (e errBadPayload) Error() string { return string(e) }

// signaturesValid reports whether every required signature but the fee payer's (index 0)
// verifies over the message.
func signaturesValid(tx *solana.Transaction) bool {
	message, err := tx.Message.MarshalBinary()
	if err != nil {
		return false
	}
	for i := 1; i < len(tx.Signatures); i++ {
		if !tx.Signatures[i].Verify(tx.Message.AccountKeys[i], message) {
			return false
		}
	}
	return true
}

// programOf returns the program an instruction calls.
func programOf(msg *solana.Message, ix solana.CompiledInstruction) solana.PublicKey {
	return msg.AccountKeys[ix.ProgramIDIndex]
}

// checkComputeBudget returns the reason the first two instructions are not a
// SetComputeUnitLimit and a SetComputeUnitPrice of at most MaxComputeUnitPrice, or "".
func checkComputeBudget(msg *solana.Message, limit, price solana.CompiledInstruction) string {
	if !programOf(msg, limit).Equals(solana.ComputeBudget) || len(limit.Data) != 5 || limit.Data[0] != 2 {
		return ReasonComputeLimitInstruction
	}
	if !programOf(msg, price).Equals(solana.ComputeBudget) || len(price.Data) != 9 || price.Data[0] != 3 {
		return ReasonComputePriceInstruction
	}
	if binary.LittleEndian.Uint64(price.Data[1:]) > MaxComputeUnitPrice {
		return ReasonComputePriceTooHigh
	}
	return ""
}

// transferOf reads a TransferChecked instruction: its program, mint, authority and amount,
// or the reason it is not one.
func transferOf(msg *solana.Message, ix solana.CompiledInstruction) (*Verified, string) {
	program := programOf(msg, ix)
	if !program.Equals(solana.TokenProgramID) && !program.Equals(solana.Token2022ProgramID) {
		return nil, ReasonNoTransferInstruction
	}
	if len(ix.Data) < 10 || ix.Data[0] != transferCheckedTag || len(ix.Accounts) < 4 {
		return nil, ReasonNoTransferInstruction
	}
	return &Verified{Program: program, Mint: msg.AccountKeys[ix.Accounts[1]], Payer: msg.AccountKeys[ix.Accounts[3]],
		Amount: binary.LittleEndian.Uint64(ix.Data[1:9])}, ""
}

// destinationOf returns the destination account of a TransferChecked instruction.
func destinationOf(msg *solana.Message, ix solana.CompiledInstruction) solana.PublicKey {
	return msg.AccountKeys[ix.Accounts[2]]
}

// checkTail returns the reason the instructions after the transfer are not only Memo or
// Lighthouse ones, with exactly one memo of sellerMemo when it is set, or "".
func checkTail(msg *solana.Message, tail []solana.CompiledInstruction, sellerMemo string) string {
	reasons := []string{ReasonUnknownFourthInstruction, ReasonUnknownFifthInstruction, ReasonUnknownSixthInstruction,
		ReasonUnknownSeventhInstruct}
	var memos [][]byte
	for i, ix := range tail {
		switch program := programOf(msg, ix); {
		case program.Equals(solana.MemoProgramID):
			memos = append(memos, ix.Data)
		case program.Equals(lighthouseProgram):
		default:
			return reasons[i]
		}
	}
	if sellerMemo == "" {
		return ""
	}
	if len(memos) != 1 {
		return ReasonMemoCount
	}
	if string(memos[0]) != sellerMemo {
		return ReasonMemoMismatch
	}
	return ""
}
