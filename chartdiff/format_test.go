package chartdiff_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/internal/testkit"
)

// TestResultsPrintValuesNotAddresses holds that decoded results print their optional numbers
// and the records they point to with %v and %+v, where fmt alone printed addresses.
func TestResultsPrintValuesNotAddresses(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL, chartdiff.WithAPIKey(srv.IssueKey(srv.AccountToken())))
	chart, err := c.Chart(t.Context(), chartdifftest.ChartAnalyzed)
	require.NoError(t, err)
	require.NotNil(t, chart.RefConst)
	require.NotNil(t, chart.Notes)
	text := fmt.Sprintf("%+v", chart)
	assert.NotContains(t, text, "0x")
	assert.Contains(t, text, fmt.Sprintf(" RefConst:%v ", *chart.RefConst))
	assert.Contains(t, text, fmt.Sprintf(" Notes:%d ", *chart.Notes))

	usage, err := c.Usage(t.Context())
	require.NoError(t, err)
	require.NotNil(t, usage.RequestsTotal)
	require.NotNil(t, usage.Limits)
	text = fmt.Sprintf("%+v", usage)
	assert.NotContains(t, text, "0x")
	assert.Contains(t, text, fmt.Sprintf(" RequestsTotal:%d ", *usage.RequestsTotal))
	assert.Contains(t, text, " Limits:{")
}

// TestLifetimePrintsItsName holds that a key's lifetime prints as its constant's name, not as
// a bare number.
func TestLifetimePrintsItsName(t *testing.T) {
	t.Parallel()
	assert.Contains(t, fmt.Sprintf("%+v", chartdiff.CreateKeyParams{Name: "ci", Lifetime: chartdiff.Lifetime90Days}), " Lifetime:Lifetime90Days")
	for lifetime, name := range map[chartdiff.Lifetime]string{
		chartdiff.Lifetime30Days: "Lifetime30Days", chartdiff.Lifetime90Days: "Lifetime90Days",
		chartdiff.Lifetime365Days: "Lifetime365Days", chartdiff.LifetimeNever: "LifetimeNever", 0: "Lifetime(0)",
	} {
		assert.Equal(t, name, lifetime.String())
	}
}
