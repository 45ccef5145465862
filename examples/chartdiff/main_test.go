package main

import (
	"context"
	"io"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/examples/internal/cli"
	"github.com/agentapis/sdk/examples/internal/clitest"
	"github.com/agentapis/sdk/internal/secrettest"
)

var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }

func TestRunOffline(t *testing.T) {
	t.Parallel()
	text := clitest.Output(t, func(ctx context.Context, w io.Writer) error {
		return run(ctx, w, settings{chartID: chartdifftest.ChartNotAnalyzed})
	})
	clitest.AssertContainsAll(t, text,
		"offline: using the in-memory fake",
		"created key key_",
		"x-phm-key arrives",
		"chart 4 \"Golden Echo 4\": ref_const 15.9, notes 316, cached false",
		"hardest of 200 cached charts:",
		"requests left this hour: 998",
		"the old key is refused: invalid_api_key",
	)
	assert.Regexp(t, regexp.MustCompile(`rotated: new key (key_\w+) \(sk-…\w{4}\), revoked key_\w+\nthe old key is refused: invalid_api_key\nrevoked key key_\w+\n$`), text)
	assert.NotRegexp(t, `sk-[0-9a-f]{32}`, text, "no plaintext key is printed")
}

func TestHelpPrintsTheUsageAndDoesNothing(t *testing.T) {
	t.Parallel()
	clitest.AssertHelp(t, realMain, "chartdiff", chartdiff.EnvURL, chartdiff.EnvAccountToken)
}

func TestRefusesIncompleteSettings(t *testing.T) {
	t.Parallel()
	clitest.AssertRefused(t, realMain, "chartdiff", map[string]string{chartdiff.EnvURL: "https://charts.example"},
		"CHARTDIFF_URL is set without CHARTDIFF_ACCOUNT_TOKEN: set that too to use the service, or unset CHARTDIFF_URL to use the in-memory fake")
	clitest.AssertRefused(t, realMain, "chartdiff", nil, "-chart 0: chart ids are positive", "-chart", "0")
	clitest.AssertRefused(t, realMain, "chartdiff", nil, `invalid value "golden" for flag -chart`, "-chart", "golden")
}

func TestMainUsesTheServiceInTheEnvironment(t *testing.T) {
	t.Parallel()
	srv := chartdifftest.NewServer()
	defer srv.Close()
	env := map[string]string{chartdiff.EnvURL: srv.URL, chartdiff.EnvAccountToken: srv.AccountToken()}
	code, out, errOut := clitest.Run(t, realMain, env, "-chart", "4")
	require.Equal(t, cli.ExitOK, code, errOut)
	assert.NotContains(t, out, "offline")
	assert.Contains(t, out, "chart 4 ")
	assert.Positive(t, srv.RequestCount("", ""))
}
