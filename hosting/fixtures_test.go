package hosting_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/internal/fixturetest"
)

// fixtures holds recorded exchanges that check what the client sent. No
// public copy of the service was found, so they carry the shapes of the API description (the
// envelope, preview_url, a repository's file list, branches and head) with plausible members
// around them.
const fixtures = "testdata/fixtures"

func TestFixtureRepos(t *testing.T) {
	t.Parallel()
	c := newClient(t, "https://host.example", hosting.WithHTTPClient(fixturetest.Client(t, fixtures, "list_repos.json")))
	list, err := c.Repos(t.Context())
	require.NoError(t, err)
	require.Len(t, list.Repos, 2)
	blog := list.Repos[0]
	assert.Equal(t, "blog", blog.Name)
	assert.Equal(t, "my blog", blog.Description)
	assert.Equal(t, hosting.Public, blog.Visibility)
	assert.Equal(t, "ann", blog.Owner)
	assert.Equal(t, "main", blog.DefaultBranch)
	require.NotNil(t, blog.UpdatedAt)
	assert.Equal(t, time.Date(2026, 2, 12, 9, 30, 0, 0, time.UTC), blog.UpdatedAt.UTC())
	assert.Equal(t, "docs", list.Repos[1].Name)
	assert.Equal(t, "req-list-1", list.Response.RequestID)
}

func TestFixtureCreateRepo(t *testing.T) {
	t.Parallel()
	c := newClient(t, "https://host.example", hosting.WithHTTPClient(fixturetest.Client(t, fixtures, "create_repo.json")))
	repo, err := c.CreateRepo(t.Context(), &hosting.CreateRepoParams{Name: "blog", Description: "my blog"})
	require.NoError(t, err)
	assert.Equal(t, "blog", repo.Name)
	assert.Equal(t, "ann", repo.Owner)
	assert.Equal(t, http.StatusCreated, repo.Response.StatusCode)
}

func TestFixtureRepo(t *testing.T) {
	t.Parallel()
	c := newClient(t, "https://host.example", hosting.WithHTTPClient(fixturetest.Client(t, fixtures, "get_repo.json")))
	info, err := c.Repo(t.Context(), "blog")
	require.NoError(t, err)
	assert.Equal(t, "blog", info.Repo.Name)
	assert.Equal(t, "c_0003", info.Head)
	require.Len(t, info.Files, 3)
	logo, ok := info.File("img/logo.png")
	require.True(t, ok)
	assert.Equal(t, int64(68), *logo.Size)
	assert.Equal(t, "9e2f1d0c7b6a5948372615f4e3d2c1b0a9f8e7d6", logo.SHA)
	require.Len(t, info.Branches, 2)
	assert.Equal(t, hosting.Branch{Name: "preview", Commit: "c_0002", Raw: json.RawMessage(`{"name": "preview", "commit": "c_0002"}`)}, info.Branches[1])
}

func TestFixturePutFileText(t *testing.T) {
	t.Parallel()
	c := newClient(t, "https://host.example", hosting.WithHTTPClient(fixturetest.Client(t, fixtures, "put_file_text.json")))
	w, err := c.PutFile(t.Context(), "blog", "css/site.css", []byte("body { margin: 0 }\n"))
	require.NoError(t, err)
	assert.Equal(t, hosting.EncodingText, w.Encoding)
	assert.Equal(t, int64(19), *w.Size)
	assert.Equal(t, "3c1e5f7a9b2d4f6a8c0e2a4c6e8a0c2e4a6c8e0a", w.SHA)
}

func TestFixturePutFileHTMLGoesAsBase64(t *testing.T) {
	t.Parallel()
	c := newClient(t, "https://host.example", hosting.WithHTTPClient(fixturetest.Client(t, fixtures, "put_file_html.json")))
	html := "<!doctype html>\n<html><head><title>Blog</title><link rel=\"stylesheet\" href=\"css/site.css\"></head><body><h1>Hello</h1></body></html>\n"
	w, err := c.PutFile(t.Context(), "blog", "index.html", []byte(html))
	require.NoError(t, err)
	assert.Equal(t, hosting.EncodingBase64, w.Encoding)
	assert.Equal(t, http.MethodPut, w.Method)
}

func TestFixtureFile(t *testing.T) {
	t.Parallel()
	c := newClient(t, "https://host.example", hosting.WithHTTPClient(fixturetest.Client(t, fixtures, "get_file_binary.json")))
	f, err := c.File(t.Context(), "blog", "img/logo.png")
	require.NoError(t, err)
	assert.Equal(t, hosting.EncodingBase64, f.Encoding)
	require.Len(t, f.Content, 33)
	assert.Equal(t, []byte("\x89PNG\r\n\x1a\n"), f.Content[:8])
	assert.Equal(t, int64(len(f.Content)), *f.Size)

	c = newClient(t, "https://host.example", hosting.WithHTTPClient(fixturetest.Client(t, fixtures, "get_file_text.json")))
	f, err = c.File(t.Context(), "blog", "css/site.css")
	require.NoError(t, err)
	assert.Equal(t, hosting.EncodingText, f.Encoding)
	assert.Equal(t, "body { margin: 0 }\n", string(f.Content))
}

func TestFixtureDeleteFile(t *testing.T) {
	t.Parallel()
	c := newClient(t, "https://host.example", hosting.WithHTTPClient(fixturetest.Client(t, fixtures, "delete_file.json")))
	d, err := c.DeleteFile(t.Context(), "blog", "old/draft.md")
	require.NoError(t, err)
	assert.Equal(t, "old/draft.md", d.Path)
}

func TestFixtureCommit(t *testing.T) {
	t.Parallel()
	c := newClient(t, "https://host.example", hosting.WithHTTPClient(fixturetest.Client(t, fixtures, "commit.json")))
	cm, err := c.Commit(t.Context(), "blog", &hosting.CommitParams{Message: "Publish the first post"})
	require.NoError(t, err)
	assert.Equal(t, "c_0004", cm.ID)
	assert.Equal(t, "main", cm.Branch)
	assert.Equal(t, "c_0003", cm.Parent)
	require.NotNil(t, cm.CreatedAt)
}

func TestFixtureDeploy(t *testing.T) {
	t.Parallel()
	c := newClient(t, "https://host.example", hosting.WithHTTPClient(fixturetest.Client(t, fixtures, "deploy.json")))
	d, err := c.Deploy(t.Context(), "blog", &hosting.DeployParams{Commit: "c_0004", Message: "Publish the first post"})
	require.NoError(t, err)
	assert.Equal(t, "https://host.example/site/blog/", d.PreviewURL)
	assert.Equal(t, "d_0002", d.ID)
	assert.Equal(t, "c_0004", d.Commit)
}

func TestFixtureDeployments(t *testing.T) {
	t.Parallel()
	c := newClient(t, "https://host.example", hosting.WithHTTPClient(fixturetest.Client(t, fixtures, "deployments.json")))
	list, err := c.Deployments(t.Context(), "blog")
	require.NoError(t, err)
	require.Len(t, list.Deployments, 2)
	assert.Equal(t, "d_0002", list.Deployments[0].ID)
	assert.Equal(t, "c_0001", list.Deployments[1].Commit)
}

func TestFixtureCreateBranch(t *testing.T) {
	t.Parallel()
	c := newClient(t, "https://host.example", hosting.WithHTTPClient(fixturetest.Client(t, fixtures, "create_branch.json")))
	br, err := c.CreateBranch(t.Context(), "blog", &hosting.CreateBranchParams{Branch: "preview", From: "main"})
	require.NoError(t, err)
	assert.Equal(t, "preview", br.Name)
	assert.Equal(t, "c_0004", br.Commit)
}
