package productdata

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"maps"
	"strings"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/paging"
)

// RawParams are request parameters by the names the service documents, for Pages (Call
// takes them too, or any struct or map).
type RawParams map[string]any

// DefaultPageParam is the page-number parameter of most paged endpoints (KeywordQuery calls
// it PageIndex).
const DefaultPageParam = "Page"

// PagesParams are the parameters of Pages.
type PagesParams struct {
	// Body is the request's parameters by the service's names, without the page number
	// unless the first page is not 1.
	Body RawParams
	// PageParam names the page-number parameter; "" means DefaultPageParam.
	PageParam string
}

// Page is one page of a paged endpoint, as Pages yields it.
type Page struct {
	// Number is the page number sent, from 1.
	Number int
	// Data is the page's Data as sent, after any gzip and base64 were undone.
	Data json.RawMessage
	// Units are the request units the answer reported.
	Units Units
	// Response describes the answer.
	Response sdk.Response
}

// Pages iterates over the pages of a paged endpoint (such as CategoryProducts, ProductSearch,
// AsinSalesVolume, ProductReviewsQuery or KeywordQuery), sending params.Body with the page
// number in params.PageParam, from 1 or from the number params.Body already holds there. Each
// page is fetched when the loop reaches it, and each is charged: breaking out of the loop
// sends no further request.
//
//	for page, err := range client.Pages(ctx, productdata.EndpointProductSearch, productdata.AmazonUS,
//		&productdata.PagesParams{Body: productdata.RawParams{"Brand": "anker"}}) {
//		if err != nil { return err }
//		...
//	}
//
// The iteration ends cleanly at the service's "no more data" code (ErrNoMoreData) and after a
// page whose Data is null or an empty list or object. A page whose Data repeats the page
// before (a server that ignores the page number would otherwise be paid for ever) ends it
// with an *sdk.PagingError matching sdk.ErrRepeatedPage, as do more than sdk.MaxPages pages.
// Any other error is yielded once and ends it; invalid input is yielded before any request.
func (c *Client) Pages(ctx context.Context, endpoint Endpoint, domain Domain, params *PagesParams) iter.Seq2[*Page, error] {
	if params == nil {
		params = &PagesParams{}
	}
	pageParam := cmp.Or(params.PageParam, DefaultPageParam)
	first, err := firstPage(params.Body, pageParam)
	if err == nil {
		err = endpoint.check(domain)
	}
	if err != nil {
		return failing[*Page](err)
	}
	fetch := func(ctx context.Context, n int) (paging.Page[*Page], error) {
		p := RawParams{}
		maps.Copy(p, params.Body)
		p[pageParam] = n
		env := &envelope{}
		resp, err := c.call(ctx, endpoint, domain, p, env)
		if err != nil || emptyData(env.raw) {
			return paging.Page[*Page]{}, err
		}
		page := &Page{Number: n, Data: env.raw, Units: env.units, Response: resp.Meta()}
		return paging.Page[*Page]{Items: []*Page{page}, More: true, Raw: env.raw}, nil
	}
	return paging.All(ctx, serviceName, first, fetch, isNoMoreData)
}

// firstPage returns the page number params holds under pageParam (in any letter case), or 1.
func firstPage(params RawParams, pageParam string) (int, error) {
	for k, v := range params {
		if !strings.EqualFold(k, pageParam) {
			continue
		}
		if k != pageParam {
			return 0, invalid(pageParam, "is also given as "+quoteShort(k)+"; use one spelling")
		}
		n, ok := v.(int)
		if !ok || n < 1 {
			return 0, invalid(pageParam, "must be an int of 1 or more")
		}
		return n, nil
	}
	return 1, nil
}

// emptyData reports whether Data is null, [] or {}.
func emptyData(data json.RawMessage) bool {
	d := bytes.TrimSpace(data)
	switch len(d) {
	case 0:
		return true
	case 4:
		return string(d) == "null"
	}
	if len(d) < 2 || (d[0] != '[' && d[0] != '{') {
		return false
	}
	return len(bytes.TrimSpace(d[1:len(d)-1])) == 0
}

// isNoMoreData reports the end of a paged list.
func isNoMoreData(err error) bool { return errors.Is(err, ErrNoMoreData) }

// pagedItems iterates over the items of a paged endpoint whose Data is a listPage of T: body
// returns the request body of page n. It ends at ErrNoMoreData or after an empty page, and
// stops on a repeated page, like Pages.
func pagedItems[T any](c *Client, ctx context.Context, endpoint Endpoint, domain Domain,
	body func(page int) any) iter.Seq2[T, error] {
	fetch := func(ctx context.Context, n int) (paging.Page[T], error) {
		var data listPage[T]
		env := &envelope{data: &data}
		if _, err := c.call(ctx, endpoint, domain, body(n), env); err != nil {
			return paging.Page[T]{}, err
		}
		return paging.Page[T]{Items: data.items, More: len(data.items) > 0, Raw: env.raw}, nil
	}
	return paging.All(ctx, serviceName, 1, fetch, isNoMoreData)
}

// failing returns an iterator that yields err alone.
func failing[T any](err error) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		yield(zero, err)
	}
}
