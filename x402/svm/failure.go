package svm

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/gagliardetto/solana-go"
)

// InstructionFailure says which instruction of a transaction failed, in which program, and why.
type InstructionFailure struct {
	// Index is the instruction's position in the transaction, from 0.
	Index int
	// Program is the program the instruction calls.
	Program solana.PublicKey
	// FailedIn is the program that raised the error: Program, or one it invoked, such as the
	// System program when the Associated Token Account program's creation of an account
	// finds the payer short of SOL. It is Program when the logs do not name another.
	FailedIn solana.PublicKey
	// Reason is the instruction error as the node sent it: {"Custom":1},
	// "InvalidAccountData", ...
	Reason json.RawMessage
	// Custom is the program's own error code when Reason is one ({"Custom":1}), nil
	// otherwise.
	Custom *uint32
}

// String says in words which instruction failed in which program, and why when the code is
// one a token payment meets, such as "instruction 0 (Associated Token Account program)
// failed in the System program: custom program error 0x1, not enough SOL".
func (e *InstructionFailure) String() string {
	msg := "instruction " + strconv.Itoa(e.Index) + " (" + programName(e.Program) + ") failed"
	if !e.FailedIn.Equals(e.Program) {
		msg += " in the " + programName(e.FailedIn)
	}
	if e.Custom == nil {
		var name string
		if json.Unmarshal(e.Reason, &name) != nil {
			name = string(e.Reason)
		}
		return msg + ": " + name
	}
	msg += ": custom program error 0x" + strconv.FormatUint(uint64(*e.Custom), 16)
	if meaning := customErrors[e.FailedIn][*e.Custom]; meaning != "" {
		msg += ", " + meaning
	}
	return msg
}

// programNames names the programs a token payment calls.
var programNames = map[solana.PublicKey]string{
	solana.SystemProgramID:                    "System program",
	solana.TokenProgramID:                     "Token program",
	solana.Token2022ProgramID:                 "Token-2022 program",
	solana.SPLAssociatedTokenAccountProgramID: "Associated Token Account program",
	solana.MemoProgramID:                      "Memo program",
	solana.ComputeBudget:                      "Compute Budget program",
}

// programName names a program, or gives its address.
func programName(program solana.PublicKey) string {
	if name, ok := programNames[program]; ok {
		return name
	}
	return "program " + program.String()
}

// tokenErrors are the meanings of the token programs' custom error codes a payment meets.
var tokenErrors = map[uint32]string{1: "insufficient funds", 3: "the account is not of this mint",
	4: "the owner does not match", 17: "the account is frozen", 18: "the decimals do not match the mint's"}

// customErrors are the meanings of the custom error codes a token payment meets, by program:
// the same code 0x1 is short SOL in the System program and short funds in a token program.
var customErrors = map[solana.PublicKey]map[uint32]string{
	solana.SystemProgramID:    {0: "the account already exists", 1: "not enough SOL"},
	solana.TokenProgramID:     tokenErrors,
	solana.Token2022ProgramID: tokenErrors,
}

// FailedInstruction reads an instruction error ({"InstructionError":[index, reason]}) of tx:
// the instruction's program from tx, and from the logs the program that raised the error,
// the first that logged "Program <address> failed" (an invoked program logs its failure
// before its caller). It returns nil for any other transaction error, or an index tx does
// not have.
func FailedInstruction(tx *solana.Transaction, txErr json.RawMessage, logs []string) *InstructionFailure {
	var e struct {
		InstructionError []json.RawMessage `json:"InstructionError"`
	}
	if json.Unmarshal(txErr, &e) != nil || len(e.InstructionError) != 2 {
		return nil
	}
	var index int
	if json.Unmarshal(e.InstructionError[0], &index) != nil || index < 0 || index >= len(tx.Message.Instructions) {
		return nil
	}
	program, err := tx.Message.Program(tx.Message.Instructions[index].ProgramIDIndex)
	if err != nil {
		return nil
	}
	f := &InstructionFailure{Index: index, Program: program, FailedIn: program, Reason: e.InstructionError[1]}
	var custom struct {
		Custom *uint32 `json:"Custom"`
	}
	if json.Unmarshal(f.Reason, &custom) == nil {
		f.Custom = custom.Custom
	}
	for _, line := range logs {
		rest, ok := strings.CutPrefix(line, "Program ")
		address, _, failed := strings.Cut(rest, " failed")
		if !ok || !failed {
			continue
		}
		if pk, err := solana.PublicKeyFromBase58(address); err == nil {
			f.FailedIn = pk
			break
		}
	}
	return f
}
