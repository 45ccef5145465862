// Package signertest makes the signers of the payers in tests: each of a new random key that
// the test's secret scan knows, and, where a test counts them, signers that count their
// signatures and hand each to the scan, so that a test can show that a refusal signed
// nothing and that no key or signature reaches an error or a log.
package signertest

import (
	"encoding/hex"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/svm"
)

// NewEVM returns an EVM signer of a new random key, which scan knows.
func NewEVM(t testing.TB, scan *secrettest.Scanner) *evm.PrivateKeySigner {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatalf("generate a key: %v", err)
	}
	key := hex.EncodeToString(crypto.FromECDSA(k))
	scan.Add(key)
	s, err := evm.NewPrivateKeySigner(key)
	if err != nil {
		t.Fatalf("new signer: %v", err)
	}
	return s
}

// EVM is an EVM signer that counts its signatures and hands each to its scan.
type EVM struct {
	evm.Signer
	scan   *secrettest.Scanner
	signed atomic.Int64
}

// CountEVM returns s counting its signatures, each of which scan sees.
func CountEVM(s evm.Signer, scan *secrettest.Scanner) *EVM { return &EVM{Signer: s, scan: scan} }

// SignDigest signs with the signer it wraps, counting the signature.
func (c *EVM) SignDigest(d [32]byte) ([]byte, error) {
	c.signed.Add(1)
	sig, err := c.Signer.SignDigest(d)
	c.scan.Add(hex.EncodeToString(sig))
	return sig, err
}

// Signed returns how many signatures it made.
func (c *EVM) Signed() int64 { return c.signed.Load() }

// Solana is a Solana wallet of a new random key that counts its signatures and hands each to
// its scan, as EVM does.
type Solana struct {
	svm.Signer
	scan   *secrettest.Scanner
	signed atomic.Int64
}

// NewSolana returns a counting Solana wallet of a new random key, which scan knows.
func NewSolana(t testing.TB, scan *secrettest.Scanner) *Solana {
	t.Helper()
	key := solana.NewWallet().PrivateKey
	scan.Add(key.String())
	s, err := svm.NewPrivateKeySigner(key)
	if err != nil {
		t.Fatalf("new wallet: %v", err)
	}
	return &Solana{Signer: s, scan: scan}
}

// SignMessage signs with the wallet it wraps, counting the signature.
func (c *Solana) SignMessage(message []byte) (solana.Signature, error) {
	c.signed.Add(1)
	sig, err := c.Signer.SignMessage(message)
	c.scan.Add(sig.String())
	return sig, err
}

// Signed returns how many signatures it made.
func (c *Solana) Signed() int64 { return c.signed.Load() }

// Address returns the wallet's address, base58.
func (c *Solana) Address() string { return c.PublicKey().String() }
