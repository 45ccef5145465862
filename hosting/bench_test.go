package hosting_test

import (
	"context"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/hosting/hostingtest"
)

// dialCounter is a transport that counts the TCP connections it opens.
type dialCounter struct {
	*http.Transport
	dials atomic.Int64
}

// newDialCounter returns a transport with as many idle connections per host as the client
// may use at once.
func newDialCounter() *dialCounter {
	d := &dialCounter{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	d.MaxIdleConnsPerHost = hosting.MaxConcurrency
	dial := (&net.Dialer{Timeout: 5 * time.Second}).DialContext
	d.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		d.dials.Add(1)
		return dial(ctx, network, addr)
	}
	return d
}

// BenchmarkDeployDir publishes a site of 300 files on the fake with 20 ms of latency per
// request: DeployDir (8 uploads at a time, one commit, one deployment) beside the sequential
// floor, the same files written one by one with PutFile and then one commit and one
// deployment. Each iteration publishes to a new repository, created outside the timer, so
// that no file is skipped as unchanged. "conns" is the number of TCP connections opened per
// iteration.
//
//	go test -run='^$' -bench=DeployDir -benchtime=3x ./hosting
func BenchmarkDeployDir(b *testing.B) {
	const n = 300
	srv := hostingtest.NewServer(hostingtest.WithLatency(20 * time.Millisecond))
	b.Cleanup(srv.Close)
	files := bigSite(n, "bench")
	fsys := mapFS(files)
	paths := make([]string, 0, n)
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var repos atomic.Int64 // every run of a sub-benchmark publishes to new repositories

	run := func(b *testing.B, publish func(ctx context.Context, c *hosting.Client, repo string) error) {
		transport := newDialCounter()
		c, err := hosting.New(hosting.WithBaseURL(srv.URL), hosting.WithToken(hostingtest.DefaultToken),
			hosting.WithHTTPClient(&http.Client{Transport: transport}))
		if err != nil {
			b.Fatal(err)
		}
		ctx := b.Context()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			b.StopTimer()
			repo := "bench-" + strconv.FormatInt(repos.Add(1), 10)
			if _, err := c.CreateRepo(ctx, &hosting.CreateRepoParams{Name: repo}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if err := publish(ctx, c, repo); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "files/s")
		b.ReportMetric(float64(transport.dials.Load())/float64(b.N), "conns")
	}
	b.Run("deploydir", func(b *testing.B) {
		run(b, func(ctx context.Context, c *hosting.Client, repo string) error {
			_, err := c.DeployDir(ctx, repo, fsys, nil)
			return err
		})
	})
	b.Run("one-by-one", func(b *testing.B) {
		run(b, func(ctx context.Context, c *hosting.Client, repo string) error {
			for _, p := range paths {
				if _, err := c.PutFile(ctx, repo, p, files[p]); err != nil {
					return err
				}
			}
			cm, err := c.Commit(ctx, repo, &hosting.CommitParams{Message: "one by one"})
			if err != nil {
				return err
			}
			_, err = c.Deploy(ctx, repo, &hosting.DeployParams{Commit: cm.ID, Message: "one by one"})
			return err
		})
	})
}
