package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/productdata"
)

// setupProductdata registers the product-data tools when PRODUCTDATA_URL is set.
func (s *Server) setupProductdata(context.Context) error {
	base := s.env(productdata.EnvURL)
	if base == "" {
		return nil
	}
	key := s.env(productdata.EnvAccountKey)
	s.secrets.add(key)
	wait := sdk.WaitPolicy{MinDelay: 2 * time.Second, MaxDelay: 30 * time.Second, Timeout: 10 * time.Minute, MaxAttempts: 40}
	if s.opts.Offline {
		// The fake finishes its tasks in 300 ms: ask more often than a real service deserves.
		wait = sdk.WaitPolicy{MinDelay: 100 * time.Millisecond, MaxDelay: time.Second, Timeout: 30 * time.Second}
	}
	c, err := productdata.New(productdata.WithBaseURL(base), productdata.WithAccountKey(key), productdata.WithLogger(s.logger), productdata.WithWait(wait))
	if err != nil {
		return fmt.Errorf("productdata: %w", err)
	}
	s.services.productdata = c
	addTool(s, &mcp.Tool{Name: "productdata_product", Annotations: readOnly,
		Description: "Looks up an Amazon product by ASIN: title, brand, price after coupon (in the site's smallest unit, US cents), units sold in 30 days, rank, ratings. Costs one request unit of the product-data plan (no USDC)."},
		s.pdProduct)
	addTool(s, &mcp.Tool{Name: "productdata_call", Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)},
		Description: "Calls any product-data endpoint by name (such as CategoryTree, ProductSearch, KeywordRequest) for a site, with its parameters under the service's names, and returns its data. Costs the endpoint's request units (no USDC)."},
		s.pdCall)
	addTool(s, &mcp.Tool{Name: "productdata_refresh_product", Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)},
		Description: "Makes sure an Amazon product's data is at most max_age_hours old, polling the service's asynchronous fetch to completion, and returns the product. Costs one credit point when the service must fetch, plus one request unit."},
		s.pdRefresh)
	addTool(s, &mcp.Tool{Name: "productdata_collect_reviews", Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(true)},
		Description: "Collects an Amazon product's reviews (an asynchronous task polled to completion) and returns the first of them. Costs two credit points per 10 reviews collected, plus request units to read them."},
		s.pdCollectReviews)
	return nil
}

// ProductIn is the input of productdata_product.
type ProductIn struct {
	Domain int    `json:"domain,omitempty" bounds:"min=0,max=999" jsonschema:"the Amazon site code: 1 US (default), 2 UK, 3 DE, 4 FR, 5 IN, 6 CA, 7 JP, 8 ES, 9 IT, 10 MX, 11 AE, 12 AU, 13 BR, 14 SA"`
	ASIN   string `json:"asin" bounds:"min=10,max=10" pattern:"^[A-Z0-9]{10}$" jsonschema:"the product's ASIN, such as B0CVM8TXHP"`
}

// site returns the Domain of a code, 1 (Amazon US) for 0.
func site(code int) (productdata.Domain, error) {
	if code == 0 {
		return productdata.AmazonUS, nil
	}
	d := productdata.Domain(code)
	if !d.Valid() {
		return 0, fmt.Errorf("domain %d is not a site code of the service", code)
	}
	return d, nil
}

// ProductOut is a product.
type ProductOut struct {
	ASIN                      string   `json:"asin"`
	Title                     string   `json:"title,omitempty"`
	Brand                     string   `json:"brand,omitempty"`
	StoreName                 string   `json:"store_name,omitempty"`
	SalesPrice                int      `json:"sales_price" jsonschema:"the price after coupon, in the site's smallest unit (US cents)"`
	ListPrice                 *int     `json:"list_price,omitempty"`
	ListingSalesVolumeOfMonth int      `json:"units_sold_30_days" jsonschema:"units sold in the last 30 days, all variations; -1 when unknown"`
	Rank                      *int     `json:"rank,omitempty"`
	Ratings                   *float64 `json:"ratings,omitempty"`
	RatingsCount              *int     `json:"ratings_count,omitempty"`
	Category                  []string `json:"category,omitempty"`
	Photo                     []string `json:"photos,omitempty"`
}

// productOut returns p as a tool result.
func productOut(p *productdata.Product) ProductOut {
	return ProductOut{ASIN: p.ASIN, Title: p.Title, Brand: p.Brand, StoreName: p.StoreName, SalesPrice: p.SalesPrice, ListPrice: p.ListPrice,
		ListingSalesVolumeOfMonth: p.ListingSalesVolumeOfMonth, Rank: p.Rank, Ratings: p.Ratings, RatingsCount: p.RatingsCount,
		Category: p.Category, Photo: p.Photo}
}

// Units are the request units of a product-data answer.
type Units struct {
	Left     *int `json:"left,omitempty" jsonschema:"request units left on the account"`
	Consumed *int `json:"consumed,omitempty" jsonschema:"request units the call consumed"`
}

// ProductResult is what productdata_product and productdata_refresh_product return.
type ProductResult struct {
	Product ProductOut `json:"product"`
	Units   Units      `json:"units"`
}

// pdProduct looks a product up.
func (s *Server) pdProduct(ctx context.Context, _ *mcp.CallToolRequest, in ProductIn) (ProductResult, string, error) {
	d, err := site(in.Domain)
	if err != nil {
		return ProductResult{}, "", err
	}
	p, err := s.services.productdata.Product(ctx, d, in.ASIN)
	if err != nil {
		return ProductResult{}, "", err
	}
	out := ProductResult{Product: productOut(p), Units: Units{Left: p.Units.Left, Consumed: p.Units.Consumed}}
	return out, fmt.Sprintf("%s %q: %d (smallest unit) after coupon, %d sold in 30 days", p.ASIN, p.Title, p.SalesPrice, p.ListingSalesVolumeOfMonth), nil
}

// CallIn is the input of productdata_call.
type CallIn struct {
	Endpoint string `json:"endpoint" bounds:"min=2,max=64" pattern:"^[A-Z][A-Za-z0-9]{1,63}$" jsonschema:"the endpoint's name, such as CategoryTree or ProductSearch"`
	Domain   int    `json:"domain,omitempty" bounds:"min=0,max=999" jsonschema:"the site code (1 Amazon US ... 705 Temu EU); 0 for the account endpoints (CoinQuery, CoinStream, RequestStreamMonth)"`
	Params   string `json:"params,omitempty" bounds:"max=16384" jsonschema:"the parameters as a JSON object under the service's names, such as {\"Brand\":\"anker\"}"`
}

// CallOut is what productdata_call returns.
type CallOut struct {
	Endpoint string `json:"endpoint"`
	Data     any    `json:"data" jsonschema:"the answer's data as the service sent it (after any gzip and base64 were undone)"`
	Message  string `json:"message,omitempty"`
	Units    Units  `json:"units"`
}

// pdCall calls an endpoint by name. Endpoints that delete are destructive.
func (s *Server) pdCall(ctx context.Context, _ *mcp.CallToolRequest, in CallIn) (CallOut, string, error) {
	if strings.Contains(in.Endpoint, "Delete") && !s.opts.AllowDestructive {
		return CallOut{}, "", fmt.Errorf("%s deletes: destructive endpoints are off on this server (start it with -allow-destructive)", in.Endpoint)
	}
	d := productdata.NoDomain
	if in.Domain != 0 {
		var err error
		if d, err = site(in.Domain); err != nil {
			return CallOut{}, "", err
		}
	}
	params := productdata.RawParams{}
	if in.Params != "" {
		if err := json.Unmarshal([]byte(in.Params), &params); err != nil {
			return CallOut{}, "", errors.New("params is not a JSON object")
		}
	}
	var data json.RawMessage
	res, err := s.services.productdata.Call(ctx, productdata.Endpoint(in.Endpoint), d, params, &data)
	if err != nil {
		return CallOut{}, "", err
	}
	out := CallOut{Endpoint: in.Endpoint, Message: res.Message, Units: Units{Left: res.Units.Left, Consumed: res.Units.Consumed}}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &out.Data); err != nil {
			return CallOut{}, "", fmt.Errorf("%s: the data is not JSON", in.Endpoint)
		}
	}
	return out, fmt.Sprintf("%s answered %d bytes of data", in.Endpoint, len(data)), nil
}

// RefreshIn is the input of productdata_refresh_product.
type RefreshIn struct {
	Domain      int    `json:"domain,omitempty" bounds:"min=0,max=14" jsonschema:"the Amazon site code, 1 US by default"`
	ASIN        string `json:"asin" bounds:"min=10,max=10" pattern:"^[A-Z0-9]{10}$" jsonschema:"the product's ASIN"`
	MaxAgeHours int    `json:"max_age_hours,omitempty" bounds:"min=0,max=120" jsonschema:"fetch afresh when the data is older (1 to 120; 24 by default)"`
}

// pdRefresh refreshes a product, polling the fetch to completion.
func (s *Server) pdRefresh(ctx context.Context, _ *mcp.CallToolRequest, in RefreshIn) (ProductResult, string, error) {
	d, err := site(in.Domain)
	if err != nil {
		return ProductResult{}, "", err
	}
	p, err := s.services.productdata.RefreshProduct(ctx, d, &productdata.RefreshProductParams{ASIN: in.ASIN, Update: in.MaxAgeHours})
	if err != nil {
		return ProductResult{}, "", err
	}
	out := ProductResult{Product: productOut(p), Units: Units{Left: p.Units.Left, Consumed: p.Units.Consumed}}
	return out, fmt.Sprintf("%s refreshed: %q", p.ASIN, p.Title), nil
}

// ReviewsIn is the input of productdata_collect_reviews.
type ReviewsIn struct {
	Domain     int    `json:"domain,omitempty" bounds:"min=0,max=14" jsonschema:"the Amazon site code, 1 US by default"`
	ASIN       string `json:"asin" bounds:"min=10,max=10" pattern:"^[A-Z0-9]{10}$" jsonschema:"the product's ASIN"`
	Pages      int    `json:"pages,omitempty" bounds:"min=0,max=10" jsonschema:"pages to collect, about 10 reviews each (1 by default)"`
	MostRecent bool   `json:"most_recent,omitempty" jsonschema:"collect the most recent reviews instead of the top ones"`
	Limit      int    `json:"limit,omitempty" bounds:"min=0,max=100" jsonschema:"the most reviews to return (20 by default)"`
}

// ReviewOut is a review.
type ReviewOut struct {
	Title      string `json:"title,omitempty"`
	Content    string `json:"content,omitempty"`
	Star       *int   `json:"star,omitempty"`
	ReviewDate string `json:"date,omitempty"`
	Verified   *bool  `json:"verified,omitempty"`
}

// ReviewsOut is what productdata_collect_reviews returns.
type ReviewsOut struct {
	ASIN    string      `json:"asin"`
	TaskID  string      `json:"task_id,omitempty" jsonschema:"the collection's id; empty when reviews collected less than two hours ago were read"`
	Polls   int         `json:"polls" jsonschema:"status queries made while waiting"`
	Reviews []ReviewOut `json:"reviews"`
}

// pdCollectReviews collects reviews, polling the task to completion, then reads them.
func (s *Server) pdCollectReviews(ctx context.Context, _ *mcp.CallToolRequest, in ReviewsIn) (ReviewsOut, string, error) {
	d, err := site(in.Domain)
	if err != nil {
		return ReviewsOut{}, "", err
	}
	limit := in.Limit
	if limit == 0 {
		limit = 20
	}
	out := ReviewsOut{ASIN: in.ASIN, Reviews: []ReviewOut{}}
	task, err := s.services.productdata.CollectReviews(ctx, d, &productdata.CollectReviewsParams{ASIN: in.ASIN, Pages: in.Pages, MostRecent: in.MostRecent})
	switch {
	case errors.Is(err, productdata.ErrAlreadyExists):
		// Collected less than two hours ago: read those.
	case err != nil:
		return ReviewsOut{}, "", err
	default:
		out.TaskID, out.Polls = task.TaskID, task.Polls
	}
	for r, err := range s.services.productdata.AllReviews(ctx, d, &productdata.ReviewsParams{ASIN: in.ASIN}) {
		if err != nil {
			return ReviewsOut{}, "", err
		}
		out.Reviews = append(out.Reviews, ReviewOut{Title: r.Title, Content: r.Content, Star: r.Star, ReviewDate: r.ReviewDate, Verified: r.IsVerified})
		if len(out.Reviews) == limit {
			break
		}
	}
	return out, fmt.Sprintf("%s: %d reviews after %d status queries", in.ASIN, len(out.Reviews), out.Polls), nil
}
