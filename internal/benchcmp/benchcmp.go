// Package benchcmp runs a client call beside its hand-written floor in one benchmark: the
// SDK's call and a plain net/http + encoding/json request doing the same, first from one
// goroutine, then from 64 goroutines sharing one client, each reporting the TCP connections
// the server accepted during the run as the "conns" metric.
package benchcmp

import (
	"net/http"
	"runtime"
	"testing"

	"github.com/agentapis/sdk/internal/conncount"
)

// Goroutines is the number of goroutines sharing one client in the concurrent
// sub-benchmarks.
const Goroutines = 64

// Calls are the two sides of a comparison. Each function returns a call bound to a client
// of its own, built for one sub-benchmark (outside the timer).
type Calls struct {
	// SDK builds an SDK client and returns its call.
	SDK func(b *testing.B) func() error
	// Floor builds a hand-written client (usually on FloorClient) and returns its call.
	Floor func(b *testing.B) func() error
}

// Run runs four sub-benchmarks: "sdk" and "floor" from one goroutine, then "sdk-64" and
// "floor-64" with Goroutines goroutines sharing one client. conns returns the number of TCP
// connections the server has accepted so far; each sub-benchmark reports how many it
// accepted during the run as "conns".
func Run(b *testing.B, conns func() int64, calls Calls) {
	b.Run("sdk", func(b *testing.B) { measure(b, conns, false, calls.SDK(b)) })
	b.Run("floor", func(b *testing.B) { measure(b, conns, false, calls.Floor(b)) })
	b.Run("sdk-64", func(b *testing.B) { measure(b, conns, true, calls.SDK(b)) })
	b.Run("floor-64", func(b *testing.B) { measure(b, conns, true, calls.Floor(b)) })
}

// measure runs call b.N times, from one goroutine or from Goroutines, and reports the
// connections accepted meanwhile.
func measure(b *testing.B, conns func() int64, parallel bool, call func() error) {
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

// FloorClient returns the hand-written client's *http.Client: net/http's default transport
// with as many idle connections per host as goroutines in the concurrent sub-benchmarks
// (the default keeps 2).
func FloorClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = Goroutines
	return &http.Client{Transport: t}
}

// NewServer starts a server of h that counts its connections; it is closed when b ends.
func NewServer(b testing.TB, h http.Handler) *conncount.Server {
	s := conncount.Start(h)
	b.Cleanup(s.Close)
	return s
}
