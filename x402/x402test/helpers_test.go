package x402test_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
)

// newPayer returns a payer paying with signer's EVM "exact" scheme within policy; see
// payerOf.
func newPayer(t testing.TB, signer evm.Signer, policy x402.Policy, opts ...x402.PayerOption) *x402.Payer {
	t.Helper()
	scheme, err := evm.NewExact(signer)
	require.NoError(t, err)
	return payerOf(t, []x402.Scheme{scheme}, policy, opts...)
}

// payerOf returns a payer paying with schemes within policy, whose total is not capped when
// the policy sets none. It draws on a budget kept in the store budgettest.EnvStore names (see
// budgettest.ForPayer), so that these tests run again on every store.
func payerOf(t testing.TB, schemes []x402.Scheme, policy x402.Policy, opts ...x402.PayerOption) *x402.Payer {
	t.Helper()
	if policy.MaxTotal == nil {
		policy.MaxTotal = budget.Unlimited
	}
	policy, first := budgettest.ForPayer(t, policy, nil)
	payer, err := x402.NewPayer(policy, schemes, append(first, opts...)...)
	require.NoError(t, err)
	return payer
}
