package reportstore_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/internal/testenv"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/usdc"
)

// scan checks that no credential, token or signature the suite uses ever reaches a log line
// or an error string.
var scan = secrettest.New()

func TestMain(m *testing.M) {
	testenv.RunWaitingTestsTogether()
	os.Exit(secrettest.Main(m, scan))
}

// testKey is a well-known public test key (the second Hardhat development account); it holds
// nothing anywhere but in the fake's ledger.
const testKey = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"

// startBalance is what each test's payer is funded with: 10 USDC.
var startBalance = usdc.Dollars(10)

// testSigner returns the signer of testKey, the account every test's payer pays from.
func testSigner(t testing.TB) *evm.PrivateKeySigner {
	t.Helper()
	signer, err := evm.NewPrivateKeySigner(testKey)
	require.NoError(t, err)
	return signer
}

// testAddress returns the address of testKey's account.
func testAddress(t testing.TB) string {
	t.Helper()
	return testSigner(t).Address()
}

// exactScheme returns the schemes of a payer paying EVM exact from testKey's account.
func exactScheme(t testing.TB) []x402.Scheme {
	t.Helper()
	scheme, err := evm.NewExact(testSigner(t))
	require.NoError(t, err)
	return []x402.Scheme{scheme}
}

// newPayer returns a payer with policy whose account the store's facilitator funds with
// startBalance, drawing on a budget in the store budgettest.EnvStore names. Resends are
// quick, so that tests of dropped connections stay fast.
func newPayer(t testing.TB, srv *reportstoretest.Server, policy x402.Policy) *x402.Payer {
	t.Helper()
	policy, opts := budgettest.ForPayer(t, policy, nil)
	payer, err := x402.NewPayer(policy, exactScheme(t), append(opts, x402.WithResend(2, 1))...)
	require.NoError(t, err)
	srv.Facilitator().Fund(testAddress(t), startBalance)
	return payer
}

// newClient returns a client of srv paying with payer (none when nil).
func newClient(t testing.TB, srv *reportstoretest.Server, payer *x402.Payer, opts ...reportstore.Option) *reportstore.Client {
	t.Helper()
	defaults := []reportstore.Option{reportstore.WithBaseURL(srv.URL), reportstore.WithRetry(testkit.NoRetry)}
	if payer != nil {
		defaults = append(defaults, reportstore.WithPayer(payer))
	}
	return testkit.New(t, reportstore.New, append(defaults, opts...)...)
}

// settledValues returns the amounts of the store's settlements, oldest first.
func settledValues(srv *reportstoretest.Server) []int64 {
	var out []int64
	for _, s := range srv.Facilitator().Settlements() {
		out = append(out, s.Value.Int64())
	}
	return out
}

// requireNoMoneyMoved checks that the store settled nothing and the payer's balance is whole.
func requireNoMoneyMoved(t *testing.T, srv *reportstoretest.Server, payer *x402.Payer) {
	t.Helper()
	require.Empty(t, srv.Facilitator().Settlements())
	require.Equal(t, startBalance.String(), srv.Facilitator().Balance(testAddress(t)).String())
	require.Equal(t, "0", srv.Facilitator().Balance(srv.PayTo()).String())
	require.Equal(t, "0", budgettest.Spent(t, payer).String())
}
