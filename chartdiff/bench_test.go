package chartdiff_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
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
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	var ch floorChart
	return json.NewDecoder(resp.Body).Decode(&ch)
}

// floorClient is the hand-written client's *http.Client, with as many idle connections per
// host as goroutines in the concurrent benchmark (net/http's default keeps 2).
func floorClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: t}
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
// goroutine, then 64 sharing one client. conns/op·1e6 is not reported; "conns" is the number
// of TCP connections the server accepted during the run.
//
//	go test -run='^$' -bench=Chart -benchmem -count=10 ./chartdiff
func BenchmarkChart(b *testing.B) {
	const chartID = 7
	srv, key := benchServer(b)
	newSDK := func(b *testing.B) *chartdiff.Client {
		c, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL), chartdiff.WithAPIKey(key))
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	run := func(b *testing.B, parallel bool, call func() error) {
		before := srv.Connections()
		b.ReportAllocs()
		b.ResetTimer()
		if !parallel {
			for range b.N {
				if err := call(); err != nil {
					b.Fatal(err)
				}
			}
		} else {
			b.SetParallelism((64 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := call(); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		b.StopTimer()
		b.ReportMetric(float64(srv.Connections()-before), "conns")
	}
	b.Run("sdk", func(b *testing.B) {
		c := newSDK(b)
		run(b, false, func() error { _, err := c.Chart(b.Context(), chartID); return err })
	})
	b.Run("floor", func(b *testing.B) {
		hc := floorClient()
		run(b, false, func() error { return floorGet(hc, srv.URL, chartID, key) })
	})
	b.Run("sdk-64", func(b *testing.B) {
		c := newSDK(b)
		run(b, true, func() error { _, err := c.Chart(b.Context(), chartID); return err })
	})
	b.Run("floor-64", func(b *testing.B) {
		hc := floorClient()
		run(b, true, func() error { return floorGet(hc, srv.URL, chartID, key) })
	})
}
