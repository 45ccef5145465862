package reportstore_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/x402/usdc"
)

// notNumbers are texts that Go's strconv reads as numbers but that are not finite numbers in
// JSON's grammar, as a store may send them.
var notNumbers = []string{"Infinity", "-inf", "+Inf", "1e999", "-1e999", "0x1p4", "1_000"}

// jsonServer serves body as JSON at every path.
func jsonServer(t *testing.T, body string) *reportstore.Client {
	t.Helper()
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, body))
	return testkit.New(t, reportstore.New, reportstore.WithBaseURL(srv.URL))
}

func TestNonFiniteNumbersAreNeverValues(t *testing.T) {
	t.Parallel()
	for _, text := range append([]string{"NaN"}, notNumbers...) {
		t.Run(text, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			catalog, err := jsonServer(t, fmt.Sprintf(`[{"id": "macro-gdp", "price": %q, "economies": %q}]`, text, text)).Catalog(ctx)
			require.NoError(t, err, "an optional price that is not a number leaves the catalog readable")
			require.Len(t, catalog.Products, 1)
			assert.Nil(t, catalog.Products[0].Price)
			assert.Equal(t, text, catalog.Products[0].PriceText, "the text is kept as sent")
			assert.Nil(t, catalog.Products[0].Economies)

			preview, err := jsonServer(t, fmt.Sprintf(`{"year": 2024, "rows": [{"economy": "US", "value": %q, "values": {"A": %q, "B": "2.5"}}]}`,
				text, text)).Preview(ctx, "macro-gdp")
			require.NoError(t, err)
			require.Len(t, preview.Rows, 1)
			assert.Nil(t, preview.Rows[0].Value, "absent, never %s", text)
			require.Contains(t, preview.Rows[0].Values, "A")
			assert.Nil(t, preview.Rows[0].Values["A"])
			require.NotNil(t, preview.Rows[0].Values["B"])
			assert.Equal(t, 2.5, *preview.Rows[0].Values["B"])

			mapped, err := jsonServer(t, fmt.Sprintf(`{"data": {"US": %q, "CN": 3}}`, text)).Preview(ctx, "macro-gdp")
			require.NoError(t, err)
			require.Len(t, mapped.Rows, 2)
			assert.Nil(t, mapped.Rows[1].Value, "US")
			require.NotNil(t, mapped.Rows[0].Value, "CN")

			start, err := jsonServer(t, fmt.Sprintf(`{"recommended": {"id": "macro-gdp", "price": %q}}`, text)).Start(ctx)
			require.NoError(t, err)
			assert.Nil(t, start.Price)

			_, err = usdc.Parse(text)
			assert.Error(t, err)
		})
	}
	t.Run("a JSON number out of range", func(t *testing.T) {
		t.Parallel()
		preview, err := jsonServer(t, `{"rows": [{"economy": "US", "value": 1e999}, {"economy": "CN", "value": -1e999}]}`).
			Preview(context.Background(), "macro-gdp")
		require.NoError(t, err)
		require.Len(t, preview.Rows, 2)
		assert.Nil(t, preview.Rows[0].Value)
		assert.Nil(t, preview.Rows[1].Value)
		catalog, err := jsonServer(t, `[{"id": "macro-gdp", "price": 1e999}]`).Catalog(context.Background())
		require.NoError(t, err)
		assert.Nil(t, catalog.Products[0].Price)
	})
}

func TestNonFiniteNumbersInReportsAreRefused(t *testing.T) {
	t.Parallel()
	for _, text := range notNumbers {
		t.Run(text, func(t *testing.T) {
			t.Parallel()
			csv := &reportstore.Report{Format: reportstore.FormatCSV,
				Body: []byte("economy,year,indicator,value\nUS,2015,X,1.5\nUS,2016,X," + text + "\n")}
			_, err := csv.Records()
			var ce *reportstore.CSVError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, 3, ce.Line)
			assert.Equal(t, "value", ce.Column)

			for rec, err := range reportstore.ScanRecords(bytes.NewReader(csv.Body)) {
				if err != nil {
					require.ErrorAs(t, err, &ce)
					break
				}
				require.NotNil(t, rec.Value)
				assert.Equal(t, 1.5, *rec.Value, "only the finite value is yielded")
			}

			payload := &reportstore.Report{Format: reportstore.FormatJSON, Path: "/report/x",
				Body: []byte(fmt.Sprintf(`{"data": [{"economy": "US", "year": 2015, "indicator": "X", "value": %q}]}`, text))}
			_, err = payload.JSON()
			assert.ErrorContains(t, err, "not a number")
		})
	}
	t.Run("NaN is a missing value", func(t *testing.T) {
		t.Parallel()
		recs, err := (&reportstore.Report{Format: reportstore.FormatCSV,
			Body: []byte("economy,year,indicator,value\nUS,2015,X,NaN\nUS,2016,X,nan\n")}).Records()
		require.NoError(t, err)
		require.Len(t, recs, 2)
		assert.Nil(t, recs[0].Value)
		assert.Nil(t, recs[1].Value)
		p, err := (&reportstore.Report{Format: reportstore.FormatJSON,
			Body: []byte(`{"data": [{"economy": "US", "year": 2015, "indicator": "X", "value": "NaN"}]}`)}).JSON()
		require.NoError(t, err)
		require.Len(t, p.Records, 1)
		assert.Nil(t, p.Records[0].Value)
	})
	t.Run("a JSON number out of range", func(t *testing.T) {
		t.Parallel()
		_, err := (&reportstore.Report{Format: reportstore.FormatJSON,
			Body: []byte(`{"data": [{"economy": "US", "year": 2015, "indicator": "X", "value": 1e999}]}`)}).JSON()
		assert.ErrorContains(t, err, "not a number")
	})
}
