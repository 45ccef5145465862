package chartdiff_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/internal/testkit"
)

func TestValidationBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL, chartdiff.WithAccountToken(srv.AccountToken()))
	name := "x"

	list := func(o chartdiff.ChartsParams) func(ctx context.Context) error {
		return func(ctx context.Context) error { _, err := c.Charts(ctx, &o); return err }
	}
	cases := []struct {
		name  string
		call  func(ctx context.Context) error
		field string
	}{
		{"chart id 0", func(ctx context.Context) error { _, err := c.Chart(ctx, 0); return err }, "chart_id"},
		{"chart id negative", func(ctx context.Context) error { _, err := c.Chart(ctx, -3); return err }, "chart_id"},
		{"page negative", list(chartdiff.ChartsParams{Page: -1}), "page"},
		{"pageSize negative", list(chartdiff.ChartsParams{PageSize: -1}), "pageSize"},
		{"pageSize above 200", list(chartdiff.ChartsParams{PageSize: 201}), "pageSize"},
		{"unknown sort field", list(chartdiff.ChartsParams{Sort: "rating"}), "sort"},
		{"sort field in another case", list(chartdiff.ChartsParams{Sort: "Chart_ID"}), "sort"},
		{"unknown order", list(chartdiff.ChartsParams{Order: "up"}), "order"},
		{"q of 61 characters", list(chartdiff.ChartsParams{Query: strings.Repeat("a", 61)}), "q"},
		{"q not UTF-8", list(chartdiff.ChartsParams{Query: "\xff\xfe"}), "q"},
		{"unknown only", list(chartdiff.ChartsParams{Filter: "fresh"}), "only"},
		{"build without only", list(chartdiff.ChartsParams{Build: "2.2.1"}), "build"},
		{"build with only official", list(chartdiff.ChartsParams{Filter: chartdiff.FilterOfficial, Build: "2.2.1"}), "build"},
		{"charter uid 0", func(ctx context.Context) error {
			_, err := c.Charter(ctx, 0, &chartdiff.CharterParams{MaxPages: 1})
			return err
		}, "uid"},
		{"charter uid negative", func(ctx context.Context) error {
			_, err := c.Charter(ctx, -9, &chartdiff.CharterParams{MaxPages: 1})
			return err
		}, "uid"},
		{"maxPages negative", func(ctx context.Context) error {
			_, err := c.Charter(ctx, 9, &chartdiff.CharterParams{MaxPages: -1})
			return err
		}, "maxPages"},
		{"maxPages above 5", func(ctx context.Context) error {
			_, err := c.Charter(ctx, 9, &chartdiff.CharterParams{MaxPages: 6})
			return err
		}, "maxPages"},
		{"player uid 0", func(ctx context.Context) error { _, err := c.Player(ctx, 0); return err }, "uid"},
		{"player uid negative", func(ctx context.Context) error { _, err := c.Player(ctx, -1); return err }, "uid"},
		{"analysis chart id 0", func(ctx context.Context) error { _, err := c.Analyze(ctx, 0); return err }, "chart_id"},
		{"create: unknown scope", func(ctx context.Context) error {
			_, err := c.CreateKey(ctx, &chartdiff.CreateKeyParams{Scopes: []chartdiff.Scope{"admin"}})
			return err
		}, "scopes"},
		{"create: repeated scope", func(ctx context.Context) error {
			_, err := c.CreateKey(ctx, &chartdiff.CreateKeyParams{Scopes: []chartdiff.Scope{chartdiff.ScopeUsageRead, chartdiff.ScopeUsageRead}})
			return err
		}, "scopes"},
		{"create: 45 days", func(ctx context.Context) error {
			_, err := c.CreateKey(ctx, &chartdiff.CreateKeyParams{Lifetime: 45})
			return err
		}, "expires_in_days"},
		{"update: empty id", func(ctx context.Context) error {
			_, err := c.UpdateKey(ctx, "", &chartdiff.UpdateKeyParams{Name: &name})
			return err
		}, "id"},
		{"update: nothing to change", func(ctx context.Context) error {
			_, err := c.UpdateKey(ctx, "key_1", &chartdiff.UpdateKeyParams{})
			return err
		}, "body"},
		{"update: unknown scope", func(ctx context.Context) error {
			_, err := c.UpdateKey(ctx, "key_1", &chartdiff.UpdateKeyParams{Scopes: []chartdiff.Scope{"charts:write"}})
			return err
		}, "scopes"},
		{"update: 7 days", func(ctx context.Context) error {
			_, err := c.UpdateKey(ctx, "key_1", &chartdiff.UpdateKeyParams{Lifetime: 7})
			return err
		}, "expires_in_days"},
		{"rotate: empty id", func(ctx context.Context) error { _, err := c.RotateKey(ctx, ""); return err }, "id"},
		{"delete: empty id", func(ctx context.Context) error { _, err := c.DeleteKey(ctx, ""); return err }, "id"},
	}
	for _, tc := range cases {
		err := tc.call(t.Context())
		ve := testkit.ValidationError(t, err)
		assert.Equal(t, tc.field, ve.Field, tc.name)
		assert.Equal(t, "chartdiff", ve.Service, tc.name)
		assert.NotEmpty(t, ve.Reason, tc.name)
	}
	assert.Empty(t, srv.Requests(), "validation happens before any request")
}

func TestValidationBoundariesAreAccepted(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL)

	page, err := c.Charts(t.Context(), &chartdiff.ChartsParams{Page: 1, PageSize: 1, Sort: chartdiff.SortNotes, Order: chartdiff.Desc,
		Query: strings.Repeat("e", 1), Level: "I", Filter: chartdiff.FilterStale, Build: "0.0.1"})
	require.NoError(t, err)
	assert.Len(t, page.Charts, 1)

	page, err = c.Charts(t.Context(), &chartdiff.ChartsParams{PageSize: 200})
	require.NoError(t, err)
	assert.Len(t, page.Charts, 200)

	for _, pages := range []int{1, 5} {
		_, err := c.Charter(t.Context(), 9, &chartdiff.CharterParams{MaxPages: pages})
		require.NoError(t, err, "maxPages %d", pages)
	}
	assert.Len(t, srv.Requests(), 4)
}
