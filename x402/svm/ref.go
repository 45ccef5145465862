package svm

import (
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/gagliardetto/solana-go"
)

// Ref is what the budget records of a Solana payment besides its ID (the payer's signature),
// so that a Lookup finds it on chain later: the transaction's blockhash and the last block
// height at which it can land (an upper bound), the token account it pays from, and its memo.
// It is written into ledger.Signature.Ref as text: these fields, separated by spaces, the memo
// in hex ("-" for none); the last two may be missing (holds of earlier releases).
type Ref struct {
	// Blockhash is the transaction's recent blockhash.
	Blockhash solana.Hash
	// LastValid is a block height after which the transaction can no longer land.
	LastValid uint64
	// Source is the token account the payment comes from; zero when unknown.
	Source solana.PublicKey
	// Memo is the transaction's memo, exactly; empty when unknown.
	Memo []byte
}

// String writes r as ledger.Signature.Ref holds it.
func (r Ref) String() string {
	s := r.Blockhash.String() + " " + strconv.FormatUint(r.LastValid, 10)
	if !r.Source.IsZero() {
		memo := hex.EncodeToString(r.Memo)
		if memo == "" {
			memo = "-" // no memo
		}
		s += " " + r.Source.String() + " " + memo
	}
	return s
}

// ParseRef reads a Ref written by String, or by an earlier release ("<blockhash>
// <height>"); false when s is neither.
func ParseRef(s string) (Ref, bool) {
	f := strings.Fields(s)
	if len(f) != 2 && len(f) != 4 {
		return Ref{}, false
	}
	var r Ref
	var err error
	if r.Blockhash, err = solana.HashFromBase58(f[0]); err != nil {
		return Ref{}, false
	}
	if r.LastValid, err = strconv.ParseUint(f[1], 10, 64); err != nil {
		return Ref{}, false
	}
	if len(f) == 4 {
		if r.Source, err = solana.PublicKeyFromBase58(f[2]); err != nil {
			return Ref{}, false
		}
		if f[3] != "-" {
			if r.Memo, err = hex.DecodeString(f[3]); err != nil {
				return Ref{}, false
			}
		}
	}
	return r, true
}
