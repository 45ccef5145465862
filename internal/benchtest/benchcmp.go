// Package benchtest runs a client call beside its hand-written floor in one benchmark: the
// SDK's call and a plain net/http + encoding/json request doing the same, first from one
// goroutine, then from 64 goroutines sharing one client, each reporting the TCP connections
// its client dialled during the run as the "conns" metric.
package benchtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/agentapis/sdk/internal/httpcore"
)

// Goroutines is the number of goroutines sharing one client in the concurrent
// sub-benchmarks.
const Goroutines = 64

// Calls are the two sides of a comparison. Each function returns a call bound to a client
// of its own, built for one sub-benchmark (outside the timer) on the *http.Client it is
// given, whose dials are counted.
type Calls struct {
	// SDK builds an SDK client on hc (give it to the client's WithHTTPClient) and returns its
	// call. hc's transport is the SDK's default transport.
	SDK func(b *testing.B, hc *http.Client) func() error
	// Floor builds a hand-written client on hc and returns its call. hc's transport is
	// net/http's default transport with Goroutines idle connections per host (the default
	// keeps 2).
	Floor func(b *testing.B, hc *http.Client) func() error
}

// Run runs four sub-benchmarks: "sdk" and "floor" from one goroutine, then "sdk-64" and
// "floor-64" with Goroutines goroutines sharing one client; each reports the connections its
// client dialled during the run as "conns".
func Run(b *testing.B, calls Calls) {
	b.Run("sdk", func(b *testing.B) { measure(b, false, calls.SDK, httpcore.DefaultTransport()) })
	b.Run("floor", func(b *testing.B) { measure(b, false, calls.Floor, floorTransport()) })
	b.Run("sdk-64", func(b *testing.B) { measure(b, true, calls.SDK, httpcore.DefaultTransport()) })
	b.Run("floor-64", func(b *testing.B) { measure(b, true, calls.Floor, floorTransport()) })
}

// measure builds the call on a client of t whose dials are counted, runs it b.N times, from
// one goroutine or from Goroutines, and reports the connections dialled meanwhile.
func measure(b *testing.B, parallel bool, build func(*testing.B, *http.Client) func() error, t *http.Transport) {
	hc, conns := CountingClient(t)
	b.Cleanup(hc.CloseIdleConnections)
	call := build(b, hc)
	before := conns()
	b.ReportAllocs()
	b.ResetTimer()
	if !parallel {
		for range b.N {
			if err := call(); err != nil {
				b.Fatal(err)
			}
		}
	} else {
		procs := runtime.GOMAXPROCS(0)
		b.SetParallelism((Goroutines + procs - 1) / procs)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := call(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.StopTimer()
	b.ReportMetric(float64(conns()-before), "conns")
}

// floorTransport is net/http's default transport with Goroutines idle connections per host.
func floorTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = Goroutines
	return t
}

// Floor is the body of a hand-written floor call: it sends req with hc, requires a 200 and
// decodes the JSON body into out, with net/http and encoding/json and nothing else.
func Floor(hc *http.Client, req *http.Request, out any) error {
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// CountingClient returns a client on t whose dials are counted, and the function that reads
// the count.
func CountingClient(t *http.Transport) (*http.Client, func() int64) {
	var n atomic.Int64
	dial := t.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		n.Add(1)
		return dial(ctx, network, addr)
	}
	return &http.Client{Transport: t}, n.Load
}
