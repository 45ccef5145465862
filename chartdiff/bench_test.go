package chartdiff_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/internal/benchtest"
)

// floorChart is what a hand-written client would decode: the fields the API description
// names.
type floorChart struct {
	ID          int      `json:"chart_id"`
	Name        string   `json:"name"`
	Level       string   `json:"level"`
	Difficulty  *float64 `json:"difficulty"`
	Analyzed    bool     `json:"analyzed"`
	RefConst    *float64 `json:"ref_const"`
	RefOfficial *float64 `json:"ref_official"`
	PSScore     *float64 `json:"ps_score"`
	NPS         *float64 `json:"nps"`
	Notes       *int     `json:"notes"`
	// The fields the SDK decodes beyond those the description names.
	Charter       string     `json:"charter"`
	Uploader      int        `json:"uploader"`
	EngineVersion string     `json:"engine_version"`
	AnalyzedAt    *time.Time `json:"analyzed_at"`
}

// floorGet is the hand-written GET of one chart: net/http and encoding/json, nothing else.
func floorGet(hc *http.Client, base string, id int, key string) error {
	req, err := http.NewRequest(http.MethodGet, base+"/api/v1/charts/"+strconv.Itoa(id), nil)
	if err != nil {
		return err
	}
	req.Header.Set(chartdiff.KeyHeader, key)
	var ch floorChart
	return benchtest.Floor(hc, req, &ch)
}

// benchServer is a fake whose quotas the benchmark cannot exhaust, and a key for it.
func benchServer(b *testing.B) (*chartdifftest.Server, string) {
	srv := chartdifftest.NewServer(chartdifftest.WithQuotas(chartdifftest.Quotas{
		AnonymousPerHour: 1 << 30, GlobalAnonymousPerHour: 1 << 30, KeyPerHour: 1 << 30, AnalysesPerDay: 1 << 30,
	}))
	b.Cleanup(srv.Close)
	return srv, srv.IssueKey(srv.AccountToken())
}

// BenchmarkChart compares Client.Chart with the hand-written floor on the same fake: one
// goroutine, then 64 sharing one client. "conns" is the number of TCP connections each
// client dialled during the run.
//
//	go test -run='^$' -bench=Chart -benchmem -count=10 ./chartdiff
func BenchmarkChart(b *testing.B) {
	const chartID = 7
	srv, key := benchServer(b)
	benchtest.Run(b, benchtest.Calls{
		SDK: func(b *testing.B, hc *http.Client) func() error {
			c, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL), chartdiff.WithAPIKey(key), chartdiff.WithHTTPClient(hc))
			if err != nil {
				b.Fatal(err)
			}
			return func() error { _, err := c.Chart(b.Context(), chartID); return err }
		},
		Floor: func(_ *testing.B, hc *http.Client) func() error {
			return func() error { return floorGet(hc, srv.URL, chartID, key) }
		},
	})
}
