package main

import (
	"context"
	"io"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/examples/internal/cli"
	"github.com/agentapis/sdk/examples/internal/clitest"
	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/x402"
)

// scan checks that no credential a client of this suite sends ever reaches a log line or an
// error string.
var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }

func TestRunOffline(t *testing.T) {
	t.Parallel()
	text := clitest.Output(t, func(ctx context.Context, w io.Writer) error {
		return run(ctx, w, settings{model: "H100", budget: big.NewInt(10_000_000)})
	})
	assert.Contains(t, text, "cheapest H100: 2.84 USD/h on lambda")
	assert.Contains(t, text, "futures index GCFI")
	assert.Contains(t, text, "bought a pro key gpk_…")
	assert.Regexp(t, `\npaid \$5\.00 in USDC on Solana to the treasury [1-9A-HJ-NP-Za-km-z]{32,44}; budget spent \$5\.00 of \$10\.00\n`, text)
	assert.NotContains(t, text, "5000000", "amounts are shown in dollars")
	assert.Equal(t, 7, strings.Count(text, " USD/h\n"), "seven history lines")
}

func TestMainPricesTheModelGiven(t *testing.T) {
	t.Parallel()
	code, out, errOut := clitest.Run(t, realMain, nil, "-model", "L40S", "-cap", "5")
	require.Equal(t, cli.ExitOK, code, errOut)
	assert.Contains(t, out, "cheapest L40S: ")
	assert.Contains(t, out, "budget spent $5.00 of $5.00\n")
}

func TestMainShowsARefusedPurchaseInDollars(t *testing.T) {
	t.Parallel()
	code, out, errOut := clitest.Run(t, realMain, nil, "-cap", "4.50")
	assert.Equal(t, cli.ExitFailed, code)
	assert.NotContains(t, out, "bought")
	assert.Equal(t, "gpuprice: buying a Pro key: gpuprice: "+x402.ErrBudgetExceeded.Error()+": amount $5.00, $4.50 left of $4.50\n", errOut)
}

func TestHelpPrintsTheUsageAndDoesNothing(t *testing.T) {
	t.Parallel()
	clitest.AssertHelp(t, realMain, "gpuprice")
}

func TestRefusesBadFlags(t *testing.T) {
	t.Parallel()
	clitest.AssertRefused(t, realMain, "gpuprice", nil, `-cap "0": the cap must be a positive dollar amount`, "-cap", "0")
	clitest.AssertRefused(t, realMain, "gpuprice", nil, `-cap "five": the cap must be a positive dollar amount`, "-cap", "five")
	clitest.AssertRefused(t, realMain, "gpuprice", nil, "-model: name a GPU model", "-model", "")
	clitest.AssertRefused(t, realMain, "gpuprice", nil, "flag provided but not defined: -live-payments", "-live-payments")
}
