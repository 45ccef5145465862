package main

import (
	"bytes"
	"context"
	"io"
	"math/big"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/examples/internal/cli"
	"github.com/agentapis/sdk/examples/internal/clitest"
	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
	"github.com/agentapis/sdk/x402"
)

// scan checks that no credential a client of this suite sends ever reaches a log line or an
// error string.
var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }

// testKey is a well-known public test key (the second Hardhat development account), and
// testAddress its address.
const (
	testKey     = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
	testAddress = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
)

func TestRunOffline(t *testing.T) {
	t.Parallel()
	text := clitest.Output(t, func(ctx context.Context, w io.Writer) error {
		return run(ctx, w, settings{key: testKey, reportID: "macro-gdp", cap: big.NewInt(500_000), rows: 3})
	})
	clitest.AssertContainsAll(t, text,
		"offline: using the in-memory fake store",
		"quote for macro-gdp: $0.13 to 0x7E57000000000000000000000000000000005707 on eip155:8453 (cap $0.50)",
		"bought macro-gdp: ",
		"of text/csv, 220 rows\n  US 2015 NY.GDP.MKTP.CD ",
		"receipt: success true, transaction 0x",
		"payer "+testAddress,
		"total spent: $0.13 of the $0.50 cap\n",
	)
	assert.Regexp(t, regexp.MustCompile(`(?m)^  US 2017 NY\.GDP\.MKTP\.CD [0-9]+\.?[0-9]*$`), text)
	assert.NotContains(t, strings.ToLower(text), testKey, "the key is never printed")
}

func TestRunRefusesAReportOverTheCap(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	err := run(t.Context(), &out, settings{reportID: "macro-fdi", cap: big.NewInt(200_000), rows: 3})
	require.ErrorIs(t, err, x402.ErrAmountOverCap)
	assert.Contains(t, out.String(), "quote for macro-fdi: $0.28")
	assert.NotContains(t, out.String(), "bought")
	assert.True(t, strings.HasSuffix(err.Error(), x402.ErrAmountOverCap.Error()+": amount $0.28, limit $0.20"), err.Error())
}

func TestMainShowsAFailureInDollars(t *testing.T) {
	t.Parallel()
	code, out, errOut := clitest.Run(t, realMain, nil, "-report", "macro-fdi", "-cap", "0.20")
	assert.Equal(t, cli.ExitFailed, code)
	assert.Contains(t, out, "quote for macro-fdi: $0.28")
	assert.Contains(t, errOut, "reportstore: buying macro-fdi: ")
	assert.Contains(t, errOut, ": amount $0.28, limit $0.20\n")
}

func TestHelpPrintsTheUsageAndDoesNothing(t *testing.T) {
	t.Parallel()
	clitest.AssertHelp(t, realMain, "reportstore", reportstore.EnvURL, cli.EnvEVMPrivateKey, cli.EnvReportstorePayTo)
}

func TestRefusesContradictoryOrIncompleteFlags(t *testing.T) {
	t.Parallel()
	store := map[string]string{reportstore.EnvURL: "https://store.example"}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"live payments without a store", map[string]string{cli.EnvEVMPrivateKey: testKey}, []string{"-live-payments"},
			"-live-payments buys from the store at REPORTSTORE_URL: set it"},
		{"live payments without a key", store, []string{"-live-payments"}, "-live-payments needs EVM_PRIVATE_KEY"},
		{"a key that is not one", map[string]string{reportstore.EnvURL: "https://store.example", cli.EnvEVMPrivateKey: "0x12"}, []string{"-live-payments"},
			"EVM_PRIVATE_KEY: "},
		{"a zero cap", nil, []string{"-cap", "0"}, `-cap "0": the cap must be a positive dollar amount`},
		{"a negative cap", store, []string{"-cap", "-0.5"}, `-cap "-0.5": the cap must be a positive dollar amount`},
		{"a cap with too many decimals", nil, []string{"-cap", "0.0000001"}, `-cap "0.0000001": the cap must be a positive dollar amount`},
		{"negative rows", nil, []string{"-rows", "-1"}, "-rows -1: a count of rows cannot be negative"},
		{"no report", nil, []string{"-report", ""}, "-report: give the id of a report"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clitest.AssertRefused(t, realMain, "reportstore", tc.env, tc.want, tc.args...)
		})
	}
}

func TestALiveStoreIsOnlyQuotedWithoutLivePayments(t *testing.T) {
	t.Parallel()
	store := reportstoretest.NewServer()
	defer store.Close()
	store.Facilitator().Fund(testAddress, big.NewInt(1_000_000))
	env := map[string]string{reportstore.EnvURL: store.URL, cli.EnvEVMPrivateKey: testKey}
	code, out, errOut := clitest.Run(t, realMain, env)
	require.Equal(t, cli.ExitOK, code, errOut)
	assert.Equal(t, "quote for macro-gdp: $0.13 to "+reportstoretest.DefaultPayTo+" on eip155:8453 (cap $0.50)\n"+
		"not buying from a live store: give -live-payments, with EVM_PRIVATE_KEY, to buy it\n", out)
	assert.Zero(t, store.Sales("macro-gdp"))
	assert.Equal(t, big.NewInt(1_000_000), store.Facilitator().Balance(testAddress))
}

func TestLivePaymentsBuyFromTheStore(t *testing.T) {
	t.Parallel()
	store := reportstoretest.NewServer()
	defer store.Close()
	store.Facilitator().Fund(testAddress, big.NewInt(1_000_000))
	env := map[string]string{reportstore.EnvURL: store.URL, cli.EnvEVMPrivateKey: testKey, cli.EnvReportstorePayTo: store.PayTo()}
	code, out, errOut := clitest.Run(t, realMain, env, "-live-payments", "-cap", "0.20", "-rows", "1")
	require.Equal(t, cli.ExitOK, code, errOut)
	assert.NotContains(t, out, "offline")
	assert.Contains(t, out, "payer "+testAddress)
	assert.Contains(t, out, "total spent: $0.13 of the $0.20 cap\n")
	assert.Equal(t, 1, store.Sales("macro-gdp"))
	assert.Equal(t, big.NewInt(870_000), store.Facilitator().Balance(testAddress))
}

func TestLivePaymentsPayOnlyThePinnedPayee(t *testing.T) {
	t.Parallel()
	store := reportstoretest.NewServer()
	defer store.Close()
	store.Facilitator().Fund(testAddress, big.NewInt(1_000_000))
	env := map[string]string{reportstore.EnvURL: store.URL, cli.EnvEVMPrivateKey: testKey,
		cli.EnvReportstorePayTo: "0x1111111111111111111111111111111111111111"}
	code, _, errOut := clitest.Run(t, realMain, env, "-live-payments")
	assert.Equal(t, cli.ExitFailed, code)
	assert.Contains(t, errOut, "reportstore: quoting macro-gdp: ")
	assert.Contains(t, errOut, "expected 0x1111111111111111111111111111111111111111\n")
	assert.Zero(t, store.Sales("macro-gdp"))
	assert.Equal(t, big.NewInt(1_000_000), store.Facilitator().Balance(testAddress))
}
