// Command hosting publishes a small static site with the hosting API: it creates a
// repository, deploys a folder holding an index.html, a stylesheet and an image with one call
// to DeployDir, then fetches the published site, checks that every file arrived byte for byte
// and prints the page's title.
//
// It runs offline against the in-memory fake by default:
//
//	go run ./examples/hosting
//
// With HOSTING_URL and HOSTING_TOKEN set it publishes to that service instead (the API has no
// way to delete a repository, so the one it creates stays); HOSTING_URL without
// HOSTING_TOKEN is refused:
//
//	HOSTING_URL=https://host.example HOSTING_TOKEN=... go run ./examples/hosting -repo my-first-site
package main

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/agentapis/sdk/examples/internal/cli"
	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/hosting/hostingtest"
)

// about is what -h says the program does.
const about = `Creates a repository, publishes a small site to it with one DeployDir call, fetches the
site back and checks every file. Offline against the in-memory fake by default; with
` + hosting.EnvURL + ` and ` + hosting.EnvToken + ` set, against that service (the repository stays).`

// siteFiles is the folder to publish.
//
//go:embed site
var siteFiles embed.FS

// settings say which service to use and which repository to publish to.
type settings struct {
	baseURL string
	token   string
	repo    string
}

func main() { cli.Main(realMain) }

// realMain runs the program with the command line args and the environment env, and returns
// its exit status.
func realMain(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int {
	p := cli.New("hosting", about,
		cli.Var{Name: hosting.EnvURL, Use: "the hosting service's address (unset: the in-memory fake)"},
		cli.Var{Name: hosting.EnvToken, Use: "the account's API token, required with " + hosting.EnvURL})
	repo := p.Flags.String("repo", "hosting-example", "name of the repository to create and publish")
	if code, done := p.Parse(args, stdout, stderr); done {
		return code
	}
	if strings.TrimSpace(*repo) == "" {
		return p.Refuse(stderr, errors.New("-repo: the repository needs a name"))
	}
	live, err := cli.Live(env, hosting.EnvURL, hosting.EnvToken)
	if err != nil {
		return p.Refuse(stderr, err)
	}
	s := settings{repo: *repo}
	if live {
		s.baseURL, s.token = env(hosting.EnvURL), env(hosting.EnvToken)
	}
	return p.Exit(stderr, run(ctx, stdout, s))
}

// run performs the walk-through, writing what happens to out: against the service at
// s.baseURL, or the in-memory fake when it is empty.
func run(ctx context.Context, out io.Writer, s settings) error {
	if s.baseURL == "" {
		srv := hostingtest.NewServer()
		defer srv.Close()
		s.baseURL, s.token = srv.URL, hostingtest.DefaultToken
		fmt.Fprintln(out, "offline: using the in-memory fake (set HOSTING_URL and HOSTING_TOKEN for a live service)")
	}
	client, err := hosting.New(hosting.WithBaseURL(s.baseURL), hosting.WithToken(s.token))
	if err != nil {
		return err
	}
	site, err := fs.Sub(siteFiles, "site")
	if err != nil {
		return err
	}

	// 1. Create the repository; public is the default visibility.
	repo, err := client.CreateRepo(ctx, &hosting.CreateRepoParams{Name: s.repo, Description: "published by the hosting example"})
	if err != nil {
		return fmt.Errorf("creating repository %s: %w", s.repo, err)
	}
	fmt.Fprintf(out, "created repository %s (%s)\n", repo.Name, repo.Visibility)

	// 2. Deploy the folder: every file, then one commit and one deployment. HTML and the image
	// travel as content_base64, the stylesheet as text.
	res, err := client.DeployDir(ctx, s.repo, site, &hosting.DeployDirParams{
		Message: "first version",
		Progress: func(p hosting.Progress) {
			fmt.Fprintf(out, "  %s %s (%d/%d files, %d/%d bytes)\n", p.Action, p.Path, p.FilesDone, p.FilesTotal, p.BytesDone, p.BytesTotal)
		},
	})
	var upload *hosting.UploadError
	if errors.As(err, &upload) {
		return fmt.Errorf("nothing was published; run again to resend only these: %v: %w", upload.Paths(), err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "deployed commit %s as deployment %s\n", res.Commit.ID, res.Deployment.ID)
	fmt.Fprintf(out, "site: %s\n", res.SiteURL)

	// 3. Fetch the published site: every file byte for byte, and the page's title.
	web := &http.Client{Timeout: 30 * time.Second}
	err = fs.WalkDir(site, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		want, err := fs.ReadFile(site, path)
		if err != nil {
			return err
		}
		got, err := get(ctx, web, res.SiteURL+path)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("%s: the site serves %d bytes that differ from the %d sent", path, len(got), len(want))
		}
		fmt.Fprintf(out, "  %s: %d bytes, identical\n", path, len(got))
		return nil
	})
	if err != nil {
		return err
	}
	page, err := get(ctx, web, res.SiteURL)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "title: %s\n", title(page))
	st := client.GatewayRemedies()
	fmt.Fprintf(out, "token header: %s; gateway remedies: %d token retries, %d blocked PUTs resent\n",
		st.TokenHeader, st.TokenHeaderRetries, st.BlockedPutRetries)
	return nil
}

// get fetches a public page of the site.
func get(ctx context.Context, web *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := web.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// title returns the text of a page's <title> element, "" when it has none.
func title(page []byte) string {
	s := string(page)
	start := strings.Index(strings.ToLower(s), "<title>")
	if start < 0 {
		return ""
	}
	s = s[start+len("<title>"):]
	end := strings.Index(strings.ToLower(s), "</title>")
	if end < 0 {
		return ""
	}
	return html.UnescapeString(strings.TrimSpace(s[:end]))
}
