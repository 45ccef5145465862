package chartdifftest_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"time"

	"github.com/agentapis/sdk/chartdiff/chartdifftest"
)

func ExampleNewServer() {
	srv := chartdifftest.NewServer(chartdifftest.WithCharts(10), chartdifftest.WithClock(func() time.Time {
		return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}))
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/api/v1/charts/4")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(resp.StatusCode, " ", string(body))
	fmt.Println(resp.Header.Get("x-ratelimit-remaining"), "of", resp.Header.Get("x-ratelimit-limit"), "anonymous requests left")
	// Output:
	// 200 {"chart_id":4,"name":"Golden Echo 4","level":"SP","difficulty":15.8,"charter":"Nyx","uploader":1,"analyzed":false}
	// 99 of 100 anonymous requests left
}
