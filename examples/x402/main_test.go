package main

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/examples/internal/cli"
	"github.com/agentapis/sdk/examples/internal/clitest"
	"github.com/agentapis/sdk/x402/x402test"
)

// testKey is a well-known public test key (the second Hardhat development account), and
// testAddress its address.
const (
	testKey     = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
	testAddress = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
)

func TestRunOffline(t *testing.T) {
	t.Parallel()
	code, out, errOut := clitest.Run(t, realMain, nil)
	require.Equal(t, cli.ExitOK, code, errOut)
	for _, want := range []string{
		"quote: $0.13 to " + x402test.DefaultPayTo + " on eip155:8453 for /report/macro-inflation (cap $0.25)\n",
		"status: 200\nbody: Inflation report: CPI 2.4% year on year.\n",
		"receipt: success=true transaction=0x",
		"spent: $0.13 of the $0.25 cap\n",
		"balances: payer $0.87, shop $0.13\n",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "130000", "amounts are shown in dollars")
	assert.NotContains(t, out, "870000")
}

func TestHelpPrintsTheUsageAndDoesNothing(t *testing.T) {
	t.Parallel()
	clitest.AssertHelp(t, realMain, "x402", cli.EnvEVMPrivateKey)
}

func TestRefusesContradictoryOrIncompleteFlags(t *testing.T) {
	t.Parallel()
	withKey := map[string]string{cli.EnvEVMPrivateKey: testKey}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"live payments without a URL", withKey, []string{"-live-payments"}, "-live-payments pays the resource at -url: give -url"},
		{"live payments without a key", nil, []string{"-live-payments", "-url", "https://seller.example/r"}, "-live-payments needs EVM_PRIVATE_KEY"},
		{"a key that is not one", map[string]string{cli.EnvEVMPrivateKey: testKey[:63]}, []string{"-live-payments", "-url", "https://seller.example/r"}, "EVM_PRIVATE_KEY: "},
		{"a zero cap", nil, []string{"-cap", "0"}, `-cap "0": the cap must be a positive dollar amount`},
		{"a negative cap", nil, []string{"-cap", "-1"}, `-cap "-1": the cap must be a positive dollar amount`},
		{"a cap that is no amount", nil, []string{"-cap", "a lot"}, `-cap "a lot": the cap must be a positive dollar amount`},
		{"a URL that is not http", nil, []string{"-url", "ftp://seller.example/r"}, `-url "ftp://seller.example/r": not an http or https URL`},
		{"an unknown flag", nil, []string{"-budget", "5"}, "flag provided but not defined: -budget"},
		{"an argument", nil, []string{"https://seller.example/r"}, `unexpected argument "https://seller.example/r"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clitest.AssertRefused(t, realMain, "x402", tc.env, tc.want, tc.args...)
		})
	}
}

func TestABadKeyIsNotEchoed(t *testing.T) {
	t.Parallel()
	code, _, errOut := clitest.Run(t, realMain, map[string]string{cli.EnvEVMPrivateKey: testKey[:63]}, "-live-payments", "-url", "https://seller.example/r")
	assert.Equal(t, cli.ExitRefused, code)
	assert.NotContains(t, errOut, testKey[:20])
}

func TestAGivenURLIsOnlyQuotedWithoutLivePayments(t *testing.T) {
	t.Parallel()
	srv := x402test.NewServer()
	defer srv.Close()
	srv.Facilitator().Fund(testAddress, big.NewInt(1_000_000))
	code, out, errOut := clitest.Run(t, realMain, map[string]string{cli.EnvEVMPrivateKey: testKey}, "-url", srv.URL+"/data")
	require.Equal(t, cli.ExitOK, code, errOut)
	assert.Equal(t, "quote: $0.01 to "+x402test.DefaultPayTo+" on eip155:8453 for /data (cap $0.25)\nnot paid: give -live-payments to pay it\n", out)
	assert.Empty(t, srv.Facilitator().Settlements())
	assert.Equal(t, big.NewInt(1_000_000), srv.Facilitator().Balance(testAddress))
}

func TestLivePaymentsPayTheGivenURL(t *testing.T) {
	t.Parallel()
	srv := x402test.NewServer()
	defer srv.Close()
	srv.Facilitator().Fund(testAddress, big.NewInt(1_000_000))
	code, out, errOut := clitest.Run(t, realMain, map[string]string{cli.EnvEVMPrivateKey: testKey}, "-url", srv.URL+"/data", "-live-payments", "-cap", "0.02")
	require.Equal(t, cli.ExitOK, code, errOut)
	assert.Contains(t, out, "quote: $0.01 to "+x402test.DefaultPayTo+" on eip155:8453 for /data (cap $0.02)\n")
	assert.Contains(t, out, "payer="+testAddress+"\n")
	assert.Contains(t, out, "spent: $0.01 of the $0.02 cap\n")
	assert.NotContains(t, out, "balances:", "a live resource's ledger is not the program's to show")
	assert.Len(t, srv.Facilitator().Settlements(), 1)
	assert.Equal(t, big.NewInt(990_000), srv.Facilitator().Balance(testAddress))
	assert.NotContains(t, out+errOut, testKey)
}

func TestAPaymentOverTheCapFailsInDollars(t *testing.T) {
	t.Parallel()
	code, out, errOut := clitest.Run(t, realMain, nil, "-cap", "0.05")
	assert.Equal(t, cli.ExitFailed, code)
	assert.NotContains(t, out, "receipt:")
	assert.Contains(t, errOut, "x402: amount above the per-payment cap: amount $0.13, limit $0.05\n")
}
