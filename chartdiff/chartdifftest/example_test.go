package chartdifftest_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/sdktest"
)

func ExampleNewServer() {
	clock := sdktest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := chartdifftest.NewServer(chartdifftest.WithCharts(10), chartdifftest.WithClock(clock))
	defer srv.Close()

	client, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	ch, err := client.Chart(context.Background(), 4)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ch.ID, ch.Name, ch.Level, "analysed:", ch.Analyzed, "value:", ch.RefConst)
	rl := ch.Response.RateLimit
	fmt.Println(*rl.Remaining, "of", *rl.Limit, "anonymous requests left")
	// Output:
	// 4 Golden Echo 4 SP analysed: false value: <nil>
	// 99 of 100 anonymous requests left
}
