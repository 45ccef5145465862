package reportstore_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/agentapis/sdk/internal/benchtest"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
)

// floorPreview is what a hand-written client would decode from GET /preview/<id>: the year
// and one row per economy with its value or values.
type floorPreview struct {
	Year *int `json:"year"`
	Rows []struct {
		Economy   string              `json:"economy"`
		Name      string              `json:"name"`
		Year      *int                `json:"year"`
		Indicator string              `json:"indicator"`
		Value     *float64            `json:"value"`
		Values    map[string]*float64 `json:"values"`
	} `json:"rows"`
}

// floorGetPreview is the hand-written Preview: the same endpoint and headers, net/http and
// encoding/json, nothing else. It returns the number of rows.
func floorGetPreview(hc *http.Client, base, id string) (int, error) {
	req, err := http.NewRequest(http.MethodGet, base+"/preview/"+id, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "floor/1.0")
	var p floorPreview
	err = benchtest.Floor(hc, req, &p)
	return len(p.Rows), err
}

// BenchmarkPreview compares Client.Preview, the free call a buyer makes before paying for a
// report, with the hand-written floor on the same fake: one goroutine, then 64 sharing one
// client. The report covers 20 economies. "conns" is the number of TCP connections each
// client dialled during the run.
//
//	go test -run='^$' -bench=Preview -benchmem -count=10 ./reportstore
func BenchmarkPreview(b *testing.B) {
	const id, economies = "macro-gdp", 20
	srv := reportstoretest.NewServer()
	b.Cleanup(srv.Close)
	benchtest.Run(b, benchtest.Calls{
		SDK: func(b *testing.B, hc *http.Client) func() error {
			c, err := reportstore.New(reportstore.WithBaseURL(srv.URL), reportstore.WithHTTPClient(hc))
			if err != nil {
				b.Fatal(err)
			}
			return func() error {
				p, err := c.Preview(b.Context(), id)
				if err == nil && len(p.Rows) != economies {
					err = fmt.Errorf("%d rows, want %d", len(p.Rows), economies)
				}
				return err
			}
		},
		Floor: func(_ *testing.B, hc *http.Client) func() error {
			return func() error {
				n, err := floorGetPreview(hc, srv.URL, id)
				if err == nil && n != economies {
					err = fmt.Errorf("%d rows, want %d", n, economies)
				}
				return err
			}
		},
	})
}
