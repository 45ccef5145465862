package reportstore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/fixturetest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/x402/usdc"
)

// fixtureStore returns a client of the store whose requests are answered, in order, by the
// recorded exchanges testdata/fixtures/names, each checking what the client sent; a request
// beyond them, or one left unsent, fails the test.
func fixtureStore(t *testing.T, names ...string) *reportstore.Client {
	t.Helper()
	return testkit.New(t, reportstore.New, reportstore.WithBaseURL("https://reportbazaar.app.workbuddy.host"),
		reportstore.WithHTTPClient(fixturetest.Client(t, "testdata/fixtures", names...)), reportstore.WithRetry(testkit.NoRetry))
}

func TestFixtureCatalogInTheStoresShape(t *testing.T) {
	t.Parallel()
	c := fixtureStore(t, "catalog.json")
	catalog, err := c.Catalog(t.Context())
	require.NoError(t, err)
	products := catalog.Products
	require.Len(t, products, 3)
	gdp := products[0]
	assert.Equal(t, "macro-gdp", gdp.ID)
	assert.Equal(t, "GDP (current US$)", gdp.Title)
	require.NotNil(t, gdp.Price)
	assert.Equal(t, "$0.13", usdc.Format(gdp.Price))
	require.NotNil(t, gdp.Economies)
	assert.Equal(t, 20, *gdp.Economies)
	assert.Equal(t, "2015:2025", gdp.Period)
	assert.Equal(t, 10, *products[1].Economies)
	assert.Equal(t, reportstore.KindBundle, products[2].Kind)
	assert.Contains(t, string(gdp.Raw), `"coveragePct"`, "fields the client does not name stay in Raw")
}

func TestFixturePreview(t *testing.T) {
	t.Parallel()
	c := fixtureStore(t, "preview.json")
	p, err := c.Preview(t.Context(), "macro-gdp")
	require.NoError(t, err)
	require.NotNil(t, p.Year)
	assert.Equal(t, 2024, *p.Year)
	require.Len(t, p.Rows, 3)
	assert.Equal(t, "US", p.Rows[0].Economy)
	require.NotNil(t, p.Rows[0].Value)
	assert.InDelta(t, 2.875e13, *p.Rows[0].Value, 1e11)
	assert.Nil(t, p.Rows[2].Value, "missing data is not 0")
}

func TestFixtureQuoteReadsTheStoresChallenge(t *testing.T) {
	t.Parallel()
	c := fixtureStore(t, "quote.json")
	q, err := c.Quote(t.Context(), "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	assert.Equal(t, "$0.13", usdc.Format(q.Amount))
	assert.Equal(t, "130000", q.Amount.String())
	assert.Equal(t, "eip155:8453", q.Network)
	assert.Equal(t, "0xba7efeabfab91a6febc8d8088faa29ce95979b34", q.PayTo)
	assert.Equal(t, 300, q.MaxTimeoutSeconds)
	assert.Contains(t, string(q.Challenge.Extensions), "bazaar")
}
