package svm

import (
	"math/big"
	"testing"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/wire"
)

// BenchmarkSign measures the client-side work of a Solana payment once the chain was read
// (the mint and a blockhash): "sdk" is Exact's, which derives both token accounts, builds the
// v0 transaction, signs it and encodes the payload; "floor" is the least any client does,
// with solana-go's own functions: the two derivations, the serialisation of the same message
// and one ed25519 signature.
//
//	go test -run='^$' -bench='^BenchmarkSign$' -benchmem ./x402/svm
func BenchmarkSign(b *testing.B) {
	key, err := solana.NewRandomPrivateKey()
	if err != nil {
		b.Fatal(err)
	}
	signer, err := NewPrivateKeySigner(key)
	if err != nil {
		b.Fatal(err)
	}
	e := &Exact{signer: signer, price: DefaultComputeUnitPrice, limit: DefaultComputeUnitLimit}
	mint := solana.MustPublicKeyFromBase58(USDCMainnet)
	payTo, feePayer := solana.NewWallet().PublicKey(), solana.NewWallet().PublicKey()
	m := Mint{Program: solana.TokenProgramID, Decimals: 6}
	blockhash := solana.Hash{1, 2, 3}
	offer := x402.Offer{Now: time.Now(), Requirements: wire.PaymentRequirements{
		Scheme: SchemeExact, Network: NetworkMainnet, Asset: mint.String(), PayTo: payTo.String(),
		Amount: big.NewInt(10_000), Extra: map[string]any{"feePayer": feePayer.String()},
	}}

	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := e.sign(offer, feePayer, payTo, mint, m, blockhash, 1_000); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("floor", func(b *testing.B) {
		source, _, err := solana.FindAssociatedTokenAddress(key.PublicKey(), mint)
		if err != nil {
			b.Fatal(err)
		}
		destination, _, err := solana.FindAssociatedTokenAddress(payTo, mint)
		if err != nil {
			b.Fatal(err)
		}
		memo := []byte("00112233445566778899aabbccddeeff")
		tx, err := e.transaction(m, 10_000, source, mint, destination, memo, feePayer, blockhash)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if _, _, err := solana.FindAssociatedTokenAddress(key.PublicKey(), mint); err != nil {
				b.Fatal(err)
			}
			if _, _, err := solana.FindAssociatedTokenAddress(payTo, mint); err != nil {
				b.Fatal(err)
			}
			msg, err := tx.Message.MarshalBinary()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := key.Sign(msg); err != nil {
				b.Fatal(err)
			}
		}
	})
}
