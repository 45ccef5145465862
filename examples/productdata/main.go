// Command productdata walks through the product-data API on the Amazon US site: it looks up a
// product, pages through a category's products, collects a product's reviews (polling the
// collection until it is done, with progress output), reads the reviews, and prints the
// request units the calls used.
//
// It runs offline against the in-memory fake by default, whose review collections take
// 1.5 seconds:
//
//	go run ./examples/productdata
//
// With PRODUCTDATA_URL and PRODUCTDATA_ACCOUNT_KEY set it calls that service instead
// (PRODUCTDATA_URL without PRODUCTDATA_ACCOUNT_KEY is refused). Every
// call is charged to the account, and a real review collection takes minutes or more, longer
// than the 90-second wait the client allows by default: the example then reports that the
// collection is still running.
//
//	PRODUCTDATA_URL=https://standardapi.sorftime.com PRODUCTDATA_ACCOUNT_KEY=... go run ./examples/productdata
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/examples/internal/cli"
	"github.com/agentapis/sdk/productdata"
	"github.com/agentapis/sdk/productdata/productdatatest"
)

// about is what -h says the program does.
const about = `Looks up a product on the Amazon US site, pages through a category, collects the
product's reviews (polling the collection to its end) and prints the request units used.
Offline against the in-memory fake by default; with ` + productdata.EnvURL + ` and
` + productdata.EnvAccountKey + ` set, against that service, where every call is charged.`

// settings say which service to use and what to look up.
type settings struct {
	baseURL string
	key     string
	asin    string
	node    string
	// wait bounds the wait for the review collection; zero fields take the client's defaults.
	wait sdk.WaitPolicy
}

// offlineTask is how long the fake takes to collect reviews.
const offlineTask = 1500 * time.Millisecond

func main() { cli.Main(realMain) }

// realMain runs the program with the command line args and the environment env, and returns
// its exit status.
func realMain(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int {
	p := cli.New("productdata", about,
		cli.Var{Name: productdata.EnvURL, Use: "the service's address, {data_api_url} (unset: the in-memory fake)"},
		cli.Var{Name: productdata.EnvAccountKey, Use: "the account key, required with " + productdata.EnvURL})
	asin := p.Flags.String("asin", "B0CVM8TXHP", "ASIN of the product to look up and collect reviews of")
	node := p.Flags.String("node", "3743561", "node id of the category to page through")
	if code, done := p.Parse(args, stdout, stderr); done {
		return code
	}
	if strings.TrimSpace(*asin) == "" || strings.TrimSpace(*node) == "" {
		return p.Refuse(stderr, errors.New("-asin and -node must not be empty"))
	}
	live, err := cli.Live(env, productdata.EnvURL, productdata.EnvAccountKey)
	if err != nil {
		return p.Refuse(stderr, err)
	}
	s := settings{asin: *asin, node: *node}
	if live {
		s.baseURL, s.key = env(productdata.EnvURL), env(productdata.EnvAccountKey)
	}
	return p.Exit(stderr, run(ctx, stdout, s))
}

// run performs the walk-through, writing what happens to out: against the service at
// s.baseURL, or the in-memory fake when it is empty.
func run(ctx context.Context, out io.Writer, s settings) error {
	if s.baseURL == "" {
		srv := productdatatest.NewServer(productdatatest.WithTaskDuration(offlineTask))
		defer srv.Close()
		s.baseURL, s.key = srv.URL, productdatatest.DefaultKey
		// Poll the quick fake more often than a real service would deserve.
		s.wait = sdk.WaitPolicy{MinDelay: 500 * time.Millisecond, MaxDelay: 2 * time.Second, Timeout: 20 * time.Second}
		fmt.Fprintln(out, "offline: using the in-memory fake (set PRODUCTDATA_URL and PRODUCTDATA_ACCOUNT_KEY for a live service)")
	}
	// Every status query of the review collection is a request, so the client asks rarely;
	// Progress shows each wait.
	s.wait.Progress = func(p sdk.WaitProgress) {
		fmt.Fprintf(out, "  collection of %s: %d requests sent, next in %s\n", p.Subject, p.Attempt, p.Wait.Round(time.Millisecond))
	}
	client, err := productdata.New(productdata.WithBaseURL(s.baseURL), productdata.WithAccountKey(s.key), productdata.WithWait(s.wait))
	if err != nil {
		return err
	}

	// 1. One product on the US site: SalesPrice is the price after coupon, in cents, and
	// ListingSalesVolumeOfMonth the units sold in the last 30 days.
	p, err := client.Product(ctx, productdata.AmazonUS, s.asin)
	if errors.Is(err, productdata.ErrUnauthorized) {
		return fmt.Errorf("the service refused the key or the site: %w", err)
	}
	if err != nil {
		return fmt.Errorf("looking up %s: %w", s.asin, err)
	}
	fmt.Fprintf(out, "product %s: %s\n", p.ASIN, p.Title)
	fmt.Fprintf(out, "  %s, %s sold in 30 days", cents(p.SalesPrice), sales(p.ListingSalesVolumeOfMonth))
	if p.Ratings != nil && p.RatingsCount != nil {
		fmt.Fprintf(out, ", rated %.1f by %d", *p.Ratings, *p.RatingsCount)
	}
	fmt.Fprintf(out, " (%s)\n", units(p.Units))

	// 2. Page through a category, best sellers first. Each page is one request; the loop ends
	// without an error at the service's "no more data" code.
	count, before := 0, client.RequestUnits().Sent
	var top []productdata.Product
	for item, err := range client.AllCategoryProducts(ctx, productdata.AmazonUS, &productdata.CategoryProductsParams{NodeId: s.node}) {
		if err != nil {
			return fmt.Errorf("paging category %s: %w", s.node, err)
		}
		count++
		if len(top) < 3 {
			top = append(top, item)
		}
	}
	fmt.Fprintf(out, "category %s: %d products in %d requests; best sellers:\n", s.node, count, client.RequestUnits().Sent-before)
	for i, item := range top {
		fmt.Fprintf(out, "  %d. %s %s, %s sold in 30 days\n", i+1, item.ASIN, cents(item.SalesPrice), sales(item.ListingSalesVolumeOfMonth))
	}

	// 3. Collect the product's reviews, two pages of about ten, and wait for the collection.
	task, err := client.CollectReviews(ctx, productdata.AmazonUS, &productdata.CollectReviewsParams{ASIN: s.asin, Pages: 2})
	switch {
	case errors.Is(err, productdata.ErrAlreadyExists):
		fmt.Fprintln(out, "reviews were collected less than two hours ago; reading those")
	case errors.Is(err, productdata.ErrTaskRunning):
		return fmt.Errorf("the collection is still running; read the reviews later: %w", err)
	case err != nil:
		return fmt.Errorf("collecting reviews of %s: %w", s.asin, err)
	default:
		fmt.Fprintf(out, "collection %s done after %d status queries in %s\n", task.TaskID, task.Polls, task.Elapsed.Round(100*time.Millisecond))
	}
	reviews, stars := 0, [6]int{}
	for r, err := range client.AllReviews(ctx, productdata.AmazonUS, &productdata.ReviewsParams{ASIN: s.asin}) {
		if err != nil {
			return fmt.Errorf("reading reviews of %s: %w", s.asin, err)
		}
		if reviews == 0 {
			fmt.Fprintf(out, "newest review: %q\n", r.Title)
		}
		reviews++
		if r.Star != nil && *r.Star >= 1 && *r.Star <= 5 {
			stars[*r.Star]++
		}
	}
	fmt.Fprintf(out, "%d reviews: %d five-star, %d four, %d three, %d two, %d one\n", reviews, stars[5], stars[4], stars[3], stars[2], stars[1])

	// 4. Request units: each answer says what it consumed and what is left; the client adds
	// them up and counts every request it sent, status queries included.
	u := client.RequestUnits()
	left := "unknown"
	if u.Left != nil {
		left = fmt.Sprint(*u.Left)
	}
	fmt.Fprintf(out, "requests sent: %d (status queries included); units consumed: %d; units left: %s\n", u.Sent, u.Consumed, left)
	return nil
}

// cents writes an amount in cents as dollars.
func cents(n int) string { return fmt.Sprintf("$%d.%02d", n/100, n%100) }

// sales writes a sales figure, which the service gives as -1 when it cannot estimate it.
func sales(n int) string {
	if n == productdata.Unknown {
		return "an unknown number"
	}
	return fmt.Sprint(n)
}

// units writes the request units an answer reported.
func units(u productdata.Units) string {
	if u.Consumed == nil || u.Left == nil {
		return "request units not reported"
	}
	return fmt.Sprintf("%d request unit consumed, %d left", *u.Consumed, *u.Left)
}
