package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/productdata"
	"github.com/agentapis/sdk/productdata/productdatatest"
)

// tourASIN is the product the tour looks up and collects reviews of.
const tourASIN = "B0CVM8TXHP"

// productdataResult is what the productdata step did.
type productdataResult struct {
	ASIN  string
	Title string
	// SalesPrice is the product's price after coupon, in cents.
	SalesPrice int
	// TaskID and Polls describe the review collection; Polls counts its status queries.
	TaskID string
	Polls  int
	// Reviews is the number of reviews read after the collection.
	Reviews int
	// Calls and Units are the requests the client sent and the request units they consumed.
	Calls, Units int64
}

// productdataStep looks up a product on the Amazon US site and runs a review collection to the
// end, showing each wait, then reads the reviews.
func (s *session) productdataStep(ctx context.Context) (any, error) {
	opts := []productdata.Option{productdata.WithHTTPClient(s.httpClient()), productdata.WithLogger(s.logger)}
	// Every status query of the review collection is a request: show each wait.
	wait := sdk.WaitPolicy{Progress: func(p sdk.WaitProgress) {
		s.printf("review collection of %s: %d requests sent, next in %s", p.Subject, p.Attempt, p.Wait.Round(time.Millisecond))
	}}
	if s.live(productdata.EnvURL) {
		// The key is there: the environment was checked before the tour started.
		opts = append(opts, productdata.WithBaseURL(s.env(productdata.EnvURL)), productdata.WithAccountKey(s.env(productdata.EnvAccountKey)))
	} else {
		srv := productdatatest.NewServer(productdatatest.WithTaskDuration(1500 * time.Millisecond))
		s.closeLater(srv.Close)
		opts = append(opts, productdata.WithBaseURL(srv.URL), productdata.WithAccountKey(productdatatest.DefaultKey))
		// The fake collects in 1.5 s: ask more often than a real service would deserve.
		wait.MinDelay, wait.MaxDelay, wait.Timeout = 500*time.Millisecond, 2*time.Second, 20*time.Second
	}
	client, err := productdata.New(append(opts, productdata.WithWait(wait))...)
	if err != nil {
		return nil, err
	}
	res := &productdataResult{}
	defer func() {
		u := client.RequestUnits()
		res.Calls, res.Units = u.Sent, u.Consumed
		s.units.Add(res.Units)
	}()

	p, err := client.Product(ctx, productdata.AmazonUS, tourASIN)
	if err != nil {
		return res, fmt.Errorf("looking up %s: %w", tourASIN, err)
	}
	res.ASIN, res.Title, res.SalesPrice = p.ASIN, p.Title, p.SalesPrice
	s.printf("product %s: %q at $%d.%02d", p.ASIN, p.Title, p.SalesPrice/100, p.SalesPrice%100)

	task, err := client.CollectReviews(ctx, productdata.AmazonUS, &productdata.CollectReviewsParams{ASIN: tourASIN, Pages: 2})
	switch {
	case errors.Is(err, productdata.ErrAlreadyExists):
		s.printf("reviews were collected less than two hours ago; reading those")
	case err != nil:
		return res, fmt.Errorf("collecting reviews of %s: %w", tourASIN, err)
	default:
		res.TaskID, res.Polls = task.TaskID, task.Polls
		s.printf("review collection %s done after %d status queries in %s", task.TaskID, task.Polls, task.Elapsed.Round(100*time.Millisecond))
	}
	for _, err := range client.AllReviews(ctx, productdata.AmazonUS, &productdata.ReviewsParams{ASIN: tourASIN}) {
		if err != nil {
			return res, fmt.Errorf("reading reviews of %s: %w", tourASIN, err)
		}
		res.Reviews++
	}
	if res.Reviews == 0 {
		return res, fmt.Errorf("the collection of %s gave no review", tourASIN)
	}
	u := client.RequestUnits()
	s.printf("read %d reviews; %d requests, %d request units consumed", res.Reviews, u.Sent, u.Consumed)
	return res, nil
}
