package svm

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"io"
	"log/slog"

	"github.com/gagliardetto/solana-go"
)

// Signer is a Solana wallet that pays: it names its public key and signs a transaction's
// message with ed25519. The private key never leaves it; only signatures do. A hardware
// wallet or a key management service can implement it.
type Signer interface {
	// PublicKey returns the wallet's address; it owns the token account a payment comes
	// from.
	PublicKey() solana.PublicKey
	// SignMessage returns the ed25519 signature of message, the serialized transaction
	// message.
	SignMessage(message []byte) (solana.Signature, error)
}

// PrivateKeySigner is a Signer holding an ed25519 private key in memory. Printing it with
// any fmt verb or through slog shows only its public key.
type PrivateKeySigner struct {
	key solana.PrivateKey
	pub solana.PublicKey
}

// NewPrivateKeySigner returns a signer of key, a 64-byte Solana private key (such as
// solana.NewWallet().PrivateKey). An invalid key is an *sdk.ValidationError that does not
// quote it.
//
// The key's second half must be the public key of its first (the seed): ed25519 signs with
// both, and a key whose halves disagree makes signatures no one can verify. Checked once
// here, a PrivateKeySigner's signatures need no checking afterwards (SignAs checks those of
// any other Signer).
func NewPrivateKeySigner(key solana.PrivateKey) (*PrivateKeySigner, error) {
	if err := key.Validate(); err != nil {
		return nil, invalid("private key", "not a valid 64-byte ed25519 Solana private key")
	}
	if !bytes.Equal(ed25519.NewKeyFromSeed(key[:ed25519.SeedSize]), key) {
		return nil, invalid("private key", "its public half is not the public key of its seed")
	}
	own := append(solana.PrivateKey(nil), key...)
	return &PrivateKeySigner{key: own, pub: own.PublicKey()}, nil
}

// PrivateKeySignerFromBase58 returns a signer of a private key written in base58, as Solana
// wallets export it. An invalid key is an *sdk.ValidationError that does not quote it.
func PrivateKeySignerFromBase58(key string) (*PrivateKeySigner, error) {
	k, err := solana.PrivateKeyFromBase58(key)
	if err != nil {
		return nil, invalid("private key", "not the base58 text of a 64-byte ed25519 Solana private key")
	}
	return NewPrivateKeySigner(k)
}

// PublicKey returns the wallet's address.
func (s *PrivateKeySigner) PublicKey() solana.PublicKey { return s.pub }

// SignMessage signs message with the private key. The key's halves were checked when s was
// made, so it signs with crypto/ed25519 directly (solana-go's PrivateKey.Sign checks them
// again on every call).
func (s *PrivateKeySigner) SignMessage(message []byte) (solana.Signature, error) {
	var sig solana.Signature
	copy(sig[:], ed25519.Sign(ed25519.PrivateKey(s.key), message))
	return sig, nil
}

// String shows the public key only.
func (s *PrivateKeySigner) String() string {
	return "svm.PrivateKeySigner(" + s.pub.String() + ")"
}

// Format prints String for every verb, so that no verb shows the private key.
func (s *PrivateKeySigner) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, s.String()) }

// LogValue makes slog record String.
func (s *PrivateKeySigner) LogValue() slog.Value { return slog.StringValue(s.String()) }
