package httpcore

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDrainKeepsTheConnectionReusable(t *testing.T) {
	t.Parallel()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusPaymentRequired)
		_, _ = w.Write([]byte(strings.Repeat("x", 8<<10)))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	client := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	for i := 0; i < 3; i++ {
		resp, err := client.Get(srv.URL)
		require.NoError(t, err)
		Drain(resp)
	}
	assert.Equal(t, int32(1), conns.Load(), "three requests over one connection")
	Drain(nil) // a missing response is a no-op
}
