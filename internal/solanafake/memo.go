package solanafake

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gagliardetto/solana-go"
)

// memoV1ProgramID is the first Memo program, which the fake does not run but whose memos a
// node lists like those of the current one (solana.MemoProgramID).
var memoV1ProgramID = solana.MustPublicKeyFromBase58("Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo")

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

// memoText returns the memo of a transaction as getSignaturesForAddress shows it, formatted
// as Agave does: "[<length in bytes>] <text>" for each instruction of either Memo program,
// "(unparsable)" for data that is not UTF-8, joined by "; "; nil without a memo. It reads
// the message, so a failed transaction's memos show too.
func memoText(m *solana.Message) *string {
	var memos []string
	for _, ci := range m.Instructions {
		if p := m.AccountKeys[ci.ProgramIDIndex]; p != solana.MemoProgramID && p != memoV1ProgramID {
			continue
		}
		text := string(ci.Data)
		if !utf8.ValidString(text) {
			text = "(unparsable)"
		}
		memos = append(memos, fmt.Sprintf("[%d] %s", len(ci.Data), text))
	}
	if memos == nil {
		return nil
	}
	joined := strings.Join(memos, "; ")
	return &joined
}
