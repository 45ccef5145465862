package reportstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/budgettest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/usdc"
	"github.com/agentapis/sdk/x402/x402test"
)

func TestCatalogListsEveryProductWithLivePrice(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer(reportstoretest.WithPrice("macro-fx", usdc.Cents(17))))
	c := newClient(t, srv, nil)

	catalog, err := c.Catalog(context.Background())
	require.NoError(t, err)
	products := catalog.Products
	require.Len(t, products, 80)
	assert.Equal(t, http.StatusOK, catalog.Response.StatusCode)

	byID := map[string]reportstore.Product{}
	kinds := map[reportstore.ProductKind]int{}
	for _, p := range products {
		byID[p.ID] = p
		kinds[p.Kind]++
		assert.NotEmpty(t, p.Title, p.ID)
		assert.Equal(t, "2015:2025", p.Period, p.ID)
		assert.Contains(t, string(p.Raw), `"id":"`+p.ID+`"`)
	}
	assert.Equal(t, map[reportstore.ProductKind]int{reportstore.KindCatalog: 78, reportstore.KindBespoke: 1, reportstore.KindBundle: 1}, kinds)

	gdp := byID["macro-gdp"]
	require.NotNil(t, gdp.Price)
	assert.Equal(t, "$0.13", usdc.Format(gdp.Price))
	assert.Equal(t, testkit.Ptr(20), gdp.Economies)
	assert.Equal(t, "/report/macro-gdp", gdp.Path)
	assert.Equal(t, testkit.Ptr(10), byID["macro-debt"].Economies)

	// The live price, not the table's.
	require.NotNil(t, byID["macro-fx"].Price)
	assert.Equal(t, int64(170000), byID["macro-fx"].Price.Int64())

	// Every report of the description's table is sold, at the table's price where it has one.
	for _, k := range reportstore.KnownReports() {
		p, ok := byID[k.ID]
		require.True(t, ok, k.ID)
		if k.Price != nil && k.ID != "macro-fx" {
			require.NotNil(t, p.Price, k.ID)
			assert.Equal(t, k.Price.String(), p.Price.String(), k.ID)
		}
	}

	custom := byID[reportstoretest.CustomID]
	assert.Equal(t, reportstore.KindBespoke, custom.Kind)
	assert.Nil(t, custom.Price, "a price range is not a single price")
	assert.Equal(t, "$0.20-$0.95", custom.PriceText)
	bundle := byID[reportstoretest.BundleID]
	assert.Equal(t, reportstore.KindBundle, bundle.Kind)
	require.NotNil(t, bundle.Price)
	assert.Equal(t, "$0.95", usdc.Format(bundle.Price))
}

func TestPreviewIsTheLatestYearForEachEconomy(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	c := newClient(t, srv, nil)
	ctx := context.Background()

	p, err := c.Preview(ctx, "macro-gdp")
	require.NoError(t, err)
	assert.Equal(t, "macro-gdp", p.ID)
	assert.Equal(t, testkit.Ptr(2025), p.Year)
	require.Len(t, p.Rows, 20)
	seen := map[string]bool{}
	for _, r := range p.Rows {
		seen[r.Economy] = true
		assert.Equal(t, testkit.Ptr(2025), r.Year)
		assert.Equal(t, "NY.GDP.MKTP.CD", r.Indicator)
		require.NotNil(t, r.Value, r.Economy)
		assert.Greater(t, *r.Value, 0.0)
	}
	assert.Len(t, seen, 20)
	assert.True(t, seen["US"] && seen["ES"])
	assert.Equal(t, "United States", p.Rows[0].Name)
	assert.Contains(t, string(p.Raw), `"synthetic":true`)

	debt, err := c.Preview(ctx, "macro-debt")
	require.NoError(t, err)
	assert.Len(t, debt.Rows, 10)

	open, err := c.Preview(ctx, "macro-trade-openness")
	require.NoError(t, err)
	require.NotEmpty(t, open.Rows)
	assert.Nil(t, open.Rows[0].Value)
	assert.Len(t, open.Rows[0].Values, 2)
	assert.Contains(t, open.Rows[0].Values, "NE.TRD.GNFS.ZS")

	_, err = c.Preview(ctx, "macro-nope")
	var apiErr *sdk.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 404, apiErr.StatusCode)
	assert.Equal(t, "not_found", apiErr.Code)
	assert.ErrorIs(t, err, reportstore.ErrNotFound)
}

func TestStartRecommendsAFirstPurchase(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	c := newClient(t, srv, nil)

	s, err := c.Start(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "macro-gdp", s.ReportID)
	assert.Equal(t, "/report/macro-gdp?format=json", s.Path)
	require.NotNil(t, s.Price)
	assert.Equal(t, "$0.13", usdc.Format(s.Price))
	assert.Contains(t, s.Code, "reportstore.New(")
	assert.Contains(t, s.Snippets, "curl")
	assert.Equal(t, s.Snippets["go"], s.Code)
}

func TestQuoteReadsTheChallengeWithoutPaying(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer)

	q, err := c.Quote(context.Background(), "macro-current-account", reportstore.FormatCSV)
	require.NoError(t, err)
	assert.Equal(t, "macro-current-account", q.ID)
	assert.Equal(t, "/report/macro-current-account", q.Path)
	assert.Equal(t, reportstore.FormatCSV, q.Format)
	assert.Equal(t, "$0.28", usdc.Format(q.Amount))
	assert.Equal(t, "280000", q.Amount.String())
	assert.Equal(t, reportstoretest.DefaultPayTo, q.PayTo)
	assert.Equal(t, evm.NetworkBase, q.Network)
	assert.Equal(t, evm.USDCBase, q.Asset)
	assert.Equal(t, evm.SchemeExact, q.Scheme)
	assert.Positive(t, q.MaxTimeoutSeconds)
	require.NotNil(t, q.Challenge)
	assert.Equal(t, 2, q.Challenge.X402Version)
	requireNoMoneyMoved(t, srv, payer)
}

func TestReportInEachFormat(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer)
	ctx := context.Background()

	tests := []struct {
		format      reportstore.Format
		contentType string
		check       func(t *testing.T, r *reportstore.Report)
	}{
		{"", "text/html", func(t *testing.T, r *reportstore.Report) {
			assert.Equal(t, reportstore.FormatHTML, r.Format)
			assert.Contains(t, string(r.Body), "<table>")
			assert.Contains(t, string(r.Body), "Synthetic data")
		}},
		{reportstore.FormatJSON, "application/json", func(t *testing.T, r *reportstore.Report) {
			p, err := r.JSON()
			require.NoError(t, err)
			assert.Equal(t, "1.0", p.SchemaVersion)
			assert.Equal(t, "macro-gdp", p.ID)
			assert.Equal(t, "2015:2025", p.Period)
			require.Len(t, p.Indicators, 1)
			assert.Equal(t, "NY.GDP.MKTP.CD", p.Indicators[0].Code)
			assert.Len(t, p.Economies, 20)
			assert.Len(t, p.Records, 20*11)
			require.NotNil(t, p.Source)
			assert.Contains(t, string(p.Raw), `"synthetic":true`)
		}},
		{reportstore.FormatCSV, "text/csv", func(t *testing.T, r *reportstore.Report) {
			recs, err := r.Records()
			require.NoError(t, err)
			require.Len(t, recs, 20*11)
			assert.Equal(t, "US", recs[0].Economy)
			assert.Equal(t, 2015, recs[0].Year)
			assert.Equal(t, "NY.GDP.MKTP.CD", recs[0].Indicator)
			require.NotNil(t, recs[0].Value)
			assert.Contains(t, string(r.Body), ",synthetic\n")
		}},
		{reportstore.FormatSummaryCSV, "text/csv", func(t *testing.T, r *reportstore.Report) {
			assert.True(t, strings.HasPrefix(string(r.Body), "economy,indicator,first_year,last_year"))
			_, err := r.Records()
			require.Error(t, err, "a summary is not a panel")
		}},
	}
	for i, tc := range tests {
		r, err := c.Report(ctx, "macro-gdp", tc.format)
		require.NoError(t, err, tc.format)
		assert.Equal(t, "macro-gdp", r.ID)
		assert.Equal(t, tc.contentType, r.ContentType)
		require.NotNil(t, r.Receipt)
		assert.True(t, r.Receipt.Success)
		settlements := srv.Facilitator().Settlements()
		require.Len(t, settlements, i+1)
		assert.Equal(t, settlements[i].TxHash, r.Receipt.Transaction)
		assert.Equal(t, "130000", settlements[i].Value.String())
		require.NotNil(t, r.Payment, "the report names its payment")
		assert.Equal(t, settlements[i].ID, r.Payment.ID)
		assert.Equal(t, testAddress(t), r.Payment.Payer)
		assert.Equal(t, settlements[i].Network, r.Payment.Network)
		assert.True(t, strings.EqualFold(settlements[i].To, r.Payment.PayTo))
		assert.Equal(t, "130000", r.Payment.Amount.String())
		assert.Equal(t, srv.URL+"/report/macro-gdp", r.Payment.Resource, "the URL paid for, without its query")
		tc.check(t, r)
	}
	assert.Equal(t, "520000", budgettest.Spent(t, payer).String())
	assert.Equal(t, "520000", srv.Facilitator().Balance(reportstoretest.DefaultPayTo).String())
	assert.Equal(t, "9480000", srv.Facilitator().Balance(testAddress(t)).String())
	assert.Equal(t, 4, srv.Sales("macro-gdp"))
}

func TestRecordsKeepMissingValuesAbsent(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	c := newClient(t, srv, newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited}))

	r, err := c.Report(context.Background(), "macro-patents", reportstore.FormatCSV)
	require.NoError(t, err)
	recs, err := r.Records()
	require.NoError(t, err)
	require.Len(t, recs, 20*11)
	for _, rec := range recs {
		if rec.Year == 2025 {
			assert.NotNil(t, rec.Value, "%s %d", rec.Economy, rec.Year)
		} else {
			assert.Nil(t, rec.Value, "%s %d", rec.Economy, rec.Year)
		}
	}
}

func TestRequoteMakesTheNextFetchPayTheNewPrice(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer)
	ctx := context.Background()

	_, err := c.Report(ctx, "macro-inflation", reportstore.FormatCSV)
	require.NoError(t, err)
	srv.SetPrice("macro-inflation", usdc.Cents(21))
	_, err = c.Report(ctx, "macro-inflation", reportstore.FormatCSV)
	require.NoError(t, err)

	assert.Equal(t, []int64{130000, 210000}, settledValues(srv))
	assert.Equal(t, "340000", budgettest.Spent(t, payer).String())
}

func TestRequoteAfterEachSale(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer(reportstoretest.WithRequote(func(_ string, sales int, p *big.Int) *big.Int {
		return p.Add(p, usdc.Cents(int64(sales)))
	})))
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer)
	ctx := context.Background()

	for range 3 {
		_, err := c.Report(ctx, "macro-population", reportstore.FormatJSON)
		require.NoError(t, err)
	}
	// 0.09, then +0.01 after the first sale, then +0.02 after the second.
	assert.Equal(t, []int64{90000, 100000, 120000}, settledValues(srv))
	assert.Equal(t, "310000", budgettest.Spent(t, payer).String())
}

func TestQuoteOverTheCapIsRefusedBeforeSigning(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	payer := newPayer(t, srv, x402.Policy{MaxPerPayment: usdc.Cents(10), MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer)

	_, err := c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
	var pe *x402.PolicyError
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, x402.ErrAmountOverCap)
	assert.Equal(t, "130000", pe.Requirements.Amount.String())
	assert.Contains(t, err.Error(), "/report/macro-gdp")
	requireNoMoneyMoved(t, srv, payer)
	assert.Equal(t, "0", budgettest.Reserved(t, payer).String())

	_, err = c.OpenReport(context.Background(), "macro-gdp", reportstore.FormatCSV)
	require.ErrorIs(t, err, x402.ErrAmountOverCap)
	requireNoMoneyMoved(t, srv, payer)
}

func TestBudgetIsSharedAcrossPurchases(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	payer := newPayer(t, srv, x402.Policy{MaxTotal: usdc.Cents(20)})
	c := newClient(t, srv, payer)
	ctx := context.Background()

	_, err := c.Report(ctx, "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	_, err = c.Report(ctx, "macro-gdp", reportstore.FormatCSV)
	require.ErrorIs(t, err, x402.ErrBudgetExceeded)
	assert.Equal(t, []int64{130000}, settledValues(srv))
}

func TestForeignPayeeIsRefused(t *testing.T) {
	t.Parallel()
	const impostor = "0x000000000000000000000000000000000000dEaD"
	srv := testkit.Start(t, reportstoretest.NewServer(reportstoretest.WithPayTo(impostor)))
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer, reportstore.WithExpectedPayee(reportstoretest.DefaultPayTo))
	ctx := context.Background()

	_, err := c.Report(ctx, "macro-gdp", reportstore.FormatCSV)
	var pm *reportstore.PayeeMismatchError
	require.ErrorAs(t, err, &pm)
	assert.Equal(t, reportstoretest.DefaultPayTo, pm.Expected)
	assert.Equal(t, []string{impostor}, pm.Got)
	assert.NoError(t, pm.Err, "refused on the unpaid request: the payer never signed")
	assert.Contains(t, err.Error(), impostor)

	_, err = c.OpenReport(ctx, "macro-gdp", reportstore.FormatCSV)
	require.ErrorAs(t, err, &pm)
	_, err = c.Fetch(ctx, &reportstore.FetchParams{Path: "/report/bundle"})
	require.ErrorAs(t, err, &pm)
	_, err = c.Quote(ctx, "macro-gdp", reportstore.FormatCSV)
	require.ErrorAs(t, err, &pm)

	requireNoMoneyMoved(t, srv, payer)
	assert.Equal(t, "0", srv.Facilitator().Balance(impostor).String())
	assert.Equal(t, "0", budgettest.Reserved(t, payer).String())
}

func TestExpectedPayeeIgnoresLetterCase(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer, reportstore.WithExpectedPayee(strings.ToLower(reportstoretest.DefaultPayTo)))

	_, err := c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	assert.Equal(t, []int64{130000}, settledValues(srv))
}

func TestPayeeChangeBetweenFetches(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer, reportstore.WithExpectedPayee(reportstoretest.DefaultPayTo))
	ctx := context.Background()

	_, err := c.Report(ctx, "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	srv.SetPayTo("0x1111111111111111111111111111111111111111")
	_, err = c.Report(ctx, "macro-gdp", reportstore.FormatCSV)
	var pm *reportstore.PayeeMismatchError
	require.ErrorAs(t, err, &pm)
	assert.Equal(t, []int64{130000}, settledValues(srv))
	assert.Equal(t, "130000", budgettest.Spent(t, payer).String())
}

func TestPolicyPayToAllowListAlsoRefuses(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer(reportstoretest.WithPayTo("0x2222222222222222222222222222222222222222")))
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited, PayTo: []string{reportstoretest.DefaultPayTo}})
	c := newClient(t, srv, payer)

	_, err := c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
	require.ErrorIs(t, err, x402.ErrPayToNotAllowed)
	requireNoMoneyMoved(t, srv, payer)
}

func TestFailedSettlementMovesNoMoney(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer(reportstoretest.WithFailedSettlements(1)))
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer)

	_, err := c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
	var rejected *x402.PaymentRejectedError
	require.ErrorAs(t, err, &rejected)
	require.NotNil(t, rejected.Settlement)
	assert.False(t, rejected.Settlement.Success)
	assert.Equal(t, "unexpected_settle_error", rejected.Settlement.ErrorReason)
	requireNoMoneyMoved(t, srv, payer)
	assert.Equal(t, "130000", budgettest.Reserved(t, payer).String(), "the refused authorization counts until it expires")
	assert.Equal(t, 0, srv.Sales("macro-gdp"))

	// The next purchase goes through and pays once.
	_, err = c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	assert.Equal(t, []int64{130000}, settledValues(srv))
}

func TestDroppedConnectionAfterSettlingIsNotPaidTwice(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer(reportstoretest.WithDroppedConnections(1), reportstoretest.WithReplayedDeliveries()))
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer)

	// The payer sends the same signed payment again; the store answers it with the report.
	r, err := c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	require.NotNil(t, r.Receipt)
	assert.True(t, r.Receipt.Success)
	assert.Equal(t, []int64{130000}, settledValues(srv))
	assert.Equal(t, "130000", budgettest.Spent(t, payer).String())
	assert.Equal(t, "0", budgettest.Reserved(t, payer).String())
}

func TestDroppedConnectionThenRefusedReplayStaysInDoubt(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer(reportstoretest.WithDroppedConnections(1)))
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer)

	// The resent payment meets a 402 (its nonce is used): after a dropped connection that is
	// no proof the money did not move, so the amount stays reserved and nothing is re-quoted.
	_, err := c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
	var unconfirmed *x402.PaymentUnconfirmedError
	require.ErrorAs(t, err, &unconfirmed)
	assert.Equal(t, http.StatusPaymentRequired, unconfirmed.StatusCode)
	assert.Contains(t, unconfirmed.Reason, "nonce")
	assert.Equal(t, []int64{130000}, settledValues(srv))
	assert.Equal(t, "0", budgettest.Spent(t, payer).String())
	assert.Equal(t, "130000", budgettest.Reserved(t, payer).String())
}

func TestConnectionDroppedForGoodLeavesThePaymentUnconfirmed(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer(reportstoretest.WithDroppedConnections(1)))
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer)
	srv.InjectSettlementFaults(slices.Repeat([]x402test.SettlementFault{x402test.FaultDropAfterSettle}, 1000)...)

	_, err := c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
	var unconfirmed *x402.PaymentUnconfirmedError
	require.ErrorAs(t, err, &unconfirmed)
	assert.NotEmpty(t, unconfirmed.ID)
	// The money moved once; the payer holds it as reserved, not as spent.
	assert.Equal(t, []int64{130000}, settledValues(srv))
	assert.Equal(t, "0", budgettest.Spent(t, payer).String())
	assert.Equal(t, "130000", budgettest.Reserved(t, payer).String())
}

func TestUnsupportedFormat(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer)
	ctx := context.Background()

	_, err := c.Report(ctx, "macro-gdp", reportstore.Format("xml"))
	require.ErrorIs(t, err, reportstore.ErrUnsupportedFormat)
	var ufe *reportstore.UnsupportedFormatError
	require.ErrorAs(t, err, &ufe)
	assert.Equal(t, reportstore.Format("xml"), ufe.Format)
	assert.Equal(t, 400, ufe.Err.StatusCode)
	assert.Equal(t, "unsupported_format", ufe.Err.Code)

	_, err = c.Quote(ctx, "macro-gdp", "xml")
	require.ErrorIs(t, err, reportstore.ErrUnsupportedFormat)
	_, err = c.OpenReport(ctx, "macro-gdp", "xml")
	require.ErrorIs(t, err, reportstore.ErrUnsupportedFormat)
	requireNoMoneyMoved(t, srv, payer)
}

func TestPurchaseWithoutPayerNeedsPayment(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	c := newClient(t, srv, nil)

	_, err := c.Report(context.Background(), "macro-gdp", reportstore.FormatJSON)
	require.ErrorIs(t, err, reportstore.ErrPaymentRequired)
	var pr *reportstore.PaymentRequiredError
	require.ErrorAs(t, err, &pr)
	require.NotNil(t, pr.Quote)
	assert.Equal(t, "$0.13", usdc.Format(pr.Quote.Amount))
	assert.Contains(t, err.Error(), "payment of $0.13 required for /report/macro-gdp", "money in dollars")
	assert.Equal(t, 402, pr.Err.StatusCode)
	assert.Empty(t, srv.Facilitator().Settlements())
}

func TestFetchBespokeAndBundleProducts(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer)
	ctx := context.Background()

	q := url.Values{"indicators": {"NY.GDP.MKTP.CD,SP.POP.TOTL"}, "countries": {"US,CN"}, "format": {"csv"}}
	quote, err := c.QuoteFetch(ctx, &reportstore.FetchParams{Path: "/report/custom", Query: q})
	require.NoError(t, err)
	assert.Equal(t, "$0.25", usdc.Format(quote.Amount))

	r, err := c.Fetch(ctx, &reportstore.FetchParams{Path: "/report/custom", Query: q})
	require.NoError(t, err)
	assert.Equal(t, "custom", r.ID)
	assert.Equal(t, reportstore.FormatCSV, r.Format)
	recs, err := r.Records()
	require.NoError(t, err)
	assert.Len(t, recs, 2*2*11)
	economies := map[string]bool{}
	for _, rec := range recs {
		economies[rec.Economy] = true
	}
	assert.Equal(t, map[string]bool{"US": true, "CN": true}, economies)

	b, err := c.Fetch(ctx, &reportstore.FetchParams{Path: "/report/bundle", Query: url.Values{"format": {"csv"}}})
	require.NoError(t, err)
	assert.Equal(t, "bundle", b.ID)
	bundled, err := b.Records()
	require.NoError(t, err)
	indicators := map[string]bool{}
	for _, rec := range bundled {
		indicators[rec.Indicator] = true
	}
	assert.Greater(t, len(indicators), 60)
	assert.Len(t, bundled, len(indicators)*20*11)

	assert.Equal(t, []int64{250000, 950000}, settledValues(srv))

	// A bad parameter of a bespoke product is the store's 400, not a format error, and free.
	_, err = c.Fetch(ctx, &reportstore.FetchParams{Path: "/report/custom", Query: url.Values{"indicators": {"NOPE"}}})
	var apiErr *sdk.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 400, apiErr.StatusCode)
	assert.Equal(t, "invalid_parameter", apiErr.Code)
	assert.NotErrorIs(t, err, reportstore.ErrUnsupportedFormat)
	assert.Len(t, srv.Facilitator().Settlements(), 2)
}

func TestOpenReportHasTheReceiptBeforeReading(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer)

	s, err := c.OpenReport(context.Background(), "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	defer s.Close()
	require.NotNil(t, s.Receipt)
	assert.True(t, s.Receipt.Success)
	assert.Equal(t, srv.Facilitator().Settlements()[0].TxHash, s.Receipt.Transaction)
	assert.Equal(t, "text/csv", s.ContentType)
	assert.Positive(t, s.ContentLength)

	n := 0
	for rec, err := range reportstore.ScanRecords(s) {
		require.NoError(t, err)
		assert.Equal(t, "NY.GDP.MKTP.CD", rec.Indicator)
		n++
	}
	assert.Equal(t, 220, n)
}

func TestInvalidInputIsRefusedBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusInternalServerError, `{}`))
	c := testkit.New(t, reportstore.New, reportstore.WithBaseURL(srv.URL))
	ctx := context.Background()

	for _, id := range []string{"", " ", "a/b", "a?b", "a#b", ".", "..", "a\nb"} {
		_, err := c.Report(ctx, id, reportstore.FormatCSV)
		requireValidation(t, err, "id")
		_, err = c.OpenReport(ctx, id, reportstore.FormatCSV)
		requireValidation(t, err, "id")
		_, err = c.Quote(ctx, id, reportstore.FormatCSV)
		requireValidation(t, err, "id")
		_, err = c.Preview(ctx, id)
		requireValidation(t, err, "id")
	}
	for _, p := range []string{"", "report/custom", "//evil.example/x", "/report/custom?x=1", "/a#b", "/report/../catalog", "/a b"} {
		_, err := c.Fetch(ctx, &reportstore.FetchParams{Path: p})
		requireValidation(t, err, "path")
		_, err = c.QuoteFetch(ctx, &reportstore.FetchParams{Path: p})
		requireValidation(t, err, "path")
	}
	assert.Empty(t, srv.Requests())
}

// requireValidation checks that err is an *sdk.ValidationError for field.
func requireValidation(t *testing.T, err error, field string) {
	t.Helper()
	var ve *sdk.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, field, ve.Field)
	assert.Equal(t, "reportstore", ve.Service)
}

func TestConcurrentPurchasesEachPayOnce(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	payer := newPayer(t, srv, x402.Policy{MaxTotal: usdc.Cents(5 * 13)})
	c := newClient(t, srv, payer)

	errs := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := c.Report(context.Background(), "macro-gdp", reportstore.FormatCSV)
			errs <- err
		}()
	}
	ok, refused := 0, 0
	for range 8 {
		err := <-errs
		switch {
		case err == nil:
			ok++
		case errors.Is(err, x402.ErrBudgetExceeded):
			refused++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	assert.Equal(t, 5, ok)
	assert.Equal(t, 3, refused)
	assert.Len(t, srv.Facilitator().Settlements(), 5)
	assert.Equal(t, "650000", budgettest.Spent(t, payer).String())
}

func TestReportBodyIsComplete(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	c := newClient(t, srv, newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited}))
	ctx := context.Background()

	r, err := c.Report(ctx, "macro-gdp", reportstore.FormatJSON)
	require.NoError(t, err)
	s, err := c.OpenReport(ctx, "macro-gdp", reportstore.FormatJSON)
	require.NoError(t, err)
	defer s.Close()
	streamed, err := io.ReadAll(s)
	require.NoError(t, err)
	assert.Equal(t, r.Body, streamed)
	assert.True(t, json.Valid(r.Body))
}
