package main

import (
	"bytes"
	"context"
	"math/big"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gagliardetto/solana-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/examples/internal/cli"
	"github.com/agentapis/sdk/examples/internal/clitest"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/productdata"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/usdc"
)

// offline is an environment with no variable set: every service runs against its fake.
func offline(string) string { return "" }

// environment returns an environment holding only vars.
func environment(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// testEVMKey is a well-known public test key (the second Hardhat development account), and
// testEVMAddress its address.
const (
	testEVMKey     = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
	testEVMAddress = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
)

// stepDetail returns the detail of the service's step, failing the test when the step is
// missing or failed.
func stepDetail[T any](t *testing.T, rep *report, service string) T {
	t.Helper()
	for _, st := range rep.Steps {
		if st.Service == service {
			require.NoError(t, st.Err, service)
			d, ok := st.Detail.(T)
			require.True(t, ok, "%s detail is %T", service, st.Detail)
			return d
		}
	}
	require.Failf(t, "step missing", "no %s step in the report", service)
	var zero T
	return zero
}

func TestTourRunsEveryStepOffline(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	rep, err := run(context.Background(), &out, options{}, offline)
	require.NoError(t, err)
	require.True(t, rep.OK(), out.String())
	require.Len(t, rep.Steps, len(steps))
	assert.True(t, strings.HasPrefix(out.String(),
		"the session's budget ($6.00) is in a temporary file, deleted at exit (-budget path keeps it for the next run)\n"),
		"the session runs on a temporary budget file and says so: %s", out.String())
	assert.NotContains(t, out.String(), "is kept in", "a budget deleted at exit is not kept")
	assert.Zero(t, rep.SpentBefore.Sign())

	rs := stepDetail[*reportstoreResult](t, rep, svcReportstore)
	assert.Positive(t, rs.Products)
	assert.True(t, rs.Bought)
	assert.Positive(t, rs.Rows)
	assert.NotEmpty(t, rs.Transaction)
	assert.Zero(t, rep.Reserved.Sign())

	h := stepDetail[*hostingResult](t, rep, svcHosting)
	assert.Equal(t, len(tourSite), h.Files)
	assert.Contains(t, h.SiteURL, "/site/"+h.Repo)
	assert.NotEmpty(t, h.Deployment)

	pd := stepDetail[*productdataResult](t, rep, svcProductdata)
	assert.Equal(t, tourASIN, pd.ASIN)
	assert.NotEmpty(t, pd.Title)
	assert.Positive(t, pd.SalesPrice)
	assert.NotEmpty(t, pd.TaskID)
	assert.Positive(t, pd.Polls)
	assert.Positive(t, pd.Reviews)
	// Every product-data answer of the fake consumes one unit; the session's total is this
	// step's.
	assert.Equal(t, pd.Calls, pd.Units)
	assert.Equal(t, pd.Units, rep.Units)

	gp := stepDetail[*gpupriceResult](t, rep, svcGPUPrice)
	assert.Equal(t, tourGPU, gp.Model)
	assert.NotEmpty(t, gp.Platform)
	assert.Positive(t, gp.USDPerHour)
	assert.True(t, gp.Bought)
	assert.Equal(t, gpuprice.PlanPro, gp.Plan)
	assert.NotEmpty(t, gp.Signature)
	assert.Positive(t, gp.Snapshots)
	assert.NotContains(t, out.String(), gp.Signature, "the signature redeems a key: printed masked")

	// One budget took both payments: the report's price and the Pro key's 5 USDC, and the
	// tour says where each went.
	assert.Equal(t, new(big.Int).Add(rs.Quoted, big.NewInt(5_000_000)), rep.Spent)
	require.Len(t, rep.Payments, 2)
	assert.Equal(t, payment{Amount: rs.Quoted, To: reportstoretest.DefaultPayTo, Rail: "x402 on eip155:8453", For: "the report macro-gdp"}, rep.Payments[0])
	assert.Equal(t, big.NewInt(5_000_000), rep.Payments[1].Amount)
	assert.Equal(t, "USDC on Solana", rep.Payments[1].Rail)
	assert.Equal(t, "a Pro key", rep.Payments[1].For)
	_, err = solana.PublicKeyFromBase58(rep.Payments[1].To)
	assert.NoError(t, err, "the treasury's address")

	cd := stepDetail[*chartdiffResult](t, rep, svcChartdiff)
	assert.NotZero(t, cd.RefConst)
	assert.Len(t, cd.Hardest, 120)
	assert.Equal(t, 3, cd.Pages)

	assert.Positive(t, rep.Requests)
	text := out.String()
	assert.Contains(t, text, "\n  quote for macro-gdp: $0.13 to "+reportstoretest.DefaultPayTo+" on eip155:8453 (at most $0.50 a report, $6.00 for the session)\n")
	assert.Contains(t, text, "\n  paid $0.13 to "+reportstoretest.DefaultPayTo+" (x402 on eip155:8453) for the report macro-gdp\n")
	assert.Contains(t, text, "\n  paid $5.00 to "+rep.Payments[1].To+" (USDC on Solana) for a Pro key\n")
	assert.Contains(t, text, "\ntotal: spent $5.13 and $0.00 still reserved of the $6.00 cap, ")
	assert.True(t, strings.HasSuffix(text, " of 5 steps succeeded\n"+
		"  $0.13 to "+reportstoretest.DefaultPayTo+" (x402 on eip155:8453) for the report macro-gdp\n"+
		"  $5.00 to "+rep.Payments[1].To+" (USDC on Solana) for a Pro key\n"), text)
	for _, atomic := range []string{" 130000", " 5000000", " 5130000", " 6000000", " 500000", "USDC atomic"} {
		assert.NotContains(t, text, atomic, "every amount is in dollars")
	}
	assert.NotContains(t, text, "FAILED")
}

func TestTourOnlyRunsTheNamedServices(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	rep, err := run(context.Background(), &out, options{only: "chartdiff, hosting"}, offline)
	require.NoError(t, err)
	require.True(t, rep.OK(), out.String())
	var names []string
	for _, st := range rep.Steps {
		names = append(names, st.Service)
	}
	assert.Equal(t, []string{svcHosting, svcChartdiff}, names)
	assert.Zero(t, rep.Spent.Sign(), "nothing bought")
	assert.Empty(t, rep.Payments)
}

func TestTourRefusesBadFlags(t *testing.T) {
	t.Parallel()
	_, err := run(context.Background(), &bytes.Buffer{}, options{only: "reportstore,weather"}, offline)
	require.ErrorContains(t, err, `unknown service "weather"`)
	_, err = run(context.Background(), &bytes.Buffer{}, options{livePayments: true}, offline)
	require.ErrorContains(t, err, "-live-payments needs -cap")
	_, err = run(context.Background(), &bytes.Buffer{}, options{cap: "a lot"}, offline)
	require.ErrorContains(t, err, "-cap")
}

func TestTourRefusesWhatItCouldNotDo(t *testing.T) {
	t.Parallel()
	solanaWallet := solana.NewWallet().PrivateKey.String()
	treasury := solana.NewWallet().PublicKey().String()
	for _, tc := range []struct {
		name string
		o    options
		env  map[string]string
		want string
	}{
		{"live payments with no live service", options{livePayments: true, cap: "1.00"}, nil,
			"-live-payments pays a live service, and none of the tour's is: set REPORTSTORE_URL or GPUPRICE_URL"},
		{"live payments to a service -only leaves out", options{livePayments: true, cap: "1.00", only: "hosting"},
			map[string]string{reportstore.EnvURL: "https://store.example", cli.EnvEVMPrivateKey: testEVMKey},
			"-live-payments pays a live service, and none of the tour's is"},
		{"a live store without the wallet", options{livePayments: true, cap: "1.00"}, map[string]string{reportstore.EnvURL: "https://store.example"},
			"-live-payments with REPORTSTORE_URL needs EVM_PRIVATE_KEY"},
		{"a live store with a key that is not one", options{livePayments: true, cap: "1.00"},
			map[string]string{reportstore.EnvURL: "https://store.example", cli.EnvEVMPrivateKey: "0x1234"}, "EVM_PRIVATE_KEY: "},
		{"a live GPU service without the wallet", options{livePayments: true, cap: "6.00"},
			map[string]string{gpuprice.EnvURL: "https://gpu.example", gpuprice.EnvRPCURL: "https://node.example"},
			"-live-payments with GPUPRICE_URL needs SOLANA_PRIVATE_KEY, GPUPRICE_TREASURY"},
		{"a live GPU service with a key that is not one", options{livePayments: true, cap: "6.00"},
			map[string]string{gpuprice.EnvURL: "https://gpu.example", gpuprice.EnvRPCURL: "https://node.example",
				cli.EnvSolanaPrivateKey: "not-base58-0OIl", cli.EnvGPUPriceTreasury: treasury},
			"SOLANA_PRIVATE_KEY is not a base58 Solana private key"},
		{"a live GPU service with a treasury that is not one", options{livePayments: true, cap: "6.00"},
			map[string]string{gpuprice.EnvURL: "https://gpu.example", gpuprice.EnvRPCURL: "https://node.example",
				cli.EnvSolanaPrivateKey: solanaWallet, cli.EnvGPUPriceTreasury: "nowhere"},
			"GPUPRICE_TREASURY: "},
		{"a live host without its token", options{}, map[string]string{hosting.EnvURL: "https://host.example"},
			"HOSTING_URL is set without HOSTING_TOKEN"},
		{"a live product service without its key", options{only: "productdata"}, map[string]string{productdata.EnvURL: "https://data.example"},
			"PRODUCTDATA_URL is set without PRODUCTDATA_ACCOUNT_KEY"},
		{"a zero cap", options{cap: "0"}, nil, `-cap "0": the cap must be a positive dollar amount`},
		{"a negative cap", options{cap: "-1.00"}, nil, `-cap "-1.00": the cap must be a positive dollar amount`},
		{"a budget file in a folder that does not exist", options{budgetPath: filepath.Join(t.TempDir(), "missing", "budget.db")}, nil,
			"-budget: budgetfile: opening "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			rep, err := run(context.Background(), &out, tc.o, environment(tc.env))
			require.ErrorContains(t, err, tc.want)
			assert.Nil(t, rep)
			assert.Empty(t, out.String(), "nothing was done")
			assert.NotContains(t, err.Error(), solanaWallet)
		})
	}
}

func TestMainHelpPrintsTheUsageAndDoesNothing(t *testing.T) {
	t.Parallel()
	clitest.AssertHelp(t, realMain, "tour",
		reportstore.EnvURL, cli.EnvEVMPrivateKey, cli.EnvReportstorePayTo,
		hosting.EnvURL, hosting.EnvToken,
		productdata.EnvURL, productdata.EnvAccountKey,
		gpuprice.EnvURL, gpuprice.EnvAPIKey, cli.EnvSolanaPrivateKey, gpuprice.EnvRPCURL, cli.EnvGPUPriceTreasury,
		chartdiff.EnvURL, chartdiff.EnvAPIKey)
}

func TestMainExitStatuses(t *testing.T) {
	t.Parallel()
	// Live payments and a cap, but no live service nor wallet: refused, nothing done.
	clitest.AssertRefused(t, realMain, "tour", nil, "-live-payments pays a live service", "-live-payments", "-cap", "1.00")
	clitest.AssertRefused(t, realMain, "tour", nil, `-cap "0": the cap must be a positive dollar amount`, "-cap", "0")
	clitest.AssertRefused(t, realMain, "tour", nil, "flag provided but not defined: -services", "-services", "hosting")

	code, out, errOut := clitest.Run(t, realMain, nil, "-only", "chartdiff")
	assert.Equal(t, cli.ExitOK, code, errOut)
	assert.Contains(t, out, "1 of 1 steps succeeded\n")

	code, out, _ = clitest.Run(t, realMain, nil, "-only", "reportstore", "-cap", "0.05")
	assert.Equal(t, cli.ExitFailed, code, "a step failed")
	assert.Contains(t, out, "0 of 1 steps succeeded\n")
}

func TestTourCapBoundsThePurchase(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	// A cap below the report's price: the payer refuses before signing, the step fails, and
	// nothing is spent or reserved.
	rep, err := run(context.Background(), &out, options{only: "reportstore", cap: "0.05"}, offline)
	require.NoError(t, err)
	assert.False(t, rep.OK())
	require.Len(t, rep.Steps, 1)
	require.ErrorIs(t, rep.Steps[0].Err, x402.ErrBudgetExceeded)
	assert.Zero(t, rep.Spent.Sign())
	assert.Zero(t, rep.Reserved.Sign())
	assert.Contains(t, out.String(), "\n  FAILED: buying macro-gdp: ")
	assert.Contains(t, out.String(), "x402: "+x402.ErrBudgetExceeded.Error()+": amount $0.13, $0.05 left of $0.05\n")
	assert.NotContains(t, out.String(), "130000")
}

func TestOneBudgetBoundsBothRails(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	// A cap that covers the report but not the key as well: the key purchase is refused
	// before anything is signed, and only the report is spent.
	rep, err := run(context.Background(), &out, options{only: "gpuprice,reportstore", cap: "1.00"}, offline)
	require.NoError(t, err)
	assert.False(t, rep.OK())
	rs := stepDetail[*reportstoreResult](t, rep, svcReportstore)
	require.Len(t, rep.Steps, 2)
	gp := rep.Steps[1]
	require.Equal(t, svcGPUPrice, gp.Service)
	require.ErrorIs(t, gp.Err, x402.ErrBudgetExceeded)
	assert.False(t, gp.Detail.(*gpupriceResult).Bought)
	assert.Equal(t, rs.Quoted, rep.Spent)
	assert.Zero(t, rep.Reserved.Sign())
	require.Len(t, rep.Payments, 1, "only the report was paid")
	// The refusal is shown in dollars, like the total beside it.
	assert.Contains(t, out.String(), "\n  FAILED: buying a Pro key: gpuprice: "+x402.ErrBudgetExceeded.Error()+": amount $5.00, $0.87 left of $1.00\n")
	assert.Contains(t, out.String(), "\ntotal: spent $0.13 and $0.00 still reserved of the $1.00 cap, ")
	assert.NotContains(t, out.String(), "5000000")
	assert.NotContains(t, out.String(), "870000")
}

func TestLiveStoreWithoutLivePaymentsIsOnlyQuoted(t *testing.T) {
	t.Parallel()
	// A store the tour treats as live, because its URL variable is set.
	store := reportstoretest.NewServer()
	t.Cleanup(store.Close)
	env := environment(map[string]string{reportstore.EnvURL: store.URL, cli.EnvEVMPrivateKey: testEVMKey})
	var out bytes.Buffer
	rep, err := run(context.Background(), &out, options{only: "reportstore"}, env)
	require.NoError(t, err)
	require.True(t, rep.OK(), out.String())
	rs := stepDetail[*reportstoreResult](t, rep, svcReportstore)
	assert.False(t, rs.Bought)
	assert.Positive(t, rs.Quoted.Sign())
	assert.True(t, strings.Contains(out.String(), "not buying from a live store"))
	assert.Zero(t, rep.Spent.Sign())
	assert.Zero(t, store.Sales(tourReport), "nothing was bought")
}

func TestLivePaymentsPayTheLiveServicesFromTheirWallets(t *testing.T) {
	t.Parallel()
	// A store and a GPU price service the tour treats as live, because their URL variables
	// are set, with the wallets of both rails in their one variable each.
	store := reportstoretest.NewServer()
	t.Cleanup(store.Close)
	store.Facilitator().Fund(testEVMAddress, big.NewInt(1_000_000))
	gpu := gpupricetest.NewServer()
	t.Cleanup(gpu.Close)
	wallet := solana.NewWallet().PrivateKey
	gpu.FundUSDC(wallet.PublicKey(), usdc.Dollars(6))
	gpu.FundSOL(wallet.PublicKey(), 10_000_000)
	env := environment(map[string]string{
		reportstore.EnvURL: store.URL, cli.EnvEVMPrivateKey: testEVMKey, cli.EnvReportstorePayTo: store.PayTo(),
		gpuprice.EnvURL: gpu.URL, gpuprice.EnvRPCURL: gpu.RPCURL, cli.EnvGPUPriceTreasury: gpu.Treasury.String(),
		cli.EnvSolanaPrivateKey: wallet.String(),
	})
	var out bytes.Buffer
	rep, err := run(context.Background(), &out, options{only: "reportstore,gpuprice", livePayments: true, cap: "5.50"}, env)
	require.NoError(t, err)
	require.True(t, rep.OK(), out.String())
	assert.Equal(t, 1, store.Sales(tourReport))
	assert.Equal(t, big.NewInt(870_000), store.Facilitator().Balance(testEVMAddress))
	assert.Equal(t, big.NewInt(5_130_000), rep.Spent)
	assert.Equal(t, []payment{
		{Amount: big.NewInt(130_000), To: store.PayTo(), Rail: "x402 on eip155:8453", For: "the report macro-gdp"},
		{Amount: big.NewInt(5_000_000), To: gpu.Treasury.String(), Rail: "USDC on Solana", For: "a Pro key"},
	}, rep.Payments)
	assert.Contains(t, out.String(), "paid by "+testEVMAddress)
	assert.Contains(t, out.String(), "\ntotal: spent $5.13 and $0.00 still reserved of the $5.50 cap, ")
	assert.NotContains(t, out.String(), testEVMKey)
	assert.NotContains(t, out.String(), wallet.String())
}

func TestTourKeepsItsBudgetAcrossRuns(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "budget.db")
	o := options{only: "reportstore", budgetPath: path}
	var first bytes.Buffer
	rep, err := run(context.Background(), &first, o, offline)
	require.NoError(t, err)
	require.True(t, rep.OK(), first.String())
	assert.True(t, strings.HasPrefix(first.String(),
		"the session's budget ($6.00) is kept in "+path+": $0.00 spent and $0.00 still reserved by earlier runs\n"), first.String())
	assert.Contains(t, first.String(), "\ntotal: spent $0.13 and $0.00 still reserved of the $6.00 cap, ")

	// The second run starts from what the first spent, and counts both.
	var second bytes.Buffer
	rep, err = run(context.Background(), &second, o, offline)
	require.NoError(t, err)
	require.True(t, rep.OK(), second.String())
	assert.True(t, strings.HasPrefix(second.String(),
		"the session's budget ($6.00) is kept in "+path+": $0.13 spent and $0.00 still reserved by earlier runs\n"), second.String())
	assert.Equal(t, big.NewInt(130_000), rep.SpentBefore)
	assert.Equal(t, big.NewInt(260_000), rep.Spent)
	require.Len(t, rep.Payments, 1, "this run's own payments")
	assert.Contains(t, second.String(), "\ntotal: spent $0.26 ($0.13 of it by earlier runs) and $0.00 still reserved of the $6.00 cap, ")

	// A cap below what the earlier runs spent refuses every payment, and says why.
	var third bytes.Buffer
	rep, err = run(context.Background(), &third, options{only: "reportstore", budgetPath: path, cap: "0.20"}, offline)
	require.NoError(t, err)
	assert.False(t, rep.OK())
	require.ErrorIs(t, rep.Steps[0].Err, x402.ErrBudgetExceeded)
	assert.Contains(t, third.String(), "\n  FAILED: buying macro-gdp: ")
	assert.Contains(t, third.String(), " x402: spent $0.26 is above the limit of $0.20; "+
		"every payment is refused until the limit is raised: payment would exceed the total budget: amount $0.13, $0.00 left of $0.20\n")
	assert.Equal(t, big.NewInt(260_000), rep.Spent, "nothing more was spent")

	// The command line names the file with -budget.
	code, out, errOut := clitest.Run(t, realMain, nil, "-only", "chartdiff", "-budget", path)
	assert.Equal(t, cli.ExitOK, code, errOut)
	assert.True(t, strings.HasPrefix(out, "the session's budget ($6.00) is kept in "+path+": $0.26 spent and $0.00 still reserved by earlier runs\n"), out)
}
