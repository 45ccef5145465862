package hosting_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/hosting/hostingtest"
	"github.com/agentapis/sdk/internal/benchtest"
)

// floorFile is what a hand-written client would decode from GET
// /api/v1/repos/<name>/files/<path>: the envelope and the members Client.File reads.
type floorFile struct {
	OK            bool    `json:"ok"`
	Error         string  `json:"error"`
	Path          string  `json:"path"`
	Size          *int64  `json:"size"`
	SHA           string  `json:"sha"`
	Content       *string `json:"content"`
	ContentBase64 *string `json:"content_base64"`
}

// floorRead is the hand-written Client.File: the same endpoint and headers, net/http and
// encoding/json, nothing else. It returns the file's bytes as File does.
func floorRead(hc *http.Client, base, token, repo, path string) ([]byte, error) {
	req, err := http.NewRequest(http.MethodGet, base+"/api/v1/repos/"+repo+"/files/"+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "floor/1.0")
	var f floorFile
	if err := benchtest.Floor(hc, req, &f); err != nil {
		return nil, err
	}
	if !f.OK {
		return nil, fmt.Errorf("ok false: %s", f.Error)
	}
	switch {
	case f.ContentBase64 != nil:
		return base64.StdEncoding.DecodeString(*f.ContentBase64)
	case f.Content != nil:
		return []byte(*f.Content), nil
	}
	return nil, fmt.Errorf("no content")
}

// BenchmarkFile compares Client.File with the hand-written floor on the same fake: one
// goroutine, then 64 sharing one client. File is the typical read of this API (a publisher
// reads back what it wrote; its answer has the envelope, the entry and the content, where
// Repo's is a listing). The file is a 4 KiB HTML page, which the fake answers as text.
// "conns" is the number of TCP connections each side's client dialled during the run.
//
//	go test -run='^$' -bench=File -benchmem -count=10 ./hosting
func BenchmarkFile(b *testing.B) {
	const repo, path = "bench-read", "docs/index.html"
	srv := hostingtest.NewServer()
	b.Cleanup(srv.Close)
	page := []byte("<!doctype html><title>bench</title>" + strings.Repeat("<p>a paragraph of the page.</p>\n", 128))[:4096]
	newSDK := func(b *testing.B, opts ...hosting.Option) *hosting.Client {
		c, err := hosting.New(append([]hosting.Option{hosting.WithBaseURL(srv.URL), hosting.WithToken(hostingtest.DefaultToken)}, opts...)...)
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	setup := newSDK(b)
	if _, err := setup.CreateRepo(b.Context(), &hosting.CreateRepoParams{Name: repo}); err != nil {
		b.Fatal(err)
	}
	if _, err := setup.PutFile(b.Context(), repo, path, page); err != nil {
		b.Fatal(err)
	}
	benchtest.Run(b, benchtest.Calls{
		SDK: func(b *testing.B, hc *http.Client) func() error {
			c := newSDK(b, hosting.WithHTTPClient(hc))
			return func() error {
				f, err := c.File(b.Context(), repo, path)
				if err == nil && len(f.Content) != len(page) {
					err = fmt.Errorf("read %d bytes, want %d", len(f.Content), len(page))
				}
				return err
			}
		},
		Floor: func(_ *testing.B, hc *http.Client) func() error {
			return func() error {
				data, err := floorRead(hc, srv.URL, hostingtest.DefaultToken, repo, path)
				if err == nil && len(data) != len(page) {
					err = fmt.Errorf("read %d bytes, want %d", len(data), len(page))
				}
				return err
			}
		},
	})
}
