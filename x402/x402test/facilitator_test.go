package x402test_test

import (
	"encoding/hex"
	"math/big"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/sdktest"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// shopAddress receives the payments in these tests.
const shopAddress = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

// start is the clock of these tests.
var start = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// requirements returns the entry of a Base mainnet USDC charge of amount.
func requirements(amount int64) (*wire.PaymentRequired, wire.PaymentRequirements) {
	r := wire.PaymentRequirements{
		Scheme: evm.SchemeExact, Network: evm.NetworkBase, Amount: big.NewInt(amount), Asset: evm.USDCBase,
		PayTo: shopAddress, MaxTimeoutSeconds: 60, Extra: map[string]any{"name": "USD Coin", "version": "2"},
	}
	return &wire.PaymentRequired{X402Version: 2, Accepts: []wire.PaymentRequirements{r}}, r
}

// newSigner returns a signer for a fresh random key.
func newSigner(t testing.TB) *evm.PrivateKeySigner {
	t.Helper()
	k, err := crypto.GenerateKey()
	require.NoError(t, err)
	s, err := evm.NewPrivateKeySigner(hex.EncodeToString(crypto.FromECDSA(k)))
	require.NoError(t, err)
	return s
}

// pay signs a payment of amount at start.
func pay(t *testing.T, s evm.Signer, amount int64) (*wire.PaymentPayload, wire.PaymentRequirements) {
	t.Helper()
	pr, r := requirements(amount)
	p, err := evm.SignExact(s, pr, &pr.Accepts[0], start)
	require.NoError(t, err)
	return p, r
}

// authorizationOf returns the EIP-3009 authorization an EVM payment carries.
func authorizationOf(t testing.TB, p *wire.PaymentPayload) evm.Authorization {
	t.Helper()
	e, err := evm.DecodeExactPayload(p)
	require.NoError(t, err)
	return e.Authorization
}

// nonceHex returns the nonce of an EVM payment in hex, without 0x.
func nonceHex(t testing.TB, p *wire.PaymentPayload) string {
	t.Helper()
	nonce := authorizationOf(t, p).Nonce
	return hex.EncodeToString(nonce[:])
}

// changeAuthorization changes the authorization an EVM payment carries, keeping its
// signature, as a thief or a bug would.
func changeAuthorization(t testing.TB, p *wire.PaymentPayload, change func(*evm.Authorization)) {
	t.Helper()
	e, err := evm.DecodeExactPayload(p)
	require.NoError(t, err)
	change(&e.Authorization)
	p.Payload, err = e.MarshalJSON()
	require.NoError(t, err)
}

// reason returns the code of a *wire.VerifyError.
func reason(t *testing.T, err error) string {
	t.Helper()
	var ve *wire.VerifyError
	require.ErrorAs(t, err, &ve)
	return ve.Reason
}

func newFacilitator() *x402test.Facilitator {
	return x402test.NewFacilitator(x402test.WithClock(sdktest.NewClock(start)))
}

func TestSettleMovesBalancesAndRecords(t *testing.T) {
	t.Parallel()
	f := newFacilitator()
	s := newSigner(t)
	f.Fund(s.Address(), big.NewInt(1000))
	f.Fund(s.Address(), big.NewInt(500))
	assert.Equal(t, big.NewInt(1500), f.Balance(s.Address()))

	p, r := pay(t, s, 400)
	payer, err := f.Verify(p, r)
	require.NoError(t, err)
	assert.Equal(t, s.Address(), payer)
	assert.Equal(t, big.NewInt(1500), f.Balance(s.Address()), "verify changes nothing")

	receipt, err := f.Settle(p, r)
	require.NoError(t, err)
	assert.True(t, receipt.Success)
	assert.Regexp(t, regexp.MustCompile(`^0x[0-9a-f]{64}$`), receipt.Transaction)
	assert.Equal(t, evm.NetworkBase, receipt.Network)
	assert.Equal(t, s.Address(), receipt.Payer)
	assert.Equal(t, "400", receipt.Amount)

	assert.Equal(t, big.NewInt(1100), f.Balance(s.Address()))
	assert.Equal(t, big.NewInt(400), f.Balance(shopAddress))
	assert.Equal(t, big.NewInt(400), f.Balance("0x209693bc6afc0c5328ba36faf03c514ef312287c"), "addresses ignore case")

	got := f.Settlements()
	require.Len(t, got, 1)
	assert.Equal(t, x402test.Settlement{
		From: s.Address(), To: shopAddress, Value: big.NewInt(400),
		ID:     "0x" + nonceHex(t, p),
		TxHash: receipt.Transaction, Network: evm.NetworkBase, Asset: evm.USDCBase, Time: start,
	}, got[0])
	got[0].Value.SetInt64(1)
	assert.Equal(t, big.NewInt(400), f.Settlements()[0].Value, "Settlements returns a copy")

	p2, r2 := pay(t, s, 400)
	receipt2, err := f.Settle(p2, r2)
	require.NoError(t, err)
	assert.NotEqual(t, receipt.Transaction, receipt2.Transaction)
}

func TestFacilitatorRefusals(t *testing.T) {
	t.Parallel()
	t.Run("nonce reuse", func(t *testing.T) {
		t.Parallel()
		f := newFacilitator()
		s := newSigner(t)
		f.Fund(s.Address(), big.NewInt(1000))
		p, r := pay(t, s, 100)
		_, err := f.Settle(p, r)
		require.NoError(t, err)
		receipt, err := f.Settle(p, r)
		assert.Equal(t, evm.ReasonNonceAlreadyUsed, reason(t, err))
		assert.False(t, receipt.Success)
		assert.Equal(t, evm.ReasonNonceAlreadyUsed, receipt.ErrorReason)
		assert.Empty(t, receipt.Transaction)
		_, err = f.Verify(p, r)
		assert.Equal(t, evm.ReasonNonceAlreadyUsed, reason(t, err))
		assert.Equal(t, big.NewInt(900), f.Balance(s.Address()))
		assert.Len(t, f.Settlements(), 1)
	})
	t.Run("changed required amount", func(t *testing.T) {
		t.Parallel()
		f := newFacilitator()
		s := newSigner(t)
		f.Fund(s.Address(), big.NewInt(1000))
		p, r := pay(t, s, 100)
		r.Amount = big.NewInt(200)
		_, err := f.Settle(p, r)
		assert.Equal(t, evm.ReasonValueMismatch, reason(t, err))
	})
	t.Run("changed signed amount", func(t *testing.T) {
		t.Parallel()
		f := newFacilitator()
		s := newSigner(t)
		f.Fund(s.Address(), big.NewInt(1000))
		p, r := pay(t, s, 100)
		changeAuthorization(t, p, func(a *evm.Authorization) { a.Value = big.NewInt(200) })
		r.Amount = big.NewInt(200)
		_, err := f.Settle(p, r)
		assert.Equal(t, evm.ReasonInvalidSignature, reason(t, err))
		assert.Equal(t, big.NewInt(1000), f.Balance(s.Address()))
	})
	t.Run("expired window", func(t *testing.T) {
		t.Parallel()
		f := x402test.NewFacilitator(x402test.WithClock(sdktest.NewClock(start.Add(55 * time.Second))))
		s := newSigner(t)
		f.Fund(s.Address(), big.NewInt(1000))
		p, r := pay(t, s, 100)
		_, err := f.Settle(p, r)
		assert.Equal(t, evm.ReasonValidBefore, reason(t, err))
	})
	t.Run("not yet valid", func(t *testing.T) {
		t.Parallel()
		f := x402test.NewFacilitator(x402test.WithClock(sdktest.NewClock(start.Add(-11 * time.Minute))))
		s := newSigner(t)
		f.Fund(s.Address(), big.NewInt(1000))
		p, r := pay(t, s, 100)
		_, err := f.Verify(p, r)
		assert.Equal(t, evm.ReasonValidAfter, reason(t, err))
	})
	t.Run("insufficient balance", func(t *testing.T) {
		t.Parallel()
		f := newFacilitator()
		s := newSigner(t)
		f.Fund(s.Address(), big.NewInt(99))
		p, r := pay(t, s, 100)
		_, err := f.Verify(p, r)
		assert.Equal(t, evm.ReasonInsufficientBalance, reason(t, err))
		receipt, err := f.Settle(p, r)
		assert.Equal(t, evm.ReasonInsufficientBalance, reason(t, err))
		assert.Equal(t, s.Address(), receipt.Payer)
		assert.Equal(t, big.NewInt(99), f.Balance(s.Address()))
	})
	t.Run("forged signature", func(t *testing.T) {
		t.Parallel()
		f := newFacilitator()
		victim, thief := newSigner(t), newSigner(t)
		f.Fund(victim.Address(), big.NewInt(1000))
		p, r := pay(t, thief, 100)
		changeAuthorization(t, p, func(a *evm.Authorization) { a.From = victim.Address() })
		_, err := f.Settle(p, r)
		assert.Equal(t, evm.ReasonInvalidSignature, reason(t, err))
		assert.Equal(t, big.NewInt(1000), f.Balance(victim.Address()))
	})
}

func TestFailNextSettle(t *testing.T) {
	t.Parallel()
	f := newFacilitator()
	s := newSigner(t)
	f.Fund(s.Address(), big.NewInt(1000))
	f.FailNextSettle("invalid_exact_evm_transaction_failed")
	p, r := pay(t, s, 100)
	receipt, err := f.Settle(p, r)
	assert.Equal(t, "invalid_exact_evm_transaction_failed", reason(t, err))
	assert.False(t, receipt.Success)
	assert.Equal(t, big.NewInt(1000), f.Balance(s.Address()))
	// Only the next settlement fails; the same payment settles afterwards.
	receipt, err = f.Settle(p, r)
	require.NoError(t, err)
	assert.True(t, receipt.Success)
}

func TestConcurrentSettlesOfOnePaymentSettleOnce(t *testing.T) {
	t.Parallel()
	f := newFacilitator()
	s := newSigner(t)
	f.Fund(s.Address(), big.NewInt(1000))
	p, r := pay(t, s, 100)
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.Settle(p, r); err == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 1, ok)
	assert.Equal(t, big.NewInt(900), f.Balance(s.Address()))
}
