package reportstore_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/usdc"
)

// address matches a pointer as fmt prints one ("0xc000012345"); an EVM address or a nonce is
// longer and is not matched.
var address = regexp.MustCompile(`\b0x[0-9a-f]{6,12}\b`)

// TestResultsPrintValuesNotAddresses holds that decoded results print their optional numbers
// and the payment and receipt they point to with %v and %+v, where fmt alone printed
// addresses.
func TestResultsPrintValuesNotAddresses(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	c := newClient(t, srv, newPayer(t, srv, x402.Policy{MaxPerPayment: usdc.Dollars(1), MaxTotal: usdc.Dollars(1)}))

	preview, err := c.Preview(t.Context(), "macro-gdp")
	require.NoError(t, err)
	require.NotNil(t, preview.Year)
	require.NotEmpty(t, preview.Rows)
	require.NotNil(t, preview.Rows[0].Value)
	text := fmt.Sprintf("%+v", preview)
	assert.NotContains(t, text, "0x")
	assert.Contains(t, text, fmt.Sprintf("{ID:macro-gdp Year:%d Rows:[{Economy:%s ", *preview.Year, preview.Rows[0].Economy))
	assert.Contains(t, text, fmt.Sprintf(" Value:%v ", *preview.Rows[0].Value))

	report, err := c.Report(t.Context(), "macro-gdp", reportstore.FormatJSON)
	require.NoError(t, err)
	require.NotNil(t, report.Payment)
	require.NotNil(t, report.Receipt)
	for _, text := range []string{fmt.Sprintf("%+v", report), fmt.Sprintf("%v", report)} {
		assert.NotRegexp(t, address, text)
		assert.Contains(t, text, " Payment:{ID:"+report.Payment.ID+" ")
		assert.Contains(t, text, " PayTo:"+report.Payment.PayTo+" ")
		assert.Contains(t, text, " Receipt:{Success:true ")
	}

	quote, err := c.Quote(t.Context(), "macro-gdp", reportstore.FormatJSON)
	require.NoError(t, err)
	text = fmt.Sprintf("%+v", quote)
	assert.NotRegexp(t, address, text)
	assert.Contains(t, text, " Amount:"+quote.Amount.String()+" ")
	assert.Contains(t, text, " Challenge:{")
}
