package x402test_test

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/ledger"
	"github.com/agentapis/sdk/x402/reconcile"
	"github.com/agentapis/sdk/x402/wire"
	"github.com/agentapis/sdk/x402/x402test"
)

// The facilitator is a reconcile.Lookup.
var _ reconcile.Lookup = (*x402test.Facilitator)(nil)

func TestFacilitatorLooksPaymentsUpInItsSettlements(t *testing.T) {
	t.Parallel()
	f := newFacilitator()
	s := newSigner(t)
	f.Fund(s.Address(), big.NewInt(1000))
	settled, r := pay(t, s, 100)
	_, err := f.Settle(settled, r)
	require.NoError(t, err)
	unsettled, _ := pay(t, s, 200)
	nonceOf := func(p *wire.PaymentPayload) string {
		return "0x" + nonceHex(t, p)
	}
	payment := func(p *wire.PaymentPayload, rail, payer, asset string) ledger.Outstanding {
		return ledger.Outstanding{Rail: rail, Payer: payer, Asset: asset, Signature: ledger.Signature{ID: nonceOf(p)}}
	}
	rail := "x402 " + evm.NetworkBase

	assert.True(t, f.Handles(rail))
	assert.True(t, f.Handles("x402 eip155:1"))
	assert.False(t, f.Handles("solana"))

	got, err := f.Lookup(t.Context(), []ledger.Outstanding{
		payment(settled, rail, strings.ToLower(s.Address()), strings.ToLower(evm.USDCBase)), // any letter case
		payment(unsettled, rail, s.Address(), evm.USDCBase),
		payment(settled, "x402 "+evm.NetworkBaseSepolia, s.Address(), evm.USDCBase), // another network
		payment(settled, rail, s.Address(), evm.USDCBaseSepolia),                    // another token
		payment(settled, rail, shopAddress, evm.USDCBase),                           // another payer
	})
	require.NoError(t, err)
	require.Len(t, got, 5)
	tx := f.Settlements()[0].TxHash
	assert.Equal(t, reconcile.Result{ID: nonceOf(settled), State: reconcile.Settled, Transaction: tx}, got[0])
	for i, res := range got[1:] {
		assert.Equal(t, reconcile.NotSettled, res.State, "payment %d", i+1)
		assert.Empty(t, res.Transaction)
		assert.NoError(t, res.Err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = f.Lookup(ctx, []ledger.Outstanding{payment(settled, rail, s.Address(), evm.USDCBase)})
	assert.ErrorIs(t, err, context.Canceled)
}
