// Package paging turns a service's "fetch page n" call into a lazy Go iterator, the one way
// every paged endpoint of the SDK is walked.
package paging

import (
	"context"
	"iter"
)

// Page is one page of a paged endpoint.
type Page[T any] struct {
	// Items are the page's items, in order.
	Items []T
	// More reports that another page may follow.
	More bool
}

// Fetch returns page number n.
type Fetch[T any] func(ctx context.Context, n int) (Page[T], error)

// All returns an iterator over the items of pages first, first+1, ... It fetches a page only
// when the loop reaches it, so breaking out of the loop sends no further request. It stops
// after a page that reports no More, and after an empty page (a server that keeps saying
// "more" while sending nothing cannot make it loop forever). An error is yielded once, with
// the zero T, and ends the iteration, except an error for which isEnd (when not nil) reports
// true: that one ends the iteration cleanly, as a service's "no more data" answer does.
func All[T any](ctx context.Context, first int, fetch Fetch[T], isEnd func(error) bool) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for n := first; ; n++ {
			page, err := fetch(ctx, n)
			if err != nil {
				if isEnd == nil || !isEnd(err) {
					var zero T
					yield(zero, err)
				}
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
		}
	}
}
