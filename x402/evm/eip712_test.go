package evm_test

import (
	"encoding/hex"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/signertest"
	"github.com/agentapis/sdk/internal/spectest"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/wire"
)

func TestSpecVectorRecoversToFrom(t *testing.T) {
	t.Parallel()
	p := spectest.Payload(t)
	const from = "0x857b06519E91e3A54538791bDbb0E22373e36b66"
	require.Equal(t, from, exactOf(t, p).Authorization.From)

	digest, err := evm.DigestFor(&p.Accepted, &exactOf(t, p).Authorization)
	require.NoError(t, err)
	assert.Equal(t, "f256992871671abcb27ff92885a7afa46218724e5fc0bac35d050115aa1d22e6", hex.EncodeToString(digest[:]))

	// The authorization is valid from 1740672089 to 1740672154.
	now := time.Unix(1740672100, 0)
	payer, err := evm.VerifyExact(p, p.Accepted, now)
	require.NoError(t, err)
	assert.Equal(t, from, payer)
}

func TestDomainSeparatorsMatchOnChainValues(t *testing.T) {
	t.Parallel()
	base := evm.DomainSeparator("USD Coin", "2", 8453, evm.USDCBase)
	assert.Equal(t, "0x02fa7265e7c5d81118673727957699e4d68f74cd74b7db77da710fe8a2c7834f", base.Hex())
	sepolia := evm.DomainSeparator("USDC", "2", 84532, evm.USDCBaseSepolia)
	assert.Equal(t, "0x71f17a3b2ff373b803d70a5a07c046c1a2bc8e89c09ef722fcb047abe94c9818", sepolia.Hex())
}

func TestPrivateKeySignerRecoversToItsAddress(t *testing.T) {
	t.Parallel()
	// The well-known first development key of Hardhat and Anvil.
	s, err := evm.NewPrivateKeySigner("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	require.NoError(t, err)
	assert.Equal(t, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", s.Address())

	for i := range 20 {
		var digest [32]byte
		copy(digest[:], crypto.Keccak256([]byte{byte(i)}))
		sig, err := s.SignDigest(digest)
		require.NoError(t, err)
		require.Len(t, sig, 65)
		require.Contains(t, []byte{27, 28}, sig[64])
		rec := append([]byte(nil), sig...)
		rec[64] -= 27
		pub, err := crypto.SigToPub(digest[:], rec)
		require.NoError(t, err)
		assert.Equal(t, s.Address(), crypto.PubkeyToAddress(*pub).Hex())
	}
}

func TestSignedPayloadVerifies(t *testing.T) {
	t.Parallel()
	s := newSigner(t)
	pr, err := wire.DecodePaymentRequired(spectest.Header(t, "spec_payment_required.b64"))
	require.NoError(t, err)
	now := time.Unix(1_800_000_000, 0)
	p, err := evm.SignExact(s, pr, &pr.Accepts[0], now)
	require.NoError(t, err)

	auth := exactOf(t, p).Authorization
	assert.Equal(t, s.Address(), auth.From)
	assert.Equal(t, "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", auth.To)
	assert.Equal(t, big.NewInt(10000), auth.Value)
	assert.Equal(t, big.NewInt(now.Unix()-600), auth.ValidAfter)
	assert.Equal(t, big.NewInt(now.Unix()+60), auth.ValidBefore)
	assert.NotEqual(t, [32]byte{}, auth.Nonce)

	payer, err := evm.VerifyExact(p, pr.Accepts[0], now)
	require.NoError(t, err)
	assert.Equal(t, s.Address(), payer)
}

// newSigner returns a signer of a new random key, which the secret scan knows.
func newSigner(t testing.TB) *evm.PrivateKeySigner { return signertest.NewEVM(t, scan) }
