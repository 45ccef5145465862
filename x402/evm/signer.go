package evm

import (
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agentapis/sdk/internal/hexstr"
)

// Signer holds the paying account. A hardware wallet or a key management service can
// implement it; NewPrivateKeySigner is the built-in implementation.
type Signer interface {
	// Address returns the account's 0x-prefixed hex address.
	Address() string
	// SignDigest signs a 32-byte EIP-712 digest and returns the 65-byte signature r‖s‖v with
	// v = 27 or 28 (0 or 1 is accepted and normalised).
	SignDigest(digest [32]byte) ([]byte, error)
}

// PrivateKeySigner is a Signer holding a secp256k1 private key in memory. It is safe for
// concurrent use, and prints as its address only, never the key.
type PrivateKeySigner struct {
	key     *ecdsa.PrivateKey
	address string
}

// NewPrivateKeySigner returns a signer for a hex-encoded secp256k1 private key (64 hex digits,
// with or without a 0x prefix). The error never quotes the key.
func NewPrivateKeySigner(hexKey string) (*PrivateKeySigner, error) {
	s := strings.TrimSpace(hexKey)
	if hexstr.Has0x(s) {
		s = s[2:]
	}
	if len(s) != 64 || !hexstr.IsHex(s) {
		return nil, invalid("private key", "must be 64 hexadecimal digits, with or without 0x")
	}
	raw, _ := hex.DecodeString(s)
	defer clear(raw)
	key, err := crypto.ToECDSA(raw)
	if err != nil {
		return nil, invalid("private key", "not a valid secp256k1 private key")
	}
	return &PrivateKeySigner{key: key, address: crypto.PubkeyToAddress(key.PublicKey).Hex()}, nil
}

// Address returns the signer's address in EIP-55 checksummed form.
func (s *PrivateKeySigner) Address() string { return s.address }

// SignDigest signs digest and returns r‖s‖v with v = 27 or 28.
func (s *PrivateKeySigner) SignDigest(digest [32]byte) ([]byte, error) {
	sig, err := crypto.Sign(digest[:], s.key)
	if err != nil {
		return nil, fmt.Errorf("x402: signing: %w", err)
	}
	sig[64] += 27
	return sig, nil
}

// String returns the signer's address, so that printing a signer never prints its key.
func (s *PrivateKeySigner) String() string { return "PrivateKeySigner(" + s.address + ")" }

// Format prints the signer as String does, whatever the verb, so that no formatting of a
// signer can reach its key.
func (s *PrivateKeySigner) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, s.String()) }

// normalizeSignature checks a Signer's output: 65 bytes with v in {0, 1, 27, 28}; it
// returns a copy with v = 27 or 28.
func normalizeSignature(sig []byte) ([]byte, error) {
	if len(sig) != 65 {
		return nil, fmt.Errorf("x402: signer returned %d bytes, want 65", len(sig))
	}
	out := append([]byte(nil), sig...)
	switch out[64] {
	case 0, 1:
		out[64] += 27
	case 27, 28:
	default:
		return nil, errors.New("x402: signer returned a signature with v not in {0, 1, 27, 28}")
	}
	return out, nil
}
