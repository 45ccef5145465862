package productdata_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/productdata"
	"github.com/agentapis/sdk/productdata/productdatatest"
)

// exampleClient returns a client of the fake srv, as a program would build one for the real
// service with its own base URL and key.
func exampleClient(srv *productdatatest.Server, opts ...productdata.Option) *productdata.Client {
	client, err := productdata.New(append([]productdata.Option{productdata.WithBaseURL(srv.URL),
		productdata.WithAccountKey(productdatatest.DefaultKey)}, opts...)...)
	if err != nil {
		log.Fatal(err)
	}
	return client
}

func ExampleClient_Product() {
	srv := productdatatest.NewServer()
	defer srv.Close()
	client := exampleClient(srv)

	p, err := client.Product(context.Background(), productdata.AmazonUS, "B0CVM8TXHP")
	if err != nil {
		log.Fatal(err)
	}
	// SalesPrice is the price after coupon and ListingSalesVolumeOfMonth the units sold in 30
	// days; money is in the site's smallest unit, US cents here.
	fmt.Println(p.ASIN, p.Title)
	fmt.Printf("$%d.%02d, %d sold in 30 days\n", p.SalesPrice/100, p.SalesPrice%100, p.ListingSalesVolumeOfMonth)
	fmt.Println("consumed", *p.Units.Consumed, "left", *p.Units.Left)
	// Output:
	// B0CVM8TXHP Zenvolt Smart Food Storage Box, 2025 Edition
	// $60.47, 467 sold in 30 days
	// consumed 1 left 6499
}

func ExampleClient_AllCategoryProducts() {
	srv := productdatatest.NewServer()
	defer srv.Close()
	client := exampleClient(srv)

	// Each page is fetched when the loop reaches it and is charged; the service's "no more
	// data" code ends the loop without an error.
	n := 0
	for p, err := range client.AllCategoryProducts(context.Background(), productdata.AmazonUS, &productdata.CategoryProductsParams{NodeId: "3743561"}) {
		if err != nil {
			log.Fatal(err)
		}
		if n < 2 {
			fmt.Println(p.ASIN, p.SalesPrice, p.ListingSalesVolumeOfMonth)
		}
		n++
	}
	fmt.Println(n, "products;", client.RequestUnits().Sent, "requests")
	// Output:
	// B0780J792C 6293 4992
	// B0O8TYY6WO 5897 4968
	// 258 products; 4 requests
}

func ExampleClient_Pages() {
	srv := productdatatest.NewServer()
	defer srv.Close()
	client := exampleClient(srv)

	// Pages reaches any paged endpoint; each page's Data is the raw JSON the service sent.
	for page, err := range client.Pages(context.Background(), productdata.EndpointKeywordSearchResults, productdata.AmazonUS,
		&productdata.PagesParams{Body: productdata.RawParams{"Keyword": "food storage"}}) {
		if err != nil {
			log.Fatal(err)
		}
		var results []struct {
			ASIN        string
			OrganicRank int
		}
		if err := json.Unmarshal(page.Data, &results); err != nil {
			log.Fatal(err)
		}
		fmt.Println("page", page.Number, len(results), "results, first", results[0].ASIN, "at rank", results[0].OrganicRank)
		fmt.Println(*page.Units.Left, "units left")
	}
	fmt.Println(client.RequestUnits().Sent, "requests") // the second found no more data
	// Output:
	// page 1 54 results, first B0RFMD8E9E at rank 1
	// 6499 units left
	// 2 requests
}

func ExampleAPIError() {
	srv := productdatatest.NewServer()
	defer srv.Close()
	ctx := context.Background()

	// A key the service does not know: the answer is HTTP 200 with code 401.
	client, err := productdata.New(productdata.WithBaseURL(srv.URL), productdata.WithAccountKey("0123456789abcdef0123456789abcdef"))
	if err != nil {
		log.Fatal(err)
	}
	_, err = client.Product(ctx, productdata.AmazonUS, "B0CVM8TXHP")
	var apiErr *sdk.APIError
	if errors.As(err, &apiErr) {
		fmt.Println("HTTP", apiErr.StatusCode, "code", apiErr.Code)
	}
	fmt.Println(errors.Is(err, productdata.ErrUnauthorized))

	// An ASIN that does not exist: code 97.
	_, err = exampleClient(srv).Product(ctx, productdata.AmazonUS, productdatatest.MissingASINPrefix+"0001")
	fmt.Println(errors.Is(err, productdata.ErrNotFound))

	// A site code that does not exist is refused before any request.
	_, err = exampleClient(srv).Product(ctx, productdata.Domain(15), "B0CVM8TXHP")
	var invalid *sdk.ValidationError
	fmt.Println(errors.As(err, &invalid), invalid.Field)
	// Output:
	// HTTP 200 code 401
	// true
	// true
	// true domain
}

func ExampleClient_CollectReviews() {
	// The fake finishes a collection at once; the real service takes minutes or more.
	srv := productdatatest.NewServer(productdatatest.WithTaskDuration(0))
	defer srv.Close()
	client := exampleClient(srv, productdata.WithWait(sdk.WaitPolicy{
		MinDelay: 50 * time.Millisecond,
		Progress: func(p sdk.WaitProgress) {
			fmt.Println(p.Operation, p.Subject, "requests so far:", p.Attempt)
		},
	}))
	ctx := context.Background()

	task, err := client.CollectReviews(ctx, productdata.AmazonUS, &productdata.CollectReviewsParams{ASIN: "B0CVM8TXHP", Pages: 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("done after", task.Polls, "status query")

	stars := map[int]int{}
	for r, err := range client.AllReviews(ctx, productdata.AmazonUS, &productdata.ReviewsParams{ASIN: task.ASIN}) {
		if err != nil {
			log.Fatal(err)
		}
		stars[*r.Star]++
	}
	fmt.Println("five-star:", stars[5], "one-star:", stars[1])
	fmt.Println("requests:", client.RequestUnits().Sent, "units left:", *client.RequestUnits().Left)
	// Output:
	// CollectReviews B0CVM8TXHP requests so far: 1
	// done after 1 status query
	// five-star: 7 one-star: 3
	// requests: 4 units left: 6496
}
