package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"testing/fstest"

	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/hosting/hostingtest"
)

// tourSite is the small site the hosting step publishes.
var tourSite = fstest.MapFS{
	"index.html": {Data: []byte(`<!doctype html>
<html><head><title>Tour site</title><link rel="stylesheet" href="style.css"></head>
<body><h1>Published by the agentapis SDK tour</h1><p>One DeployDir call sent this folder.</p></body></html>
`)},
	"style.css":         {Data: []byte("body { font-family: sans-serif; max-width: 40em; margin: 2em auto; }\n")},
	"data/numbers.json": {Data: []byte(`{"steps": 5, "services": ["reportstore", "hosting", "productdata", "gpuprice", "chartdiff"]}` + "\n")},
}

// hostingResult is what the hosting step did.
type hostingResult struct {
	Repo       string
	Deployment string
	SiteURL    string
	// Files is the number of files fetched back from the site, each identical to what was sent.
	Files int
}

// hostingStep creates a repository, deploys a folder to it with one call and fetches every
// file back from the published site.
func (s *session) hostingStep(ctx context.Context) (any, error) {
	opts := []hosting.Option{hosting.WithHTTPClient(s.httpClient()), hosting.WithLogger(s.logger)}
	if s.live(hosting.EnvURL) {
		// The token is there: the environment was checked before the tour started.
		opts = append(opts, hosting.WithBaseURL(s.env(hosting.EnvURL)), hosting.WithToken(s.env(hosting.EnvToken)))
	} else {
		srv := hostingtest.NewServer()
		s.closeLater(srv.Close)
		opts = append(opts, hosting.WithBaseURL(srv.URL), hosting.WithToken(hostingtest.DefaultToken))
	}
	client, err := hosting.New(opts...)
	if err != nil {
		return nil, err
	}
	// A name of its own for every run: the API cannot delete a repository.
	suffix := make([]byte, 4)
	if _, err := rand.Read(suffix); err != nil {
		return nil, err
	}
	res := &hostingResult{Repo: "tour-" + hex.EncodeToString(suffix)}
	repo, err := client.CreateRepo(ctx, &hosting.CreateRepoParams{Name: res.Repo, Description: "published by the SDK tour"})
	if err != nil {
		return res, fmt.Errorf("creating repository %s: %w", res.Repo, err)
	}
	deployed, err := client.DeployDir(ctx, repo.Name, tourSite, &hosting.DeployDirParams{Message: "tour site"})
	if err != nil {
		return res, fmt.Errorf("deploying to %s: %w", repo.Name, err)
	}
	res.Deployment, res.SiteURL = deployed.Deployment.ID, deployed.SiteURL
	s.printf("created %s (%s) and deployed %d files as commit %s, deployment %s", repo.Name, repo.Visibility,
		len(deployed.Uploaded), deployed.Commit.ID, deployed.Deployment.ID)

	web := s.httpClient()
	err = fs.WalkDir(tourSite, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		got, err := fetch(ctx, web, deployed.SiteURL+path)
		if err != nil {
			return err
		}
		if want := tourSite[path].Data; !bytes.Equal(got, want) {
			return fmt.Errorf("%s: the site serves %d bytes that differ from the %d sent", path, len(got), len(want))
		}
		res.Files++
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("fetching the site back: %w", err)
	}
	s.printf("fetched %s back: %d files, each identical to what was sent", deployed.SiteURL, res.Files)
	return res, nil
}

// fetch GETs url and returns its body, refusing any status but 200.
func fetch(ctx context.Context, hc *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return body, nil
}
