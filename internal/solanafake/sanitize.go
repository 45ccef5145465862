package solanafake

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gagliardetto/solana-go"
)

// MaxTransactionSize is the largest wire transaction a node accepts, in bytes.
const MaxTransactionSize = 1232

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

// wireTransaction is a transaction as the node received it: decoded, and the bytes its
// signatures sign.
type wireTransaction struct {
	tx *solana.Transaction
	// raw is the whole wire transaction, signatures included.
	raw []byte
	// message is the part of raw the signatures sign.
	message []byte
}

// decodeWire decodes and sanitizes a wire transaction, answering as a node does to one that
// is too large, does not decode or is malformed; encoding names the parameter's encoding in
// the messages.
func decodeWire(raw []byte, encoding string) (*wireTransaction, *Error) {
	if len(raw) > MaxTransactionSize {
		return nil, invalidParams(fmt.Sprintf("%s encoded solana_sdk::transaction::versioned::VersionedTransaction too large: %d bytes (max: %d bytes)",
			encoding, len(raw), MaxTransactionSize))
	}
	tx, err := solana.TransactionFromBytes(raw)
	if err != nil {
		return nil, invalidParams("failed to deserialize solana_sdk::transaction::versioned::VersionedTransaction: " + err.Error())
	}
	if err := sanitize(tx); err != nil {
		return nil, invalidParams(err.Error())
	}
	skip := compactLength(len(tx.Signatures)) + len(tx.Signatures)*solana.SignatureLength
	return &wireTransaction{tx: tx, raw: raw, message: raw[skip:]}, nil
}

// encodeWire returns the wire form of tx, for the methods that take a decoded transaction.
func encodeWire(tx *solana.Transaction) (*wireTransaction, *Error) {
	raw, err := tx.MarshalBinary()
	if err != nil {
		return nil, invalidParams("the transaction does not encode: " + err.Error())
	}
	return decodeWire(raw, "base64")
}

// compactLength returns the size of n in Solana's compact-u16 encoding.
func compactLength(n int) int {
	var buf [binary.MaxVarintLen16]byte
	return binary.PutUvarint(buf[:], uint64(n))
}
