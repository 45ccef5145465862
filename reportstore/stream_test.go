package reportstore_test

import (
	"context"
	"io"
	"math/big"
	"net/http"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/usdc"
)

// largeSize is the size of the streamed report of the memory test and the benchmark.
const largeSize = 200 << 20

// heapGrowthLimit is how much more heap the streaming may hold than before it began.
const heapGrowthLimit = 16 << 20

// heapSampler is an io.Writer that discards what it gets and samples HeapInuse every
// sampleEvery bytes.
type heapSampler struct {
	n, next int64
	peak    uint64
}

const sampleEvery = 8 << 20

func (h *heapSampler) Write(p []byte) (int, error) {
	h.n += int64(len(p))
	if h.n >= h.next {
		h.next += sampleEvery
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.peak = max(h.peak, ms.HeapInuse)
	}
	return len(p), nil
}

func TestOpenReportStreamsInConstantMemory(t *testing.T) {
	// Not parallel: the heap is measured for the whole process.
	srv := testkit.Start(t, reportstoretest.NewServer(reportstoretest.WithLargeReport("macro-stream", largeSize, usdc.Cents(13))))
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	c := newClient(t, srv, payer)

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	s, err := c.OpenReport(context.Background(), "macro-stream", reportstore.FormatCSV)
	require.NoError(t, err)
	require.NotNil(t, s.Receipt, "the receipt comes before the body")
	sink := &heapSampler{}
	n, err := io.CopyBuffer(sink, s, make([]byte, 32<<10))
	require.NoError(t, err)
	require.NoError(t, s.Close())

	assert.Equal(t, s.ContentLength, n)
	assert.Greater(t, n, int64(largeSize-100))
	growth := int64(sink.peak) - int64(before.HeapInuse)
	t.Logf("streamed %d bytes; HeapInuse before %d, peak %d, growth %d", n, before.HeapInuse, sink.peak, growth)
	assert.Less(t, growth, int64(heapGrowthLimit))
	assert.Equal(t, []int64{130000}, settledValues(srv))
}

func BenchmarkOpenReport200MB(b *testing.B) {
	srv := testkit.Start(b, reportstoretest.NewServer(reportstoretest.WithLargeReport("macro-stream", largeSize, usdc.Cents(1))))
	payer := newPayer(b, srv, x402.Policy{MaxTotal: budget.Unlimited})
	srv.Facilitator().Fund(testAddress(b), big.NewInt(1_000_000_000))
	c := newClient(b, srv, payer)
	ctx := context.Background()
	buf := make([]byte, 32<<10)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := c.OpenReport(ctx, "macro-stream", reportstore.FormatCSV)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.CopyBuffer(io.Discard, s, buf)
		if err != nil {
			b.Fatal(err)
		}
		_ = s.Close()
		b.SetBytes(n)
	}
}

// breakingTransport cuts every 200 body it carries after its first cut bytes, as a dropped
// connection would.
type breakingTransport struct {
	next http.RoundTripper
	cut  int64
}

func (b breakingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusOK {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(io.LimitReader(resp.Body, b.cut), errReader{io.ErrUnexpectedEOF}), resp.Body}
	}
	return resp, err
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func TestBrokenDeliveryIsADeliveryErrorWithTheReceipt(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, reportstoretest.NewServer())
	payer := newPayer(t, srv, x402.Policy{MaxTotal: budget.Unlimited})
	httpClient := &http.Client{Transport: breakingTransport{next: http.DefaultTransport, cut: 10}}
	c := newClient(t, srv, payer, reportstore.WithHTTPClient(httpClient))
	ctx := context.Background()

	s, err := c.OpenReport(ctx, "macro-gdp", reportstore.FormatCSV)
	require.NoError(t, err)
	defer s.Close()
	got, err := io.ReadAll(s)
	assert.Len(t, got, 10, "the bytes before the cut are delivered")
	var de *reportstore.DeliveryError
	require.ErrorAs(t, err, &de)
	require.NotNil(t, de.Receipt, "the payment went through")
	assert.Equal(t, srv.Facilitator().Settlements()[0].TxHash, de.Receipt.Transaction)
	assert.Equal(t, "/report/macro-gdp", de.Path)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)

	_, err = c.Report(ctx, "macro-gdp", reportstore.FormatCSV)
	require.ErrorAs(t, err, &de)
	assert.ErrorIs(t, de.Err, io.ErrUnexpectedEOF, "wrapped once, not twice")
	assert.Equal(t, srv.Facilitator().Settlements()[1].TxHash, de.Receipt.Transaction)
}
