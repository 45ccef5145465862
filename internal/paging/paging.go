// Package paging turns a service's "fetch page n" call into a lazy Go iterator, the one way
// every paged endpoint of the SDK is walked, with the one rule that keeps a hostile or broken
// server from making it read for ever.
package paging

import (
	"bytes"
	"context"
	"iter"
	"reflect"

	"github.com/agentapis/sdk"
)

// Page is one page of a paged endpoint.
type Page[T any] struct {
	// Items are the page's items, in order.
	Items []T
	// More reports that another page may follow.
	More bool
	// Raw is the page's body as received; a page whose Raw equals the previous page's (or,
	// without Raw, whose items equal them) is not read twice.
	Raw []byte
}

// Fetch returns page number n.
type Fetch[T any] func(ctx context.Context, n int) (Page[T], error)

// All returns an iterator over the items of pages first, first+1, ... It fetches a page only
// when the loop reaches it, so breaking out of the loop sends no further request. It stops
// after a page that reports no More, and after an empty page. It stops with an
// *sdk.PagingError when a page repeats the previous one (a server that ignores the page
// number would otherwise be read for ever) or when sdk.MaxPages pages were read. An error is
// yielded once, with the zero T, and ends the iteration, except an error for which isEnd
// (when not nil) reports true: that one ends the iteration cleanly, as a service's "no more
// data" answer does.
func All[T any](ctx context.Context, service string, first int, fetch Fetch[T], isEnd func(error) bool) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		var prev *Page[T]
		for n := first; ; n++ {
			if n-first >= sdk.MaxPages {
				yield(zero, &sdk.PagingError{Service: service, Page: n, Err: sdk.ErrTooManyPages})
				return
			}
			page, err := fetch(ctx, n)
			if err != nil {
				if isEnd == nil || !isEnd(err) {
					yield(zero, err)
				}
				return
			}
			if prev != nil && repeats(prev, &page) {
				yield(zero, &sdk.PagingError{Service: service, Page: n, Err: sdk.ErrRepeatedPage})
				return
			}
			for _, item := range page.Items {
				if !yield(item, nil) {
					return
				}
			}
			if !page.More || len(page.Items) == 0 {
				return
			}
			prev = &page
		}
	}
}

// repeats reports whether page has the same content as prev: the same body, or, for pages
// without one, the same items.
func repeats[T any](prev, page *Page[T]) bool {
	if len(prev.Raw) > 0 || len(page.Raw) > 0 {
		return bytes.Equal(prev.Raw, page.Raw)
	}
	return reflect.DeepEqual(prev.Items, page.Items)
}
