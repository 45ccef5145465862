package x402test_test

import (
	"context"
	"encoding/hex"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/x402test"
)

// The facilitator is a PaymentLookup.
var _ x402.PaymentLookup = (*x402test.Facilitator)(nil)

func TestFacilitatorLooksPaymentsUpInItsSettlements(t *testing.T) {
	t.Parallel()
	f := newFacilitator()
	s := newSigner(t)
	f.Fund(s.Address(), big.NewInt(1000))
	settled, r := pay(t, s, 100)
	_, err := f.Settle(settled, r)
	require.NoError(t, err)
	unsettled, _ := pay(t, s, 200)
	nonceOf := func(p *x402.PaymentPayload) string {
		return "0x" + hex.EncodeToString(p.Payload.Authorization.Nonce[:])
	}
	payment := func(p *x402.PaymentPayload, rail, payer, asset string) x402.Outstanding {
		return x402.Outstanding{Signature: x402.Signature{ID: nonceOf(p), Rail: rail, Payer: payer, Asset: asset}}
	}
	rail := "x402 " + x402.NetworkBase

	assert.True(t, f.Handles(rail))
	assert.True(t, f.Handles("x402 eip155:1"))
	assert.False(t, f.Handles("solana"))

	got, err := f.Lookup(t.Context(), []x402.Outstanding{
		payment(settled, rail, strings.ToLower(s.Address()), strings.ToLower(x402.USDCBase)), // any letter case
		payment(unsettled, rail, s.Address(), x402.USDCBase),
		payment(settled, "x402 "+x402.NetworkBaseSepolia, s.Address(), x402.USDCBase), // another network
		payment(settled, rail, s.Address(), x402.USDCBaseSepolia),                     // another token
		payment(settled, rail, shopAddress, x402.USDCBase),                            // another payer
	})
	require.NoError(t, err)
	require.Len(t, got, 5)
	tx := f.Settlements()[0].TxHash
	assert.Equal(t, x402.LookupResult{ID: nonceOf(settled), State: x402.ChainSettled, Transaction: tx}, got[0])
	for i, res := range got[1:] {
		assert.Equal(t, x402.ChainNotSettled, res.State, "payment %d", i+1)
		assert.Empty(t, res.Transaction)
		assert.NoError(t, res.Err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = f.Lookup(ctx, []x402.Outstanding{payment(settled, rail, s.Address(), x402.USDCBase)})
	assert.ErrorIs(t, err, context.Canceled)
}
