package hosting_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/hosting/hostingtest"
	"github.com/agentapis/sdk/internal/logbuf"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
)

// fakeClient returns a client of srv with the fake's default token and quick retries; opts
// come after the defaults.
func fakeClient(t *testing.T, srv *hostingtest.Server, opts ...hosting.Option) *hosting.Client {
	t.Helper()
	defaults := []hosting.Option{hosting.WithBaseURL(srv.URL), hosting.WithToken(hostingtest.DefaultToken), withFastRetry}
	return testkit.New(t, hosting.New, append(defaults, opts...)...)
}

// fetch GETs url without credentials and returns the status, the Content-Type and the body.
func fetch(t *testing.T, url string) (int, string, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("Content-Type"), body
}

// siteFiles are a small site: HTML, a stylesheet, binary, SVG, nested and a text file
// that holds markup.
var siteFiles = map[string][]byte{
	"index.html":          []byte("<!DOCTYPE html>\n<html><head><title>Blog</title><link rel=\"stylesheet\" href=\"css/site.css\"></head>\n<body><img src=\"img/logo.png\"><h1>Hello</h1></body></html>\n"),
	"css/site.css":        []byte("body { margin: 0; font-family: sans-serif }\n"),
	"img/logo.png":        {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0x0d, 'I', 'H', 'D', 'R', 0xff, 0xfe, 0x00, 0x80},
	"img/icon.svg":        []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><rect width="1" height="1"/></svg>`),
	"posts/2026/first.md": []byte("# First post\n\nÜnïcödé text, and a <script>alert(1)</script> example.\n"),
	"notes.txt":           []byte("plain text, a < b\n"),
	"empty.txt":           {},
}

func TestEndToEndTypicalOrderIsByteExact(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithCDNBlockRawHTML()))
	c := fakeClient(t, srv)
	ctx := t.Context()

	repo, err := c.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "blog", Description: "my blog"})
	require.NoError(t, err)
	assert.Equal(t, "blog", repo.Name)
	assert.Equal(t, hostingtest.DefaultOwner, repo.Owner)
	assert.Equal(t, hosting.Public, repo.Visibility)

	for path, data := range siteFiles {
		w, err := c.PutFile(ctx, "blog", path, data)
		require.NoError(t, err, path)
		assert.Equal(t, http.MethodPut, w.Method, path)
		assert.Equal(t, hosting.ContentEncoding(path, data), w.Encoding, path)
	}
	for path, data := range siteFiles {
		f, err := c.File(ctx, "blog", path)
		require.NoError(t, err, path)
		assert.Equal(t, data, nonNil(f.Content), "%s read back byte for byte", path)
	}

	info, err := c.Repo(ctx, "blog")
	require.NoError(t, err)
	require.Len(t, info.Files, len(siteFiles))
	assert.Empty(t, info.Head, "nothing committed yet")
	for _, e := range info.Files {
		require.NotNil(t, e.Size, e.Path)
		assert.Equal(t, int64(len(siteFiles[e.Path])), *e.Size, e.Path)
		assert.Equal(t, hostingtest.BlobSHA(siteFiles[e.Path]), e.SHA, e.Path)
	}

	cm, err := c.Commit(ctx, "blog", &hosting.CommitParams{Message: "first version"})
	require.NoError(t, err)
	require.NotEmpty(t, cm.ID)
	assert.Equal(t, "main", cm.Branch)
	d, err := c.Deploy(ctx, "blog", &hosting.DeployParams{Commit: cm.ID, Message: "go live"})
	require.NoError(t, err)
	assert.Equal(t, cm.ID, d.Commit)
	site, err := c.SiteURL("blog")
	require.NoError(t, err)
	assert.Equal(t, site, d.PreviewURL)

	for path, data := range siteFiles {
		status, _, body := fetch(t, site+path)
		require.Equal(t, http.StatusOK, status, path)
		assert.Equal(t, data, nonNil(body), "%s published byte for byte", path)
	}
	status, ct, body := fetch(t, site)
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, ct, "text/html")
	assert.Equal(t, siteFiles["index.html"], body)

	list, err := c.Deployments(ctx, "blog")
	require.NoError(t, err)
	require.Len(t, list.Deployments, 1)
	assert.Equal(t, d.ID, list.Deployments[0].ID)
	repos, err := c.Repos(ctx)
	require.NoError(t, err)
	require.Len(t, repos.Repos, 1)
	assert.Equal(t, "my blog", repos.Repos[0].Description)

	for _, r := range srv.Exchanges() {
		assert.False(t, r.TokenInURL, "%s %s", r.Method, r.Path)
		assert.False(t, r.Blocked, "the client never sends raw markup in content: %s", r.Path)
	}
	assert.Zero(t, testkit.CountStatus(srv.Requests(), http.StatusForbidden))
	assert.Equal(t, hosting.GatewayRemedies{TokenHeader: hosting.AuthorizationHeader}, c.GatewayRemedies())
}

// nonNil returns b, or an empty slice for nil, so that an empty file compares equal.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func TestEndToEndGatewayStrippingAuthorization(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithGatewayStripsAuthorization()))
	var logs logbuf.Buffer
	c := fakeClient(t, srv, hosting.WithLogger(jsonLogger(&logs)))
	ctx := t.Context()

	_, err := c.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "site"})
	require.NoError(t, err)
	_, err = c.PutFile(ctx, "site", "index.html", siteFiles["index.html"])
	require.NoError(t, err)
	_, err = c.Commit(ctx, "site", &hosting.CommitParams{Message: "m"})
	require.NoError(t, err)

	reqs := srv.Exchanges()
	require.Len(t, reqs, 4, "one 401, then every request in X-API-Token")
	assert.Equal(t, http.StatusUnauthorized, reqs[0].Status)
	assert.Equal(t, []string{hostingtest.AuthAuthorization}, reqs[0].AuthHeaders)
	for _, r := range reqs[1:] {
		assert.Equal(t, []string{hostingtest.AuthAPIToken}, r.AuthHeaders, "%s %s", r.Method, r.Path)
		assert.Equal(t, hostingtest.AuthAPIToken, r.Auth)
		assert.Less(t, r.Status, 300)
	}
	assert.Equal(t, hosting.GatewayRemedies{TokenHeaderRetries: 1, TokenHeader: hosting.TokenHeader}, c.GatewayRemedies())
	assert.Equal(t, 1, testkit.CountStatus(srv.Requests(), http.StatusUnauthorized))
	assert.Contains(t, logs.String(), `"remedy":"token in X-API-Token after a 401 to Authorization: Bearer"`)
	assert.NotContains(t, logs.String(), hostingtest.DefaultToken)
}

func TestEndToEndCDNBlockingPUT(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithCDNBlockPUT()))
	c := fakeClient(t, srv)
	ctx := t.Context()
	_, err := c.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "site"})
	require.NoError(t, err)
	for _, path := range []string{"index.html", "css/site.css", "img/logo.png"} {
		w, err := c.PutFile(ctx, "site", path, siteFiles[path])
		require.NoError(t, err, path)
		assert.Equal(t, http.MethodPost, w.Method)
		assert.Equal(t, hosting.EncodingBase64, w.Encoding)
		stored, ok := srv.File("site", path)
		require.True(t, ok)
		assert.Equal(t, siteFiles[path], stored)
	}
	assert.Equal(t, int64(3), c.GatewayRemedies().BlockedPutRetries)
	st := srv.Stats()
	assert.Equal(t, 3, testkit.CountStatus(srv.Requests(), http.StatusForbidden))
	assert.Equal(t, 3, st.PostWrites)
	assert.Zero(t, st.PutWrites)
	var posts int
	for _, r := range srv.Exchanges() {
		if r.Method == http.MethodPost && r.Encoding != "" {
			posts++
			assert.Equal(t, "content_base64", r.Encoding)
		}
	}
	assert.Equal(t, 3, posts)
}

func TestEndToEndOwnershipBetweenTwoTokens(t *testing.T) {
	t.Parallel()
	const bobToken = "bob-token-8d2c41f07a9e4b36"
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithAccount(bobToken, "bob")))
	alice := fakeClient(t, srv)
	bob := fakeClient(t, srv, hosting.WithToken(bobToken))
	ctx := t.Context()

	_, err := alice.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "alice-site"})
	require.NoError(t, err)
	_, err = alice.PutFile(ctx, "alice-site", "index.html", []byte("<p>alice</p>"))
	require.NoError(t, err)

	_, err = bob.Repo(ctx, "alice-site")
	assert.Equal(t, http.StatusNotFound, testkit.APIError(t, err).StatusCode)
	_, err = bob.File(ctx, "alice-site", "index.html")
	assert.Equal(t, http.StatusNotFound, testkit.APIError(t, err).StatusCode)
	_, err = bob.PutFile(ctx, "alice-site", "index.html", []byte("<p>bob was here</p>"))
	ae := testkit.APIError(t, err)
	assert.Equal(t, http.StatusNotFound, ae.StatusCode)
	assert.NotEmpty(t, ae.Message, "the envelope's error text")
	_, err = bob.DeleteFile(ctx, "alice-site", "index.html")
	assert.Equal(t, http.StatusNotFound, testkit.APIError(t, err).StatusCode)
	_, err = bob.Commit(ctx, "alice-site", &hosting.CommitParams{Message: "m"})
	assert.Equal(t, http.StatusNotFound, testkit.APIError(t, err).StatusCode)
	_, err = bob.Deploy(ctx, "alice-site", &hosting.DeployParams{Message: "m"})
	assert.Equal(t, http.StatusNotFound, testkit.APIError(t, err).StatusCode)
	_, err = bob.Deployments(ctx, "alice-site")
	assert.Equal(t, http.StatusNotFound, testkit.APIError(t, err).StatusCode)
	_, err = bob.CreateBranch(ctx, "alice-site", &hosting.CreateBranchParams{Branch: "x"})
	assert.Equal(t, http.StatusNotFound, testkit.APIError(t, err).StatusCode)
	_, err = bob.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "alice-site"})
	assert.Equal(t, http.StatusConflict, testkit.APIError(t, err).StatusCode)
	bobs, err := bob.Repos(ctx)
	require.NoError(t, err)
	assert.Empty(t, bobs.Repos)

	f, err := alice.File(ctx, "alice-site", "index.html")
	require.NoError(t, err)
	assert.Equal(t, "<p>alice</p>", string(f.Content), "bob changed nothing")
	owner, _ := srv.Owner("alice-site")
	assert.Equal(t, hostingtest.DefaultOwner, owner)
	assert.Zero(t, bob.GatewayRemedies().TokenHeaderRetries, "a 404 is not a gateway problem")
}

func TestEndToEndPathValidationSendsNothing(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	c := fakeClient(t, srv)
	ctx := t.Context()
	for _, path := range []string{"", "..", "../x", "a/../b", "/abs", `a\b`, "a\x00b"} {
		_, err := c.PutFile(ctx, "blog", path, []byte("x"))
		assert.Equal(t, "path", testkit.ValidationError(t, err).Field, "%q", path)
	}
	for _, name := range []string{"", "..", "a/b", `a\b`, "a\x00b"} {
		_, err := c.CreateRepo(ctx, &hosting.CreateRepoParams{Name: name})
		assert.Equal(t, "name", testkit.ValidationError(t, err).Field, "%q", name)
	}
	assert.Empty(t, srv.Requests())
}

func TestEndToEndBranchCommitAndDeploy(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	c := fakeClient(t, srv)
	ctx := t.Context()
	_, err := c.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "site"})
	require.NoError(t, err)
	_, err = c.PutFile(ctx, "site", "index.html", []byte("<p>v1</p>"))
	require.NoError(t, err)
	v1, err := c.Commit(ctx, "site", &hosting.CommitParams{Message: "v1"})
	require.NoError(t, err)
	br, err := c.CreateBranch(ctx, "site", &hosting.CreateBranchParams{Branch: "preview", From: "main"})
	require.NoError(t, err)
	assert.Equal(t, "preview", br.Name)
	assert.Equal(t, v1.ID, br.Commit)

	_, err = c.PutFile(ctx, "site", "index.html", []byte("<p>v2</p>"))
	require.NoError(t, err)
	v2, err := c.Commit(ctx, "site", &hosting.CommitParams{Message: "v2", Branch: "preview"})
	require.NoError(t, err)
	assert.Equal(t, "preview", v2.Branch)
	assert.Equal(t, v1.ID, v2.Parent)

	info, err := c.Repo(ctx, "site")
	require.NoError(t, err)
	assert.Equal(t, v1.ID, info.Head, "the head of the default branch")
	assert.Len(t, info.Branches, 2)

	_, err = c.Deploy(ctx, "site", &hosting.DeployParams{Commit: v2.ID, Message: "preview"})
	require.NoError(t, err)
	site, err := c.SiteURL("site")
	require.NoError(t, err)
	_, _, body := fetch(t, site)
	assert.Equal(t, "<p>v2</p>", string(body))
	_, err = c.Deploy(ctx, "site", &hosting.DeployParams{Message: "back to main"})
	require.NoError(t, err)
	_, _, body = fetch(t, site)
	assert.Equal(t, "<p>v1</p>", string(body), "without a commit the service deploys the head of main")

	_, err = c.Deploy(ctx, "site", &hosting.DeployParams{Commit: "no-such-commit", Message: "m"})
	ae := testkit.APIError(t, err)
	assert.Equal(t, http.StatusNotFound, ae.StatusCode)
	assert.Equal(t, 1, ae.Attempts, "a deployment is never repeated")
}

// bigSite returns n files of distinct content: every tenth an HTML page, every seventh a
// binary image, the rest stylesheets, in nested folders.
func bigSite(n int, version string) map[string][]byte {
	files := make(map[string][]byte, n)
	for i := range n {
		switch {
		case i%10 == 0:
			files[fmt.Sprintf("pages/p%03d.html", i)] = []byte(fmt.Sprintf("<!doctype html><title>%d %s</title>", i, version))
		case i%7 == 0:
			files[fmt.Sprintf("img/i%03d.png", i)] = append([]byte{0x89, 'P', 'N', 'G', 0, 0xff}, bytes.Repeat([]byte{byte(i)}, i)...)
		default:
			files[fmt.Sprintf("css/s%03d.css", i)] = []byte(fmt.Sprintf(".c%d { width: %dpx } /* %s */\n", i, i, version))
		}
	}
	return files
}

func TestEndToEndInjectedFaults(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	c := fakeClient(t, srv)
	ctx := t.Context()
	_, err := c.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "site"})
	require.NoError(t, err)

	srv.InjectFaults(sdktest.Fault{Method: http.MethodPut, Status: http.StatusServiceUnavailable, Message: "busy", Times: 2})
	w, err := c.PutFile(ctx, "site", "a.txt", []byte("a"))
	require.NoError(t, err)
	assert.Equal(t, 3, w.Response.Attempts, "two injected 503s, then the write")
	assert.Equal(t, 3, srv.RequestCount(http.MethodPut, "/api/v1/repos/site/files/a.txt"))

	srv.InjectFaults(sdktest.Fault{Path: "/api/v1/repos/site", Status: http.StatusOK, Code: "archived", Message: "repository is archived"})
	_, err = c.Repo(ctx, "site")
	ae := testkit.APIError(t, err)
	assert.Equal(t, http.StatusOK, ae.StatusCode)
	assert.Equal(t, "archived", ae.Code)
	assert.Equal(t, "repository is archived", ae.Message)
	assert.Equal(t, 1, ae.Attempts, "a failure the service reports in a 200 is not repeated")

	srv.InjectFaults(sdktest.Fault{Path: "/api/v1/repos/site/commit", Status: http.StatusConflict, Message: "busy committing"})
	_, err = c.Commit(ctx, "site", &hosting.CommitParams{Message: "m"})
	assert.ErrorIs(t, err, hosting.ErrConflict)
	assert.Equal(t, "busy committing", testkit.APIError(t, err).Message)
	assert.Zero(t, srv.Stats().Commits)
}
