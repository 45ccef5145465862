package productdata

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/jsonmember"
)

// CategoryParams are the parameters of CategoryRequest.
type CategoryParams struct {
	// NodeId is the category's node id, from CategoryTree or a product's BsrCategory.
	NodeId string
	// QueryStart and QueryDate ask for the combined top 100 of a past period (3 to 40 days,
	// within two years) instead of today's (five units for every three days); QueryDate is the
	// period's last day and QueryStart needs it.
	QueryStart, QueryDate time.Time
	// QueryDays is the older form of a past period: the QueryDays days up to QueryDate.
	QueryDays int
}

// categoryBody is CategoryRequest's body.
type categoryBody struct {
	NodeID     string `json:"NodeId"`
	QueryStart string `json:"QueryStart,omitempty"`
	QueryDate  string `json:"QueryDate,omitempty"`
	QueryDays  int    `json:"QueryDays,omitempty"`
}

// body validates p and returns CategoryRequest's body.
func (p *CategoryParams) body() (*categoryBody, error) {
	if p == nil {
		return nil, checkNodeID("")
	}
	if err := checkNodeID(p.NodeId); err != nil {
		return nil, err
	}
	switch {
	case p.QueryDays < 0:
		return nil, invalid("QueryDays", "must not be negative")
	case !p.QueryStart.IsZero() && p.QueryDate.IsZero():
		return nil, invalid("QueryStart", "needs QueryDate, the period's last day")
	case p.QueryDate.Before(p.QueryStart):
		return nil, invalid("QueryDate", "is before QueryStart")
	}
	return &categoryBody{NodeID: p.NodeId, QueryStart: formatDate(p.QueryStart),
		QueryDate: formatDate(p.QueryDate), QueryDays: p.QueryDays}, nil
}

// checkNodeID refuses an empty node id and one with spaces or control characters.
func checkNodeID(id string) error {
	if id == "" || strings.ContainsFunc(id, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return invalid("NodeId", "must be a category node id such as 3743561")
	}
	return nil
}

// Category is the answer of CategoryRequest: the category's best sellers.
type Category struct {
	// Products are the top 100 (for a past period, the period's daily top 100 combined by
	// parent ASIN).
	Products []Product
	// Raw is Data as sent.
	Raw json.RawMessage
	// Units are the request units the answer reported.
	Units Units
	// Response describes the answer.
	Response sdk.Response
}

// Category returns the best sellers of an Amazon category with CategoryRequest (five units for
// today's list). params is validated before any request.
func (c *Client) Category(ctx context.Context, domain Domain, params *CategoryParams) (*Category, error) {
	if err := checkAmazon(domain, "Category"); err != nil {
		return nil, err
	}
	body, err := params.body()
	if err != nil {
		return nil, err
	}
	var data listPage[Product]
	env := &envelope{data: &data}
	resp, err := c.call(ctx, EndpointCategoryRequest, domain, body, env)
	if err != nil {
		return nil, err
	}
	return &Category{Products: data.items, Raw: env.raw, Units: env.units, Response: resp.Meta()}, nil
}

// CategoryProductsParams are the parameters of AllCategoryProducts.
type CategoryProductsParams struct {
	// NodeId is the category's node id.
	NodeId string
	// Range is how many products, by monthly sales, the listing covers (beyond the top 100); 0
	// leaves it to the service.
	Range int
}

// categoryProductsBody is one page's body of CategoryProducts.
type categoryProductsBody struct {
	NodeID string `json:"NodeId"`
	Page   int    `json:"Page"`
	Range  int    `json:"Range,omitempty"`
}

// AllCategoryProducts iterates over the products of an Amazon category (CategoryProducts), by
// monthly sales, page by page (up to 100 products a page, five units a page), fetching each
// page when the loop reaches it; breaking out of the loop sends no further request. It ends
// cleanly at the service's "no more data" code or after an empty page; any other error is
// yielded once.
func (c *Client) AllCategoryProducts(ctx context.Context, domain Domain, params *CategoryProductsParams) iter.Seq2[Product, error] {
	if params == nil {
		params = &CategoryProductsParams{}
	}
	err := checkAmazon(domain, "AllCategoryProducts")
	if err == nil {
		err = checkNodeID(params.NodeId)
	}
	if err == nil && params.Range < 0 {
		err = invalid("Range", "must not be negative")
	}
	if err != nil {
		return failing[Product](err)
	}
	body := func(page int) any {
		return &categoryProductsBody{NodeID: params.NodeId, Page: page, Range: params.Range}
	}
	return pagedItems[Product](c, ctx, EndpointCategoryProducts, domain, body)
}

// listPage is Data holding a list of T: the list itself, null (an empty list), or an object
// holding the list under Products, Reviews or Items (in any letter case). A total beside the
// list (Total, TotalCount or Count) is checked against it: a list that is null or absent while
// the total says 0 is empty, and one that is null or absent while the total says more is
// refused, as is an object with no list and no total, so that a renamed list never reads as
// an empty one.
type listPage[T any] struct{ items []T }

// UnmarshalJSON reads the list; its errors name it after T, such as "product list".
func (p *listPage[T]) UnmarshalJSON(b []byte) error {
	what := strings.ToLower(reflect.TypeFor[T]().Name()) + " list"
	trimmed := strings.TrimSpace(string(b))
	switch {
	case trimmed == "null":
	case strings.HasPrefix(trimmed, "["):
		if err := json.Unmarshal(b, &p.items); err != nil {
			return err
		}
	default:
		var w struct {
			Products   jsonmember.Tracked[[]T]  `json:"Products"`
			Reviews    jsonmember.Tracked[[]T]  `json:"Reviews"`
			Items      jsonmember.Tracked[[]T]  `json:"Items"`
			Total      jsonmember.Optional[int] `json:"Total"`
			TotalCount jsonmember.Optional[int] `json:"TotalCount"`
			Count      jsonmember.Optional[int] `json:"Count"`
		}
		if err := json.Unmarshal(b, &w); err != nil {
			return err
		}
		total := jsonmember.FirstPtr(w.Total, w.TotalCount, w.Count)
		list, set := jsonmember.FirstTracked(w.Products, w.Reviews, w.Items)
		switch {
		case list == nil && total != nil && *total > 0:
			return fmt.Errorf("%s: Data says %d in total but holds no list (Products, Reviews or Items)", what, *total)
		case !set && total == nil:
			return errors.New(what + ": Data holds no list (Products, Reviews or Items)")
		}
		p.items = list
	}
	if p.items == nil {
		p.items = []T{}
	}
	return nil
}

// Keyword is the answer of KeywordRequest: a search term's volume, cost per click and history.
// The API description does not show these fields; each is nil or "" when the answer did not
// carry it, and Raw holds Data as sent.
type Keyword struct {
	// Keyword is the search term.
	Keyword string `json:"Keyword"`
	// SearchVolume is the average monthly search volume.
	SearchVolume *int `json:"SearchVolume,omitempty"`
	// CPC is the cost per click, in the site's smallest money unit.
	CPC *int `json:"CPC,omitempty"`
	// ProductCount is the number of products in the search results.
	ProductCount *int `json:"ProductCount,omitempty"`
	// SearchVolumeTrend and CPCTrend are monthly histories ([202010, value, ...]).
	SearchVolumeTrend Series `json:"SearchVolumeTrend,omitempty"`
	CPCTrend          Series `json:"CPCTrend,omitempty"`
	// Raw is Data as sent.
	Raw json.RawMessage `json:"-"`
	// Units are the request units the answer reported.
	Units Units `json:"-"`
	// Response describes the answer.
	Response sdk.Response `json:"-"`
}

// plainKeyword is Keyword without its UnmarshalJSON method.
type plainKeyword Keyword

// UnmarshalJSON decodes a keyword leniently and keeps a copy of its object as Raw.
func (k *Keyword) UnmarshalJSON(b []byte) error {
	var w struct {
		plainKeyword
		SearchVolume jsonmember.Optional[int] `json:"SearchVolume"`
		CPC          jsonmember.Optional[int] `json:"CPC"`
		ProductCount jsonmember.Optional[int] `json:"ProductCount"`
	}
	if err := lenientUnmarshal(b, &w); err != nil {
		return err
	}
	*k = Keyword(w.plainKeyword)
	k.SearchVolume, k.CPC, k.ProductCount = w.SearchVolume.Ptr(), w.CPC.Ptr(), w.ProductCount.Ptr()
	k.Raw = bytes.Clone(b)
	return nil
}

// maxKeywordLen bounds a keyword, in characters.
const maxKeywordLen = 200

// Keyword returns a search term's data on an Amazon site with KeywordRequest (one unit). A
// term the service answers with no data (Code 0 and null Data) is a *NotFoundError; code 11 an
// *sdk.APIError matching ErrNoMoreData.
func (c *Client) Keyword(ctx context.Context, domain Domain, keyword string) (*Keyword, error) {
	if err := checkAmazon(domain, "Keyword"); err != nil {
		return nil, err
	}
	if strings.TrimSpace(keyword) == "" || !utf8.ValidString(keyword) || utf8.RuneCountInString(keyword) > maxKeywordLen {
		return nil, invalid("Keyword", "must be valid UTF-8 text of 1 to 200 characters")
	}
	var out *Keyword
	env := &envelope{data: &out}
	resp, err := c.call(ctx, EndpointKeywordRequest, domain, map[string]string{"Keyword": keyword}, env)
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, c.notFound(EndpointKeywordRequest, domain, []string{keyword}, env.units, resp.Meta())
	}
	out.Units, out.Response = env.units, resp.Meta()
	return out, nil
}
