package hostingtest_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentapis/sdk/hosting/hostingtest"
	"github.com/agentapis/sdk/internal/testkit"
)

// BenchmarkUploadsWithLatency writes 300 small files to a fake with 20 ms of latency per
// request, one at a time and eight at a time: the fake must not serialize waiting requests.
func BenchmarkUploadsWithLatency(b *testing.B) {
	const files = 300
	for _, workers := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("concurrency=%d", workers), func(b *testing.B) {
			srv := testkit.Start(b, hostingtest.NewServer(hostingtest.WithLatency(20*time.Millisecond)))
			createRepo(b, srv, "r")
			client := srv.Client()
			client.Transport.(*http.Transport).MaxIdleConnsPerHost = workers
			put := func(i int) {
				req, err := http.NewRequest("PUT", fmt.Sprintf("%s/api/v1/repos/r/files/f%d.txt", srv.URL, i), strings.NewReader(`{"content":"x"}`))
				if err != nil {
					b.Error(err)
					return
				}
				req.Header.Set("Authorization", "Bearer "+hostingtest.DefaultToken)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Errorf("status %d", resp.StatusCode)
				}
			}
			for b.Loop() {
				next := make(chan int)
				var wg sync.WaitGroup
				for range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := range next {
							put(i)
						}
					}()
				}
				for i := range files {
					next <- i
				}
				close(next)
				wg.Wait()
			}
		})
	}
}
