package chartdiff_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
)

// describe prints a value that may be absent.
func describe(v *float64) string {
	if v == nil {
		return "absent"
	}
	return fmt.Sprintf("%.1f", *v)
}

func ExampleClient_Chart() {
	srv := chartdifftest.NewServer()
	defer srv.Close()
	client, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	for _, id := range []int{chartdifftest.ChartAnalyzed, chartdifftest.ChartZero, chartdifftest.ChartNotAnalyzed} {
		ch, err := client.Chart(ctx, id)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d %q level=%s analyzed=%t ref_const=%s\n", ch.ID, ch.Name, ch.Level, ch.Analyzed, describe(ch.RefConst))
	}
	// Output:
	// 1 "Silent Echo 1" level=HD analyzed=true ref_const=4.5
	// 3 "Silence" level=AT analyzed=true ref_const=0.0
	// 4 "Golden Echo 4" level=SP analyzed=false ref_const=absent
}

func ExampleClient_AllCharts() {
	srv := chartdifftest.NewServer()
	defer srv.Close()
	client, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL))
	if err != nil {
		log.Fatal(err)
	}

	// The three hardest charts by community constant; charts without one sort last.
	opts := &chartdiff.ChartsParams{Sort: chartdiff.SortRefConst, Order: chartdiff.Desc, PageSize: 50}
	n := 0
	for ch, err := range client.AllCharts(context.Background(), opts) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s %s %.1f\n", ch.Level, ch.Name, *ch.RefConst)
		if n++; n == 3 {
			break // no further page is fetched
		}
	}
	// Output:
	// SP Wild Orbit 69 16.6
	// IN Neon Cascade 82 16.6
	// EZ Hollow Pulse 95 16.6
}

func ExampleClient_Analyze() {
	srv := chartdifftest.NewServer()
	defer srv.Close()
	client, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL),
		// While both analysis slots are busy, wait up to 10 s for one (30 s by default).
		chartdiff.WithWait(sdk.WaitPolicy{Timeout: 10 * time.Second}))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	for range 2 {
		res, err := client.Analyze(ctx, chartdifftest.ChartNotAnalyzed)
		var waited *sdk.WaitError
		if errors.As(err, &waited) {
			log.Fatalf("no free analysis slot after %d attempts: %v", waited.Attempts, err)
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("cached=%t ref_const=%s notes=%d\n", res.Cached, describe(res.Chart.RefConst), *res.Chart.Notes)
	}
	// Output:
	// cached=false ref_const=15.9 notes=316
	// cached=true ref_const=15.9 notes=316
}

func ExampleClient_CreateKey() {
	srv := chartdifftest.NewServer()
	defer srv.Close()
	admin, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL), chartdiff.WithAccountToken(srv.AccountToken()))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	created, err := admin.CreateKey(ctx, &chartdiff.CreateKeyParams{
		Name:     "agent",
		Scopes:   []chartdiff.Scope{chartdiff.ScopeChartsRead, chartdiff.ScopeAnalysesWrite},
		Lifetime: chartdiff.Lifetime90Days,
	})
	if err != nil {
		log.Fatal(err)
	}
	// The plaintext is shown once: store created.Secret.Reveal() in a secret store now.
	// Printing the key shows only its mask.
	fmt.Println(strings.HasPrefix(fmt.Sprint(created.Secret), "sk-…"), len(fmt.Sprint(created.Secret)) < len(created.Secret.Reveal()))
	fmt.Println(created.Key.Name, created.Key.Scopes, created.Key.ExpiresAt != nil)

	client, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL), chartdiff.WithAPIKey(created.Secret.Reveal()))
	if err != nil {
		log.Fatal(err)
	}
	ch, err := client.Chart(ctx, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("hourly quota:", *ch.Response.RateLimit.Limit)
	// Output:
	// true true
	// agent [charts:read analyses:write] true
	// hourly quota: 1000
}

func ExampleClient_SelfCheck() {
	srv := chartdifftest.NewServer(chartdifftest.WithGatewayMangling())
	defer srv.Close()
	client, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL), chartdiff.WithAPIKey(srv.IssueKey(srv.AccountToken())))
	if err != nil {
		log.Fatal(err)
	}

	report, err := client.SelfCheck(context.Background())
	if err != nil {
		log.Fatal(err) // ErrKeyHeaderDropped: keyed calls would run with anonymous limits
	}
	fmt.Println(report)
	// Output:
	// x-phm-key arrives: a nonexistent key was refused (401 invalid_api_key)
	// authorization: not sent, yet received with 24 bytes
	// x-api-key: not sent
	// x-hm-token: not sent
	// x-phm-key: arrives (35 bytes)
}
