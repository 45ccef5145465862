package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
	"github.com/agentapis/sdk/x402"
)

// offline is an environment with no variable set: every service runs against its fake.
func offline(string) string { return "" }

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

	rs := stepDetail[*reportstoreResult](t, rep, svcReportstore)
	assert.Positive(t, rs.Products)
	assert.True(t, rs.Bought)
	assert.Positive(t, rs.Rows)
	assert.NotEmpty(t, rs.Transaction)
	assert.True(t, rep.Reserved.IsZero())

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

	// One budget took both payments: the report's price and the Pro key's 5 USDC.
	assert.Equal(t, rs.Quoted.Atomic()+5_000_000, rep.Spent.Atomic())

	cd := stepDetail[*chartdiffResult](t, rep, svcChartdiff)
	assert.NotZero(t, cd.RefConst)
	assert.Len(t, cd.Hardest, 120)
	assert.Equal(t, 3, cd.Pages)

	assert.Positive(t, rep.Requests)
	text := out.String()
	assert.Contains(t, text, "total: spent "+rep.Spent.String())
	assert.Contains(t, text, "of 5 steps succeeded")
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
	assert.True(t, rep.Spent.IsZero(), "nothing bought")
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

func TestTourCapBoundsThePurchase(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	// A cap below the report's price: the payer refuses before signing, the step fails, and
	// nothing is spent or reserved.
	rep, err := run(context.Background(), &out, options{only: "reportstore", cap: "0.05"}, offline)
	require.NoError(t, err)
	assert.False(t, rep.OK())
	require.Len(t, rep.Steps, 1)
	require.Error(t, rep.Steps[0].Err)
	assert.True(t, rep.Spent.IsZero())
	assert.True(t, rep.Reserved.IsZero())
	assert.Contains(t, out.String(), "FAILED")
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
	assert.True(t, rep.Reserved.IsZero())
}

func TestLiveStoreWithoutLivePaymentsIsOnlyQuoted(t *testing.T) {
	t.Parallel()
	// A store the tour treats as live, because its URL variable is set.
	store := reportstoretest.NewServer()
	t.Cleanup(store.Close)
	env := func(k string) string {
		if k == reportstore.EnvURL {
			return store.URL
		}
		return ""
	}
	var out bytes.Buffer
	rep, err := run(context.Background(), &out, options{only: "reportstore"}, env)
	require.NoError(t, err)
	require.True(t, rep.OK(), out.String())
	rs := stepDetail[*reportstoreResult](t, rep, svcReportstore)
	assert.False(t, rs.Bought)
	assert.Positive(t, rs.Quoted.Atomic())
	assert.True(t, strings.Contains(out.String(), "not buying from a live store"))
	assert.True(t, rep.Spent.IsZero())
	assert.Zero(t, store.Sales(tourReport), "nothing was bought")
}
