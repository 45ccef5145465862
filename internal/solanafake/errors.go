package solanafake

import (
	"encoding/json"
	"fmt"
)

// The JSON-RPC error codes of a Solana node.
const (
	// CodeParseError is the answer to a body that is not JSON.
	CodeParseError = -32700
	// CodeInvalidRequest is the answer to JSON that is not a JSON-RPC request.
	CodeInvalidRequest = -32600
	// CodeMethodNotFound is the answer to a method the node does not serve.
	CodeMethodNotFound = -32601
	// CodeInvalidParams is the answer to a malformed parameter or transaction.
	CodeInvalidParams = -32602
	// CodePreflightFailure is sendTransaction's answer to a transaction whose preflight
	// simulation failed; the error's data carries the transaction error and the logs.
	CodePreflightFailure = -32002
	// CodeSignatureVerification is the answer to a transaction whose signatures do not verify.
	CodeSignatureVerification = -32003
	// CodeUnsupportedTransactionVersion is getTransaction's answer to a versioned transaction
	// asked for without maxSupportedTransactionVersion.
	CodeUnsupportedTransactionVersion = -32015
)

// Error is an error answer of the node: what a JSON-RPC method answers in its error member,
// and what Submit, Simulate and an injected Fault give.
type Error struct {
	// Code is the JSON-RPC error code, one of the Code constants for the node's own errors.
	Code int
	// Message is the node's text, such as "Transaction simulation failed: Blockhash not
	// found".
	Message string
	// Err is the transaction error of a failed preflight (the err of the error's data); nil
	// for the other errors, which carry no data.
	Err *TransactionError
	// Logs are the program logs of a failed preflight, up to the failure.
	Logs []string
	// UnitsConsumed is what the instructions that ran of a failed preflight consumed.
	UnitsConsumed uint64
}

// Error returns the node's code and message.
func (e *Error) Error() string { return fmt.Sprintf("solana node error %d: %s", e.Code, e.Message) }

// wire returns e as the error member of a JSON-RPC answer: with data {err, logs, ...}, as a
// node sends it, when e carries a transaction error.
func (e *Error) wire() *rpcError {
	out := &rpcError{Code: e.Code, Message: e.Message}
	if e.Err != nil {
		out.Data = map[string]any{
			"accounts": nil, "err": e.Err.Value, "innerInstructions": nil, "logs": nonNil(e.Logs),
			"replacementBlockhash": nil, "returnData": nil, "unitsConsumed": e.UnitsConsumed,
		}
	}
	return out
}

// invalidParams returns the node's answer to a malformed parameter.
func invalidParams(message string) *Error { return &Error{Code: CodeInvalidParams, Message: message} }

// preflightFailure returns sendTransaction's answer to a transaction whose preflight failed
// with err after the logs.
func preflightFailure(err *TransactionError, logs []string, units uint64) *Error {
	return &Error{Code: CodePreflightFailure, Message: "Transaction simulation failed: " + err.Text, Err: err, Logs: logs, UnitsConsumed: units}
}

// errSignatureVerification is the answer to a transaction whose signatures do not verify.
var errSignatureVerification = &Error{Code: CodeSignatureVerification, Message: "Transaction signature verification failure"}

// TransactionError is why a transaction failed or was refused, as a node reports it.
type TransactionError struct {
	// Value is the error in the node's JSON, as the err of a status, a simulation or a
	// transaction's meta: "BlockhashNotFound", {"InstructionError":[0,{"Custom":1}]}, ...
	Value json.RawMessage
	// Text is its display text, as a node writes it after "Transaction simulation failed: ".
	Text string
}

// newTxError returns the transaction error whose JSON is value.
func newTxError(value any, text string) *TransactionError {
	raw, err := json.Marshal(value)
	if err != nil {
		panic("solanafake: a transaction error does not encode: " + err.Error()) // cannot happen: the values are strings, numbers and maps
	}
	return &TransactionError{Value: raw, Text: text}
}

// The transaction errors raised before any instruction runs.
var (
	errBlockhashNotFound = newTxError("BlockhashNotFound", "Blockhash not found")
	errAlreadyProcessed  = newTxError("AlreadyProcessed", "This transaction has already been processed")
	errAccountNotFound   = newTxError("AccountNotFound", "Attempt to debit an account but found no record of a prior credit.")
	errInsufficientFee   = newTxError("InsufficientFundsForFee", "Insufficient funds for fee")
	// errInsufficientFundsForRent is the failure of a transaction that would leave its fee
	// payer (account 0) holding SOL below a wallet's rent-exempt minimum, and more than
	// nothing.
	errInsufficientFundsForRent = newTxError(map[string]any{"InsufficientFundsForRent": map[string]int{"account_index": 0}},
		"Transaction results in an account (0) with insufficient funds for rent")
	errInvalidAccountIndex = newTxError("InvalidAccountIndex", "Transaction contains an invalid account reference")
	// errInvalidLoadedAccountsDataSizeLimit is the Compute Budget program's refusal of a
	// loaded accounts data size limit of 0.
	errInvalidLoadedAccountsDataSizeLimit = newTxError("InvalidLoadedAccountsDataSizeLimit",
		"LoadedAccountsDataSizeLimit set for 0")
)

// duplicateInstruction is the refusal of a transaction that repeats a Compute Budget
// instruction, the repeat at index.
func duplicateInstruction(index int) *TransactionError {
	return newTxError(map[string]int{"DuplicateInstruction": index},
		fmt.Sprintf("Transaction contains a duplicate instruction (%d) that is not allowed", index))
}

// instructionError is the failure of the instruction at index with perr.
func instructionError(index int, perr *programError) *TransactionError {
	reason := any(perr.name)
	if perr.name == "" {
		reason = map[string]uint32{"Custom": perr.custom}
	}
	return newTxError(map[string]any{"InstructionError": []any{index, reason}},
		fmt.Sprintf("Error processing Instruction %d: %s", index, perr.Error()))
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

// nonNil returns s, or an empty slice for nil, so that it encodes as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
