package solanafake

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/gagliardetto/solana-go"
)

// The fee schedule and the Compute Budget program's limits, as Agave has them.
const (
	// LamportsPerSignature is the base fee of a transaction, per signature.
	LamportsPerSignature = 5_000
	// DefaultInstructionUnits is the compute unit limit a transaction without
	// SetComputeUnitLimit gets for each instruction of a program that is not a builtin (the
	// token programs, the associated token account program, Memo).
	DefaultInstructionUnits = 200_000
	// BuiltinInstructionUnits is what it gets for each instruction of a builtin program (the
	// Compute Budget and System programs), since SIMD-0170.
	BuiltinInstructionUnits = 3_000
	// MaxComputeUnitLimit caps the compute unit limit, requested or not.
	MaxComputeUnitLimit = 1_400_000
	// microLamportsPerLamport converts a compute unit price into lamports.
	microLamportsPerLamport = 1_000_000
	// The heap frame a RequestHeapFrame may ask for: a multiple of 1 KiB in this range.
	minHeapFrameBytes = 32 * 1024
	maxHeapFrameBytes = 256 * 1024
)

// The Compute Budget program's instructions, by their first byte.
const (
	requestHeapFrame               = 1
	setComputeUnitLimit            = 2
	setComputeUnitPrice            = 3
	setLoadedAccountsDataSizeLimit = 4
)

// computeBudget is what a transaction's Compute Budget instructions ask for.
type computeBudget struct {
	// limit is the compute unit limit, requested or by default.
	limit uint64
	// price is the compute unit price in micro-lamports, 0 when not set.
	price uint64
}

// computeBudgetOf reads the Compute Budget instructions of m as Agave does before running
// anything: each of the four kinds at most once (DuplicateInstruction), each well formed
// (InvalidInstructionData), a heap frame a multiple of 1 KiB from 32 KiB to 256 KiB, a
// loaded accounts data size limit above 0. Without SetComputeUnitLimit the limit is
// DefaultInstructionUnits for each instruction of a program that is not a builtin and
// BuiltinInstructionUnits for each of a builtin, Compute Budget instructions included; a
// limit is capped at MaxComputeUnitLimit.
func computeBudgetOf(m *solana.Message) (computeBudget, *TransactionError) {
	var b computeBudget
	args := map[byte]uint64{} // the argument of each kind requested
	index := map[byte]int{}   // the instruction that requested it
	for i, ci := range m.Instructions {
		if m.AccountKeys[ci.ProgramIDIndex] != solana.ComputeBudget {
			continue
		}
		kind, arg, ok := computeBudgetInstruction(ci.Data)
		if !ok {
			return b, instructionError(i, failWith("InvalidInstructionData"))
		}
		if _, dup := args[kind]; dup {
			return b, duplicateInstruction(i)
		}
		args[kind], index[kind] = arg, i
	}
	if heap, ok := args[requestHeapFrame]; ok && (heap < minHeapFrameBytes || heap > maxHeapFrameBytes || heap%1024 != 0) {
		return b, instructionError(index[requestHeapFrame], failWith("InvalidInstructionData"))
	}
	if size, ok := args[setLoadedAccountsDataSizeLimit]; ok && size == 0 {
		return b, errInvalidLoadedAccountsDataSizeLimit
	}
	b.price = args[setComputeUnitPrice]
	limit, ok := args[setComputeUnitLimit]
	if !ok {
		for _, ci := range m.Instructions {
			switch m.AccountKeys[ci.ProgramIDIndex] {
			case solana.ComputeBudget, solana.SystemProgramID:
				limit += BuiltinInstructionUnits
			default:
				limit += DefaultInstructionUnits
			}
		}
	}
	b.limit = min(limit, MaxComputeUnitLimit)
	return b, nil
}

// computeBudgetInstruction decodes a Compute Budget instruction: its kind and argument, or
// false when the data is not one of the four (Borsh: a tag, then a u32, or a u64 for the
// price; trailing bytes are ignored).
func computeBudgetInstruction(data []byte) (byte, uint64, bool) {
	if len(data) == 0 {
		return 0, 0, false
	}
	switch kind := data[0]; kind {
	case requestHeapFrame, setComputeUnitLimit, setLoadedAccountsDataSizeLimit:
		if len(data) >= 5 {
			return kind, uint64(binary.LittleEndian.Uint32(data[1:5])), true
		}
	case setComputeUnitPrice:
		if len(data) >= 9 {
			return kind, binary.LittleEndian.Uint64(data[1:9]), true
		}
	}
	return 0, 0, false
}

// priorityFee returns the prioritization fee: the price times the limit, in lamports,
// rounded up, as Agave computes it (saturating at the largest uint64).
func (b computeBudget) priorityFee() uint64 {
	hi, lo := bits.Mul64(b.price, b.limit)
	lo, carry := bits.Add64(lo, microLamportsPerLamport-1, 0)
	hi += carry
	if hi >= microLamportsPerLamport {
		return math.MaxUint64 // the quotient needs more than 64 bits
	}
	fee, _ := bits.Div64(hi, lo, microLamportsPerLamport)
	return fee
}

// fee returns what a transaction of m with budget b costs its fee payer: LamportsPerSignature
// per required signature plus the prioritization fee.
func fee(m *solana.Message, b computeBudget) uint64 {
	base := LamportsPerSignature * uint64(m.Header.NumRequiredSignatures)
	total, carry := bits.Add64(base, b.priorityFee(), 0)
	if carry != 0 {
		return math.MaxUint64
	}
	return total
}
