package reportstore_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/internal/benchtest"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/reportstore"
	"github.com/agentapis/sdk/reportstore/reportstoretest"
)

// TestConcurrentCallsReuseConnections checks that goroutines sharing a client with the SDK's
// default transport keep their connections alive instead of opening new ones: net/http's
// default keeps only 2 idle connections per host.
func TestConcurrentCallsReuseConnections(t *testing.T) {
	t.Parallel()
	const goroutines, calls = 16, 20
	srv := reportstoretest.NewServer()
	t.Cleanup(srv.Close)
	hc, dialled := benchtest.CountingClient(httpcore.DefaultTransport())
	t.Cleanup(hc.CloseIdleConnections)
	c, err := reportstore.New(reportstore.WithBaseURL(srv.URL), reportstore.WithHTTPClient(hc))
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*calls)
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				_, err := c.Preview(t.Context(), "macro-gdp")
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.LessOrEqual(t, dialled(), int64(2*goroutines), "connections opened for %d calls from %d goroutines", goroutines*calls, goroutines)
}
