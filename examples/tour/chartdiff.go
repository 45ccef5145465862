package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
)

// chartdiffResult is what the chartdiff step found.
type chartdiffResult struct {
	ChartID  int
	Name     string
	RefConst float64
	Cached   bool
	// Hardest are the names of the hardest analysed charts, hardest first.
	Hardest []string
	// Pages is how many pages the listing fetched.
	Pages int
}

// chartdiffStep analyses a chart and pages through the hardest charts of the shared cache.
func (s *session) chartdiffStep(ctx context.Context) (any, error) {
	opts := []chartdiff.Option{chartdiff.WithHTTPClient(s.httpClient()), chartdiff.WithLogger(s.logger)}
	chartID := chartdifftest.ChartNotAnalyzed
	if s.live(chartdiff.EnvURL) {
		opts = append(opts, chartdiff.WithBaseURL(s.env(chartdiff.EnvURL)))
		if key := s.env(chartdiff.EnvAPIKey); key != "" {
			opts = append(opts, chartdiff.WithAPIKey(key))
		}
	} else {
		srv := chartdifftest.NewServer(chartdifftest.WithCharts(500))
		s.closeLater(srv.Close)
		opts = append(opts, chartdiff.WithBaseURL(srv.URL), chartdiff.WithAPIKey(srv.IssueKey(srv.AccountToken())))
	}
	client, err := chartdiff.New(opts...)
	if err != nil {
		return nil, err
	}
	a, err := client.Analyze(ctx, chartID)
	if err != nil {
		return nil, fmt.Errorf("analysing chart %d: %w", chartID, err)
	}
	res := &chartdiffResult{ChartID: a.Chart.ID, Name: a.Chart.Name, Cached: a.Cached}
	if a.Chart.RefConst == nil {
		return res, fmt.Errorf("chart %d was analysed but has no ref_const", chartID)
	}
	res.RefConst = *a.Chart.RefConst
	s.printf("analysed chart %d %q: ref_const %.2f (cached %t, %d attempt(s))", a.Chart.ID, a.Chart.Name, res.RefConst, a.Cached, a.Response.Attempts)

	const pageSize, want = 50, 120
	list := &chartdiff.ChartsParams{PageSize: pageSize, Sort: chartdiff.SortRefConst, Order: chartdiff.Desc, Filter: chartdiff.FilterOfficial}
	for ch, err := range client.AllCharts(ctx, list) {
		if err != nil {
			return res, fmt.Errorf("listing the hardest charts: %w", err)
		}
		res.Hardest = append(res.Hardest, ch.Name)
		if len(res.Hardest) == want {
			break // the iterator fetches no further page
		}
	}
	res.Pages = (len(res.Hardest) + pageSize - 1) / pageSize
	if len(res.Hardest) == 0 {
		return res, fmt.Errorf("the hardest charts: the cache lists none")
	}
	s.printf("paged through the %d hardest charts (%d pages of %d): %s, ...", len(res.Hardest), res.Pages, pageSize,
		strings.Join(res.Hardest[:min(3, len(res.Hardest))], ", "))
	return res, nil
}
