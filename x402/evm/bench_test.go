package evm_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/agentapis/sdk/internal/spectest"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/wire"
)

// benchFixture is the challenge of the spec's requirements (Base Sepolia USDC) and the entry
// to sign for, with the time of its example.
func benchFixture(b *testing.B) (*wire.PaymentRequired, *wire.PaymentRequirements, time.Time) {
	p := spectest.Payload(b)
	pr := &wire.PaymentRequired{X402Version: 2, Resource: p.Resource, Accepts: []wire.PaymentRequirements{p.Accepted}}
	return pr, &pr.Accepts[0], time.Unix(1740672100, 0)
}

// digestSigner is an evm.Signer that does not sign: it keeps the digest it was asked to sign
// and returns a fixed signature.
type digestSigner struct {
	address string
	digest  [32]byte
}

func (d *digestSigner) Address() string { return d.address }

func (d *digestSigner) SignDigest(digest [32]byte) ([]byte, error) {
	d.digest = digest
	sig := make([]byte, 65)
	sig[64] = 27
	return sig, nil
}

// apitypesData is the same authorization as typed data for go-ethereum's generic EIP-712
// encoder, the path the reference Go signer takes.
func apitypesData(b *testing.B, p *wire.PaymentPayload) apitypes.TypedData {
	e, err := evm.DecodeExactPayload(p)
	if err != nil {
		b.Fatal(err)
	}
	a := e.Authorization
	name, version, _ := evm.TokenDomain(&p.Accepted)
	return apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {
				{Name: "name", Type: "string"}, {Name: "version", Type: "string"},
				{Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"},
			},
			"TransferWithAuthorization": {
				{Name: "from", Type: "address"}, {Name: "to", Type: "address"}, {Name: "value", Type: "uint256"},
				{Name: "validAfter", Type: "uint256"}, {Name: "validBefore", Type: "uint256"}, {Name: "nonce", Type: "bytes32"},
			},
		},
		PrimaryType: "TransferWithAuthorization",
		Domain: apitypes.TypedDataDomain{
			Name: name, Version: version, ChainId: math.NewHexOrDecimal256(84532), VerifyingContract: p.Accepted.Asset,
		},
		Message: apitypes.TypedDataMessage{
			"from": a.From, "to": a.To, "value": a.Value.String(), "validAfter": a.ValidAfter.String(),
			"validBefore": a.ValidBefore.String(), "nonce": a.Nonce[:],
		},
	}
}

// BenchmarkDigest compares the hand-written EIP-712 digest of an authorization with
// go-ethereum's generic typed-data encoder, and checks that both give the same digest. The
// typed data is built once, outside the loop, which favours apitypes.
func BenchmarkDigest(b *testing.B) {
	pr, r, now := benchFixture(b)
	ds := &digestSigner{address: "0x857b06519E91e3A54538791bDbb0E22373e36b66"}
	p, err := evm.SignExact(ds, pr, r, now)
	if err != nil {
		b.Fatal(err)
	}
	want := ds.digest
	e, err := evm.DecodeExactPayload(p)
	if err != nil {
		b.Fatal(err)
	}
	if got, err := evm.DigestFor(r, &e.Authorization); err != nil || got != want {
		b.Fatalf("the digest %x differs from the one signed, %x (%v)", got, want, err)
	}
	td := apitypesData(b, p)
	got, _, err := apitypes.TypedDataAndHash(td)
	if err != nil || !bytes.Equal(got, want[:]) {
		b.Fatalf("apitypes digest %x differs from %x (%v)", got, want, err)
	}
	b.Run("handwritten", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := evm.DigestFor(r, &e.Authorization); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("apitypes", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := apitypes.TypedDataAndHash(td); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSign compares digest plus signature (the EIP-712 digest of an authorization and
// its secp256k1 signature by a PrivateKeySigner) with a bare crypto.Sign of a fixed hash, the
// floor (target: within 1.15x).
func BenchmarkSign(b *testing.B) {
	pr, r, now := benchFixture(b)
	const hexKey = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	signer, err := evm.NewPrivateKeySigner(hexKey)
	if err != nil {
		b.Fatal(err)
	}
	key, err := crypto.HexToECDSA(hexKey)
	if err != nil {
		b.Fatal(err)
	}
	p, err := evm.SignExact(signer, pr, r, now)
	if err != nil {
		b.Fatal(err)
	}
	e, err := evm.DecodeExactPayload(p)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("digest+sign", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d, err := evm.DigestFor(r, &e.Authorization)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := signer.SignDigest(d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bare-crypto.Sign", func(b *testing.B) {
		b.ReportAllocs()
		hash := crypto.Keccak256([]byte("fixed"))
		for b.Loop() {
			if _, err := crypto.Sign(hash, key); err != nil {
				b.Fatal(err)
			}
		}
	})
}
