package productdata

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/jsonmember"
)

// serviceZone is the time zone of the service's dates (China Standard Time): a review
// collection's status is queried by the date the task was created there.
var serviceZone = time.FixedZone("UTC+8", 8*60*60)

// MaxUpdateHours is the largest RefreshProductParams.Update.
const MaxUpdateHours = 120

// RefreshProductParams are the parameters of RefreshProduct.
type RefreshProductParams struct {
	// ASIN is the product.
	ASIN string
	// Update is the age, in hours (1 to 120), beyond which the service fetches the product
	// afresh; a product updated more recently comes back at once, free. 0 leaves the service's
	// default of 24.
	Update int
}

// realtimeBody is ProductRealtimeRequest's body.
type realtimeBody struct {
	ASIN   string `json:"ASIN"`
	Update int    `json:"Update,omitempty"`
}

// freshProduct is the Data of ProductRealtimeRequest: the product when the service sends it,
// nothing otherwise.
type freshProduct struct{ p *Product }

// UnmarshalJSON decodes an object as a Product (strictly) and ignores anything else.
func (f *freshProduct) UnmarshalJSON(b []byte) error {
	if !strings.HasPrefix(strings.TrimSpace(string(b)), "{") {
		return nil
	}
	f.p = new(Product)
	return json.Unmarshal(b, f.p)
}

// RefreshProduct makes sure an Amazon product's data is at most params.Update hours old and
// returns it. It sends ProductRealtimeRequest (one credit point when the service must fetch
// the product, two on AmazonJP; free when the data is recent enough); when the service
// answers that the fetch is under way (code 99), it queries ProductRealtimeRequestStatusQuery
// within the client's wait policy (WithWait) until the fetch is done, and then reads the
// product with ProductRequest (one unit).
//
// A fetch that fails is a *TaskError; a wait that ends first (its Timeout, MaxAttempts, or
// ctx) is an *sdk.WaitError matching ErrTaskRunning, and the fetch may still complete: read
// the product later with Product. The starting request is sent once (it is not repeated on a
// network error); status queries that meet the per-minute limit or a network failure are
// tried again on the schedule.
func (c *Client) RefreshProduct(ctx context.Context, domain Domain, params *RefreshProductParams) (*Product, error) {
	if err := checkAmazon(domain, "RefreshProduct"); err != nil {
		return nil, err
	}
	if params == nil {
		params = &RefreshProductParams{}
	}
	if err := checkASIN("ASIN", params.ASIN); err != nil {
		return nil, err
	}
	if params.Update < 0 || params.Update > MaxUpdateHours {
		return nil, invalid("Update", "must be 1 to 120 hours, or 0 for the service's default")
	}
	t := &task{endpoint: EndpointProductRealtimeRequest, asin: params.ASIN}
	var fresh *Product
	start := func(ctx context.Context) (bool, error) {
		var data freshProduct
		env := &envelope{data: &data}
		resp, err := c.call(ctx, EndpointProductRealtimeRequest, domain, &realtimeBody{ASIN: params.ASIN, Update: params.Update}, env)
		if errors.Is(err, ErrTaskRunning) {
			return false, nil
		}
		if err == nil && data.p != nil && strings.EqualFold(data.p.ASIN, params.ASIN) {
			fresh = data.p
			fresh.Units, fresh.Response = env.units, resp.Meta()
		}
		return true, err
	}
	check := c.statusStep(t, EndpointProductRealtimeRequestStatusQuery, domain,
		RawParams{"ASINs": []string{params.ASIN}})
	if err := c.await(ctx, "RefreshProduct", t, start, check); err != nil {
		return nil, err
	}
	if fresh != nil {
		return fresh, nil
	}
	return c.Product(ctx, domain, params.ASIN)
}

// MaxReviewPages is the most pages (about 10 reviews each) one collection takes per star.
const MaxReviewPages = 10

// Star filters of reviews, beside the star counts 1 to 5.
const (
	// StarNegative selects the 1- to 3-star reviews.
	StarNegative = 10
	// StarPositive selects the 4- and 5-star reviews.
	StarPositive = 11
)

// validStar reports whether s is a star filter: 1 to 5, StarNegative or StarPositive.
func validStar(s int) bool { return (s >= 1 && s <= 5) || s == StarNegative || s == StarPositive }

// CollectReviewsParams are the parameters of CollectReviews.
type CollectReviewsParams struct {
	// ASIN is the product.
	ASIN string
	// Pages is the number of pages to collect (Page, about 10 reviews each), 1 to 10; 0
	// leaves the service's default of 1.
	Pages int
	// MostRecent collects the most recent reviews (CollectType 1) instead of the top ones.
	MostRecent bool
	// Stars collects Pages pages for each filter given (1 to 5, StarNegative, StarPositive);
	// none collects without a filter. Every page is charged: 10 collected reviews cost two
	// credit points.
	Stars []int
}

// reviewsCollectionBody is ProductReviewsCollection's body.
type reviewsCollectionBody struct {
	ASIN        string `json:"ASIN"`
	Page        int    `json:"Page,omitempty"`
	CollectType int    `json:"CollectType,omitempty"`
	Star        string `json:"Star,omitempty"`
}

// body validates p and returns ProductReviewsCollection's body.
func (p *CollectReviewsParams) body() (*reviewsCollectionBody, error) {
	if p == nil {
		p = &CollectReviewsParams{}
	}
	if err := checkASIN("ASIN", p.ASIN); err != nil {
		return nil, err
	}
	if p.Pages < 0 || p.Pages > MaxReviewPages {
		return nil, invalid("Page", "must be 1 to 10, or 0 for the service's default")
	}
	b := &reviewsCollectionBody{ASIN: p.ASIN, Page: p.Pages}
	if p.MostRecent {
		b.CollectType = 1
	}
	stars := make([]string, 0, len(p.Stars))
	for i, s := range p.Stars {
		if !validStar(s) {
			return nil, invalid("Star", "each must be 1 to 5, 10 (negative) or 11 (positive)")
		}
		if slices.Contains(p.Stars[:i], s) {
			return nil, invalid("Star", strconv.Itoa(s)+" is listed twice (each is collected and charged)")
		}
		stars = append(stars, strconv.Itoa(s))
	}
	b.Star = strings.Join(stars, ",")
	return b, nil
}

// reviewsStatusBody is ProductReviewsCollectionStatusQuery's body: the service lists the
// collections created on QueryDate; ASIN narrows the list where the service supports it.
type reviewsStatusBody struct {
	QueryDate string `json:"QueryDate"`
	ASIN      string `json:"ASIN"`
}

// ReviewTask is a finished review collection, whose reviews AllReviews then reads.
type ReviewTask struct {
	// ASIN is the product.
	ASIN string
	// TaskID is the collection's id as the service returned it.
	TaskID string
	// QueryDate is the service's date (UTC+8) the collection was created on, yyyy-MM-dd, as
	// its status query takes it.
	QueryDate string
	// FinishedAt is the finish time the status query reported, as it wrote it.
	FinishedAt string
	// Polls is the number of status queries made; Elapsed the time from the starting request.
	Polls   int
	Elapsed time.Duration
	// Units are the request units the request that started the collection reported.
	Units Units
	// Response describes the answer of the request that started the collection.
	Response sdk.Response
}

// CollectReviews collects an Amazon product's reviews and waits until the collection is done:
// it sends ProductReviewsCollection (charged in credit points per page collected), then polls
// ProductReviewsCollectionStatusQuery within the client's wait policy (WithWait). Read the
// reviews with AllReviews afterwards.
//
// The service takes from minutes to days to collect, and refuses to collect the same product
// again within two hours (ErrAlreadyExists: read the reviews collected before). A collection
// that fails is a *TaskError; a wait that ends first is an *sdk.WaitError matching ErrTaskRunning,
// and the collection goes on: poll again later with Call, or read the reviews when done. The
// starting request is sent once.
func (c *Client) CollectReviews(ctx context.Context, domain Domain, params *CollectReviewsParams) (*ReviewTask, error) {
	if err := checkAmazon(domain, "CollectReviews"); err != nil {
		return nil, err
	}
	body, err := params.body()
	if err != nil {
		return nil, err
	}
	t := &task{endpoint: EndpointProductReviewsCollection, asin: body.ASIN}
	out := &ReviewTask{ASIN: body.ASIN}
	status := &reviewsStatusBody{ASIN: body.ASIN}
	begin := c.clock.Now()
	start := func(ctx context.Context) (bool, error) {
		status.QueryDate = c.clock.Now().In(serviceZone).Format(dateLayout)
		var id jsonmember.Optional[jsonmember.Text]
		env := &envelope{data: &id}
		resp, err := c.call(ctx, EndpointProductReviewsCollection, domain, body, env)
		if err != nil {
			return true, err
		}
		out.Units, out.Response = env.units, resp.Meta()
		// The id reaches results, progress and errors: scrub a key a server may have echoed.
		t.taskID = c.core.Redact(string(id.Or("")))
		if n, ok := wholeNumber(t.taskID); ok && n <= 0 {
			return true, &TaskError{Endpoint: t.endpoint, ASIN: t.asin, TaskID: t.taskID, Status: TaskFailed}
		}
		return false, nil
	}
	check := c.statusStep(t, EndpointProductReviewsCollectionStatusQuery, domain, status)
	if err := c.await(ctx, "CollectReviews", t, start, check); err != nil {
		return nil, err
	}
	out.TaskID, out.QueryDate, out.FinishedAt = t.taskID, status.QueryDate, t.finished
	out.Polls, out.Elapsed = t.polls, c.clock.Now().Sub(begin)
	return out, nil
}

// ReviewsParams are the parameters of AllReviews.
type ReviewsParams struct {
	// ASIN is the product.
	ASIN string
	// Star keeps the reviews of one filter: 1 to 5, StarNegative or StarPositive; 0 keeps all.
	Star int
}

// reviewsQueryBody is one page's body of ProductReviewsQuery.
type reviewsQueryBody struct {
	ASIN string `json:"ASIN"`
	Page int    `json:"Page"`
	Star int    `json:"Star,omitempty"`
}

// AllReviews iterates over the collected reviews of an Amazon product with
// ProductReviewsQuery, page by page (up to 100 reviews a page, each page charged), fetching
// each page when the loop reaches it; breaking out of the loop sends no further request. It
// ends cleanly at the "no more data" code or after an empty page; any other error (such as
// ErrNotFound when nothing was collected) is yielded once.
func (c *Client) AllReviews(ctx context.Context, domain Domain, params *ReviewsParams) iter.Seq2[Review, error] {
	if params == nil {
		params = &ReviewsParams{}
	}
	err := checkAmazon(domain, "AllReviews")
	if err == nil {
		err = checkASIN("ASIN", params.ASIN)
	}
	if err == nil && params.Star != 0 && !validStar(params.Star) {
		err = invalid("Star", "must be 1 to 5, 10 (negative), 11 (positive) or 0 for all")
	}
	if err != nil {
		return failing[Review](err)
	}
	body := func(page int) any { return &reviewsQueryBody{ASIN: params.ASIN, Page: page, Star: params.Star} }
	return pagedItems[Review](c, ctx, EndpointProductReviewsQuery, domain, body)
}

// Review is one collected review. The API description does not show its fields, so each is
// optional, the likely spellings are accepted (Star or Rating, ReviewDate or Date, Content or
// Review, ReviewId or Id), and Raw holds the object as sent.
type Review struct {
	// ReviewId is the review's id.
	ReviewId string `json:"ReviewId,omitempty"`
	// Title and Content are the review's title and text.
	Title   string `json:"Title,omitempty"`
	Content string `json:"Content,omitempty"`
	// Star is the rating, 1 to 5.
	Star *int `json:"Star,omitempty"`
	// IsVerified reports a verified purchase.
	IsVerified *bool `json:"IsVerified,omitempty"`
	// ReviewDate is the review's date, yyyy-MM-dd.
	ReviewDate string `json:"ReviewDate,omitempty"`
	// ReviewerName is the reviewer's name.
	ReviewerName string `json:"ReviewerName,omitempty"`
	// HelpfulCount is the number of "helpful" votes.
	HelpfulCount *int `json:"HelpfulCount,omitempty"`
	// ImageUrls lists the review's images.
	ImageUrls []string `json:"ImageUrls,omitempty"`
	// CollectedAt is when the service collected the review.
	CollectedAt string `json:"CollectedAt,omitempty"`
	// Raw is the review's JSON object as sent.
	Raw json.RawMessage `json:"-"`
}

// plainReview is Review without its UnmarshalJSON method.
type plainReview Review

// UnmarshalJSON decodes a review leniently and keeps a copy of its object as Raw.
func (r *Review) UnmarshalJSON(b []byte) error {
	var w struct {
		plainReview
		ID           string                    `json:"Id"`
		Review       string                    `json:"Review"`
		Date         string                    `json:"Date"`
		Star         jsonmember.Optional[int]  `json:"Star"`
		Rating       jsonmember.Optional[int]  `json:"Rating"`
		IsVerified   jsonmember.Optional[bool] `json:"IsVerified"`
		HelpfulCount jsonmember.Optional[int]  `json:"HelpfulCount"`
		ImageUrls    textList                  `json:"ImageUrls"`
	}
	if err := lenientUnmarshal(b, &w); err != nil {
		return err
	}
	*r = Review(w.plainReview)
	r.ReviewId = cmp.Or(r.ReviewId, w.ID)
	r.Content = cmp.Or(r.Content, w.Review)
	r.ReviewDate = cmp.Or(r.ReviewDate, w.Date)
	r.Star = jsonmember.FirstPtr(w.Star, w.Rating)
	r.IsVerified, r.HelpfulCount, r.ImageUrls = w.IsVerified.Ptr(), w.HelpfulCount.Ptr(), w.ImageUrls
	r.Raw = bytes.Clone(b)
	return nil
}
