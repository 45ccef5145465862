package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/examples/internal/cli"
	"github.com/agentapis/sdk/examples/internal/clitest"
	"github.com/agentapis/sdk/internal/secrettest"
	"github.com/agentapis/sdk/productdata"
	"github.com/agentapis/sdk/productdata/productdatatest"
)

// scan checks that no credential a client of this suite sends ever reaches a log line or an
// error string.
var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }

func TestRunOffline(t *testing.T) {
	t.Parallel()
	text := clitest.Output(t, func(ctx context.Context, w io.Writer) error {
		return run(ctx, w, settings{asin: "B0CVM8TXHP", node: "3743561"})
	})
	clitest.AssertContainsAll(t, text,
		"offline: using the in-memory fake",
		"product B0CVM8TXHP: Zenvolt Smart Food Storage Box, 2025 Edition\n",
		"  $60.47, 467 sold in 30 days, rated 4.8 by 8050 (1 request unit consumed, 6499 left)\n",
		"category 3743561: 258 products in 4 requests; best sellers:\n",
		"  1. B0780J792C $62.93, 4992 sold in 30 days\n",
		"  collection of B0CVM8TXHP: 1 requests sent, next in 500ms\n",
		"20 reviews: ",
	)
	assert.Regexp(t, `collection 1 done after [1-9]\d* status queries in \d`, text)
	assert.NotContains(t, text, productdatatest.DefaultKey)
}

func TestRunAgainstAGivenService(t *testing.T) {
	t.Parallel()
	srv := productdatatest.NewServer(productdatatest.WithTaskDuration(0))
	defer srv.Close()
	var out bytes.Buffer
	s := settings{baseURL: srv.URL, key: productdatatest.DefaultKey, asin: "B0CVM8TXHP", node: "3743561",
		wait: sdk.WaitPolicy{MinDelay: 10 * time.Millisecond}}
	require.NoError(t, run(t.Context(), &out, s))
	text := out.String()
	assert.NotContains(t, text, "offline")

	// The figures printed are the ones the service counted.
	calls := srv.RequestCount("", "")
	assert.Equal(t, 1, srv.RequestCount(http.MethodPost, "/api/ProductRequest"))
	assert.Equal(t, 4, srv.RequestCount(http.MethodPost, "/api/CategoryProducts"), "three pages, then the no-more-data code")
	assert.Equal(t, 1, srv.RequestCount(http.MethodPost, "/api/ProductReviewsCollection"))
	assert.Equal(t, 1, srv.RequestCount(http.MethodPost, "/api/ProductReviewsCollectionStatusQuery"), "a finished task is noticed at the first poll")
	assert.Equal(t, 2, srv.RequestCount(http.MethodPost, "/api/ProductReviewsQuery"), "one page of reviews, then the no-more-data code")
	assert.Equal(t, 9, calls)
	assert.Contains(t, text, fmt.Sprintf("requests sent: %d (status queries included); units consumed: %d; units left: %d\n",
		calls, productdatatest.DefaultRequests-srv.RequestLeft(), srv.RequestLeft()))

	// The reviews counted are the ones the service sent, star by star.
	m := regexp.MustCompile(`(\d+) reviews: (\d+) five-star, (\d+) four, (\d+) three, (\d+) two, (\d+) one\n`).FindStringSubmatch(text)
	require.NotNil(t, m, text)
	assert.Equal(t, "20", m[1])
	sum := 0
	for _, n := range m[2:] {
		var v int
		_, err := fmt.Sscan(n, &v)
		require.NoError(t, err)
		sum += v
	}
	assert.Equal(t, 20, sum, "every review has a star from 1 to 5")
}

func TestRunReportsABadKey(t *testing.T) {
	t.Parallel()
	srv := productdatatest.NewServer()
	defer srv.Close()
	badKey := strings.Repeat("k", 32)
	err := run(t.Context(), &bytes.Buffer{}, settings{baseURL: srv.URL, key: badKey, asin: "B0CVM8TXHP", node: "3743561"})
	require.ErrorIs(t, err, productdata.ErrUnauthorized)
	assert.ErrorContains(t, err, "the service refused the key or the site")
	assert.NotContains(t, err.Error(), badKey)
	assert.Equal(t, 1, srv.RequestCount("", ""), "nothing is sent after the refusal")
}

func TestHelpPrintsTheUsageAndDoesNothing(t *testing.T) {
	t.Parallel()
	clitest.AssertHelp(t, realMain, "productdata", productdata.EnvURL, productdata.EnvAccountKey)
}

func TestRefusesIncompleteSettings(t *testing.T) {
	t.Parallel()
	clitest.AssertRefused(t, realMain, "productdata", map[string]string{productdata.EnvURL: "https://data.example"},
		"PRODUCTDATA_URL is set without PRODUCTDATA_ACCOUNT_KEY: set that too to use the service, or unset PRODUCTDATA_URL to use the in-memory fake")
	clitest.AssertRefused(t, realMain, "productdata", nil, "-asin and -node must not be empty", "-asin", "")
	clitest.AssertRefused(t, realMain, "productdata", nil, "-asin and -node must not be empty", "-node", "")
	clitest.AssertRefused(t, realMain, "productdata", nil, `unexpected argument "B0CVM8TXHP"`, "B0CVM8TXHP")
}

func TestMainCallsTheServiceInTheEnvironment(t *testing.T) {
	t.Parallel()
	srv := productdatatest.NewServer()
	defer srv.Close()
	env := map[string]string{productdata.EnvURL: srv.URL, productdata.EnvAccountKey: strings.Repeat("k", 32)}
	code, out, errOut := clitest.Run(t, realMain, env)
	assert.Equal(t, cli.ExitFailed, code, "the fake refuses a key it did not issue")
	assert.Empty(t, out)
	assert.Contains(t, errOut, "productdata: the service refused the key or the site: ")
	assert.Equal(t, 1, srv.RequestCount(http.MethodPost, "/api/ProductRequest"), "the key of the environment went to the service")
}
