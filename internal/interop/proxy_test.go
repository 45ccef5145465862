package interop_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/agentapis/sdk/x402/wire"
)

// settleDroppingProxy is an HTTP proxy in front of a paywalled server that loses
// the answers to paid requests: it forwards every request, and for one carrying
// a payment (PAYMENT-SIGNATURE) it waits for the server's response headers,
// which a server that settles before answering sends only once the payment
// settled, then closes the client's connection without forwarding anything.
// The client is left with a payment that settled and no word of it, the case a
// payer must count as in doubt. Unpaid requests (and so the 402 challenges) go
// through untouched.
type settleDroppingProxy struct {
	// URL is the proxy's base URL; paths are forwarded to the upstream server.
	URL string

	upstream  string
	transport *http.Transport
	dropped   atomic.Int64
}

// startSettleDroppingProxy starts a proxy in front of upstream (a base URL); it
// is closed when the test ends.
func startSettleDroppingProxy(t testing.TB, upstream string) *settleDroppingProxy {
	t.Helper()
	p := &settleDroppingProxy{
		upstream:  upstream,
		transport: http.DefaultTransport.(*http.Transport).Clone(),
	}
	srv := httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(func() {
		srv.Close()
		p.transport.CloseIdleConnections()
	})
	p.URL = srv.URL
	return p
}

// Dropped returns how many paid requests reached the server and had their
// answer dropped (a payer re-sending a payment counts each time).
func (p *settleDroppingProxy) Dropped() int { return int(p.dropped.Load()) }

func (p *settleDroppingProxy) serve(w http.ResponseWriter, r *http.Request) {
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.upstream+r.URL.RequestURI(), r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()

	if r.Header.Get(wire.HeaderPaymentSignature) != "" {
		p.dropped.Add(1)
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			// Aborting the handler closes the connection without an answer too.
			panic(http.ErrAbortHandler)
		}
		_ = conn.Close()
		return
	}

	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}
