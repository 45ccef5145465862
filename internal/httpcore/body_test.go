package httpcore

import (
	"bytes"
	"io"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBodiesOfEveryKindAreSentAndReplayed(t *testing.T) {
	t.Parallel()
	type seen struct {
		contentType string
		length      int64
		body        string
	}
	var calls atomic.Int32
	got := make(chan seen, 16)
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Header.Get("Content-Type"), r.ContentLength, string(b)}
		if calls.Add(1)%2 == 1 {
			w.WriteHeader(http.StatusServiceUnavailable) // every first attempt fails
			return
		}
		_, _ = io.WriteString(w, `{}`)
	})
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](fastRetry))
	cases := []struct {
		body Body
		want seen
	}{
		{JSON(map[string]string{"a": "<b>"}), seen{"application/json", 21, `{"a":"\u003cb\u003e"}`}},
		{Bytes([]byte(`{"n":1}`), "application/json;charset=UTF-8"), seen{"application/json;charset=UTF-8", 7, `{"n":1}`}},
		{Bytes([]byte{0, 1, 2, 0xff}, "image/png"), seen{"image/png", 4, "\x00\x01\x02\xff"}},
	}
	for _, tc := range cases {
		_, err := c.Do(t.Context(), &Request{Method: http.MethodPut, Path: "/f", Body: tc.body}, nil)
		require.NoError(t, err)
		first, second := <-got, <-got
		assert.Equal(t, tc.want, first)
		assert.Equal(t, first, second, "the retry sends the same body")
	}

	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/f"}, nil)
	require.NoError(t, err)
	assert.Equal(t, seen{"", 0, ""}, <-got, "the zero Body sends none and no content type")
	<-got
}

func TestReadBodyNoticesALongerBody(t *testing.T) {
	t.Parallel()
	b, err := readBody(bytes.NewReader([]byte("0123456789")), 4, 100)
	require.NoError(t, err)
	assert.Equal(t, "0123456789", string(b), "bytes beyond the announced length are kept, not dropped")
	b, err = readBody(bytes.NewReader([]byte("0123")), 4, 100)
	require.NoError(t, err)
	assert.Equal(t, "0123", string(b))
	_, err = readBody(bytes.NewReader([]byte("01")), 4, 100)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	b, err = readBody(bytes.NewReader(make([]byte, 50)), -1, 10)
	require.NoError(t, err)
	assert.Len(t, b, 10, "the limit caps an unannounced body")
}

func TestReadBodyOfUnannouncedLength(t *testing.T) {
	t.Parallel()
	const block = 32 << 10
	long := bytes.Repeat([]byte("0123456789abcdef"), 3*block/16+5)
	for _, tc := range []struct {
		name  string
		body  []byte
		limit int64
		want  int
	}{
		{"empty", []byte{}, 100, 0},
		{"short", []byte(`{"ok":true}`), 100, 11},
		{"32 KiB", long[:block], 1 << 20, block},
		{"longer than 32 KiB", long, 1 << 20, len(long)},
		{"capped past 32 KiB", long, block + 7, block + 7},
		{"capped inside 32 KiB", long, 7, 7},
	} {
		b, err := readBody(bytes.NewReader(tc.body), -1, tc.limit)
		require.NoError(t, err, tc.name)
		require.NotNil(t, b, tc.name)
		assert.Equal(t, tc.body[:tc.want], b, tc.name)
	}
}

// zeros reads n zero bytes.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), z.n)
	clear(p[:k])
	z.n -= k
	return int(k), nil
}

// A large body of unannounced length is read without holding it several times over: the
// allocations of the read stay near twice the body (chunks, then the joined copy).
func TestReadingALargeUnannouncedBodyAllocatesAboutTwiceIt(t *testing.T) {
	const size = 64 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b, err := readBody(&zeros{n: size}, -1, size+1)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Len(t, b, size)
	allocated := after.TotalAlloc - before.TotalAlloc
	assert.Less(t, allocated, uint64(size)*22/10, "allocated %d MiB to read %d MiB", allocated>>20, size>>20)
}
