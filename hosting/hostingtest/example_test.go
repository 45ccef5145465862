package hostingtest_test

import (
	"context"
	"fmt"
	"log"
	"strings"
	"testing/fstest"

	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/hosting/hostingtest"
)

// A test publishes a site through the hosting client, then reads back from the fake what was
// deployed and what the service did.
func ExampleNewServer() {
	srv := hostingtest.NewServer()
	defer srv.Close()
	ctx := context.Background()

	client, err := hosting.New(hosting.WithBaseURL(srv.URL), hosting.WithToken(hostingtest.DefaultToken))
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "hello", Description: "a first site"}); err != nil {
		log.Fatal(err)
	}
	site := fstest.MapFS{"index.html": {Data: []byte("<!DOCTYPE html><title>Hello</title><h1>Hello, world</h1>")}}
	res, err := client.DeployDir(ctx, "hello", site, &hosting.DeployDirParams{Message: "go live"})
	if err != nil {
		log.Fatal(err)
	}

	fmt.Println("published at", strings.TrimPrefix(res.SiteURL, srv.URL), "uploaded", res.Uploaded)
	served, _ := srv.DeployedFile("hello", "index.html")
	fmt.Println(string(served))
	stats := srv.Stats()
	fmt.Println("requests:", len(srv.Requests()), "commits:", stats.Commits, "deployments:", stats.Deploys)
	// Output:
	// published at /site/hello/ uploaded [index.html]
	// <!DOCTYPE html><title>Hello</title><h1>Hello, world</h1>
	// requests: 5 commits: 1 deployments: 1
}
