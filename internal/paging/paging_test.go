package paging

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
)

// pages serves items 1..total in pages of size, counting fetches.
func pages(total, size int, fetched *[]int) Fetch[int] {
	return func(_ context.Context, n int) (Page[int], error) {
		*fetched = append(*fetched, n)
		var p Page[int]
		for i := (n-1)*size + 1; i <= min(n*size, total); i++ {
			p.Items = append(p.Items, i)
		}
		p.More = n*size < total
		return p, nil
	}
}

func TestAllWalksEveryPageLazily(t *testing.T) {
	t.Parallel()
	var fetched []int
	var got []int
	for v, err := range All(t.Context(), "svc", 1, pages(10, 4, &fetched), nil) {
		require.NoError(t, err)
		got = append(got, v)
	}
	assert.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, got)
	assert.Equal(t, []int{1, 2, 3}, fetched)

	fetched = nil
	for v := range All(t.Context(), "svc", 1, pages(10, 4, &fetched), nil) {
		if v == 5 {
			break
		}
	}
	assert.Equal(t, []int{1, 2}, fetched, "breaking out fetches no further page")

	fetched = nil
	for range All(t.Context(), "svc", 3, pages(10, 4, &fetched), nil) {
	}
	assert.Equal(t, []int{3}, fetched, "iteration starts at the given page")
}

func TestAllYieldsAnErrorOnceOrEndsOnTheEndSignal(t *testing.T) {
	t.Parallel()
	errNoMore := errors.New("no more data")
	boom := errors.New("boom")
	calls := 0
	fetch := func(_ context.Context, n int) (Page[string], error) {
		calls++
		if n == 2 {
			return Page[string]{}, boom
		}
		if n == 3 {
			return Page[string]{}, errNoMore
		}
		return Page[string]{Items: []string{"a"}, More: true}, nil
	}
	var errs []error
	var items []string
	for v, err := range All(t.Context(), "svc", 1, fetch, func(err error) bool { return errors.Is(err, errNoMore) }) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		items = append(items, v)
	}
	assert.Equal(t, []string{"a"}, items)
	assert.Equal(t, []error{boom}, errs, "the error comes once and ends the iteration")

	items = nil
	for v, err := range All(t.Context(), "svc", 3, fetch, func(err error) bool { return errors.Is(err, errNoMore) }) {
		require.NoError(t, err, "the end signal is not an error")
		items = append(items, v)
	}
	assert.Empty(t, items)
}

func TestAllStopsOnAnEmptyPageThatClaimsMore(t *testing.T) {
	t.Parallel()
	calls := 0
	fetch := func(context.Context, int) (Page[int], error) { calls++; return Page[int]{More: true}, nil }
	for range All(t.Context(), "svc", 1, fetch, nil) {
	}
	assert.Equal(t, 1, calls)
}

func TestAllStopsWithAPagingErrorOnARepeatedPage(t *testing.T) {
	t.Parallel()
	calls := 0
	sameBody := func(context.Context, int) (Page[int], error) {
		calls++
		return Page[int]{Items: []int{1, 2}, More: true, Raw: []byte(`{"items":[1,2]}`)}, nil
	}
	var items []int
	var errs []error
	for v, err := range All(t.Context(), "svc", 1, sameBody, nil) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		items = append(items, v)
	}
	assert.Equal(t, 2, calls, "the repeat is noticed on the second page")
	assert.Equal(t, []int{1, 2}, items, "the first page's items were real")
	require.Len(t, errs, 1)
	var pe *sdk.PagingError
	require.ErrorAs(t, errs[0], &pe)
	assert.ErrorIs(t, errs[0], sdk.ErrRepeatedPage)
	assert.Equal(t, "svc", pe.Service)
	assert.Equal(t, 2, pe.Page)

	sameItems := func(_ context.Context, n int) (Page[string], error) {
		return Page[string]{Items: []string{"x"}, More: true}, nil
	}
	for _, err := range All(t.Context(), "svc", 5, sameItems, nil) {
		if err != nil {
			assert.ErrorIs(t, err, sdk.ErrRepeatedPage, "without Raw the items are compared")
		}
	}
	different := func(_ context.Context, n int) (Page[int], error) {
		return Page[int]{Items: []int{n}, More: n < 3, Raw: []byte{byte(n)}}, nil
	}
	var got []int
	for v, err := range All(t.Context(), "svc", 1, different, nil) {
		require.NoError(t, err)
		got = append(got, v)
	}
	assert.Equal(t, []int{1, 2, 3}, got)
}

func TestAllStopsAfterMaxPages(t *testing.T) {
	t.Parallel()
	calls := 0
	endless := func(_ context.Context, n int) (Page[int], error) {
		calls++
		return Page[int]{Items: []int{n}, More: true}, nil
	}
	var last error
	count := 0
	for _, err := range All(t.Context(), "svc", 1, endless, nil) {
		if err != nil {
			last = err
			continue
		}
		count++
	}
	assert.Equal(t, sdk.MaxPages, calls)
	assert.Equal(t, sdk.MaxPages, count)
	assert.ErrorIs(t, last, sdk.ErrTooManyPages)
}
