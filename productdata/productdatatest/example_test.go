package productdatatest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/agentapis/sdk/productdata"
	"github.com/agentapis/sdk/productdata/productdatatest"
	"github.com/agentapis/sdk/sdktest"
)

// envelopeOf posts body to an endpoint of the fake on the US site and decodes the answer.
func envelopeOf(srv *productdatatest.Server, endpoint, body string, data any) (code, left int) {
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/"+endpoint+"?domain=1", strings.NewReader(body))
	if err != nil {
		log.Fatal(err)
	}
	req.Header.Set("Authorization", "BasicAuth "+productdatatest.DefaultKey)
	req.Header.Set("Content-Type", "application/json;charset=UTF-8")
	resp, err := srv.Client().Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		RequestLeft int
		Code        int
		Data        json.RawMessage
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		log.Fatal(err)
	}
	if env.Code == 0 && data != nil {
		if err := json.Unmarshal(env.Data, data); err != nil {
			log.Fatal(err)
		}
	}
	return env.Code, env.RequestLeft
}

func ExampleNewServer() {
	srv := productdatatest.NewServer(productdatatest.WithClock(sdktest.NewClock(time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC))))
	defer srv.Close()
	client, err := productdata.New(productdata.WithBaseURL(srv.URL), productdata.WithAccountKey(productdatatest.DefaultKey))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	p, err := client.Product(ctx, productdata.AmazonUS, "B0CVM8TXHP")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(*p.Units.Left, p.ASIN, p.Title)
	fmt.Printf("$%d.%02d, %d sold in 30 days\n", p.SalesPrice/100, p.SalesPrice%100, p.ListingSalesVolumeOfMonth)

	products := 0
	for _, err := range client.AllCategoryProducts(ctx, productdata.AmazonUS, &productdata.CategoryProductsParams{NodeId: "3743561"}) {
		if err != nil {
			log.Fatal(err)
		}
		products++
	}
	fmt.Println(products, "products,", srv.RequestLeft(), "requests left")
	// Output:
	// 6499 B0CVM8TXHP Zenvolt Smart Food Storage Box, 2025 Edition
	// $60.47, 467 sold in 30 days
	// 258 products, 6495 requests left
}

func ExampleWithTaskDuration() {
	start := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	clock := sdktest.NewClock(start)
	srv := productdatatest.NewServer(
		productdatatest.WithClock(clock),
		productdatatest.WithTaskDuration(20*time.Second),
	)
	defer srv.Close()

	var taskID string
	envelopeOf(srv, "ProductReviewsCollection", `{"ASIN":"B0CVM8TXHP","Page":2}`, &taskID)
	for range 3 {
		var status []string
		code, _ := envelopeOf(srv, "ProductReviewsCollectionStatusQuery", `{}`, &status)
		fmt.Println(srv.Now().Sub(start), code, status)
		clock.Advance(10 * time.Second)
	}
	var reviews []struct{ Star int }
	code, left := envelopeOf(srv, "ProductReviewsQuery", `{"ASIN":"B0CVM8TXHP"}`, &reviews)
	fmt.Println("task", taskID, "code", code, len(reviews), "reviews,", left, "requests left")
	// Output:
	// 0s 0 [B0CVM8TXHP:0:--]
	// 10s 0 [B0CVM8TXHP:0:--]
	// 20s 0 [B0CVM8TXHP:1:2026-03-02 09:30:20]
	// task 1 code 0 20 reviews, 6495 requests left
}
