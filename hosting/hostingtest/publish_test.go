package hostingtest_test

import (
	"encoding/base64"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting/hostingtest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
)

func TestCommitSnapshotsTheWorkingFiles(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	createRepo(t, srv, "r")
	mustOK(t, srv, "PUT", "/api/v1/repos/r/files/a.txt", `{"content":"v1"}`)

	for label, body := range map[string]string{
		"no message":      `{}`,
		"empty message":   `{"message":""}`,
		"blank message":   `{"message":"  \n"}`,
		"unknown member":  `{"message":"m","author":"me"}`,
		"message number":  `{"message":1}`,
		"bad branch type": `{"message":"m","branch":true}`,
	} {
		a := call(t, srv, hostingtest.DefaultToken, "POST", "/api/v1/repos/r/commit", body)
		assert.Equal(t, 400, a.Status, label)
		assert.NotEmpty(t, errorText(t, a), label)
	}
	a := call(t, srv, hostingtest.DefaultToken, "POST", "/api/v1/repos/r/commit", `{"message":"m","branch":"nope"}`)
	assert.Equal(t, 404, a.Status)
	assert.Contains(t, errorText(t, a), "branch")
	assert.Zero(t, srv.Stats().Commits)

	a = mustOK(t, srv, "POST", "/api/v1/repos/r/commit", `{"message":"first"}`)
	assert.Equal(t, 201, a.Status)
	c1 := a.Object(t, "commit")
	assert.Regexp(t, `^[0-9a-f]{40}$`, c1["id"])
	assert.Equal(t, "main", c1["branch"], "main is the default branch")
	assert.Equal(t, "first", c1["message"])
	assert.Contains(t, c1, "parent")
	assert.Nil(t, c1["parent"])
	assert.NotEmpty(t, c1["created_at"])

	repo := mustOK(t, srv, "GET", "/api/v1/repos/r", "")
	assert.Equal(t, c1["id"], repo.JSON["head"])
	assert.Equal(t, []map[string]any{{"name": "main", "commit": c1["id"]}}, repo.List(t, "branches"))

	// Later writes change the working files, not the commit.
	mustOK(t, srv, "PUT", "/api/v1/repos/r/files/a.txt", `{"content":"v2"}`)
	mustOK(t, srv, "POST", "/api/v1/repos/r/deploy", `{"commit":"`+c1["id"].(string)+`"}`)
	deployed, _ := srv.DeployedFile("r", "a.txt")
	assert.Equal(t, "v1", string(deployed))

	c2 := mustOK(t, srv, "POST", "/api/v1/repos/r/commit", `{"message":"second","branch":"main"}`).Object(t, "commit")
	assert.Equal(t, c1["id"], c2["parent"])
	c3 := mustOK(t, srv, "POST", "/api/v1/repos/r/commit", `{"message":"nothing changed"}`).Object(t, "commit")
	assert.Equal(t, c2["id"], c3["parent"], "an empty commit is still a new commit")
	assert.NotEqual(t, c2["id"], c3["id"])
	head, ok := srv.Head("r", "main")
	assert.True(t, ok)
	assert.Equal(t, c3["id"], head)
	assert.Equal(t, 3, srv.Stats().Commits)
}

func TestBranches(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	createRepo(t, srv, "r")

	a := call(t, srv, hostingtest.DefaultToken, "POST", "/api/v1/repos/r/branches", `{"branch":"dev"}`)
	assert.Equal(t, 409, a.Status, "main has no commit to branch from")
	assert.Contains(t, errorText(t, a), "no commits")

	mustOK(t, srv, "PUT", "/api/v1/repos/r/files/a.txt", `{"content":"v1"}`)
	c1 := mustOK(t, srv, "POST", "/api/v1/repos/r/commit", `{"message":"one"}`).Object(t, "commit")["id"].(string)

	a = mustOK(t, srv, "POST", "/api/v1/repos/r/branches", `{"branch":"feature/x"}`)
	assert.Equal(t, 201, a.Status)
	assert.Equal(t, map[string]any{"name": "feature/x", "commit": c1}, a.Object(t, "branch"), "from defaults to main")

	mustOK(t, srv, "PUT", "/api/v1/repos/r/files/a.txt", `{"content":"v2"}`)
	c2 := mustOK(t, srv, "POST", "/api/v1/repos/r/commit", `{"message":"two","branch":"feature/x"}`).Object(t, "commit")
	assert.Equal(t, "feature/x", c2["branch"])
	assert.Equal(t, c1, c2["parent"])
	head, _ := srv.Head("r", "main")
	assert.Equal(t, c1, head, "a commit on another branch leaves main alone")
	head, _ = srv.Head("r", "feature/x")
	assert.Equal(t, c2["id"], head)

	a = mustOK(t, srv, "POST", "/api/v1/repos/r/branches", `{"branch":"from-branch","from":"feature/x"}`)
	assert.Equal(t, c2["id"], a.Object(t, "branch")["commit"])
	a = mustOK(t, srv, "POST", "/api/v1/repos/r/branches", `{"branch":"from-commit","from":"`+c1+`"}`)
	assert.Equal(t, c1, a.Object(t, "branch")["commit"])

	a = call(t, srv, hostingtest.DefaultToken, "POST", "/api/v1/repos/r/branches", `{"branch":"dev","from":"nowhere"}`)
	assert.Equal(t, 404, a.Status)
	assert.Contains(t, errorText(t, a), "from")
	a = call(t, srv, hostingtest.DefaultToken, "POST", "/api/v1/repos/r/branches", `{"branch":"main"}`)
	assert.Equal(t, 409, a.Status)
	assert.Contains(t, errorText(t, a), "exists")
	for _, bad := range []string{`{}`, `{"branch":""}`, `{"branch":"a b"}`, `{"branch":"a..b"}`, `{"branch":"/a"}`, `{"branch":"a/"}`, `{"branch":"a\\b"}`, `{"branch":"a\u0001"}`, `{"branch":"x","start":"main"}`} {
		a := call(t, srv, hostingtest.DefaultToken, "POST", "/api/v1/repos/r/branches", bad)
		assert.Equal(t, 400, a.Status, bad)
		assert.NotEmpty(t, errorText(t, a), bad)
	}

	repo := mustOK(t, srv, "GET", "/api/v1/repos/r", "")
	names := []string{}
	for _, b := range repo.List(t, "branches") {
		names = append(names, b["name"].(string))
	}
	assert.Equal(t, []string{"feature/x", "from-branch", "from-commit", "main"}, names)
	assert.Equal(t, c1, repo.JSON["head"], "head is the head of main")
}

func TestDeployAndServeTheSite(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithClock(clock)))
	createRepo(t, srv, "blog")
	site := srv.URL + "/site/blog/"
	assert.Equal(t, site, srv.SiteURL("blog"))

	a := call(t, srv, hostingtest.DefaultToken, "POST", "/api/v1/repos/blog/deploy", `{"message":"too early"}`)
	assert.Equal(t, 409, a.Status)
	assert.Contains(t, errorText(t, a), "no commits")
	assert.Equal(t, 404, send(t, srv, "GET", "/site/blog/", "", nil).Status, "not deployed yet")

	png := []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0x0d, 0xff, 0xfe}
	index := "<!doctype html><title>Blog</title><h1>v1</h1>"
	mustOK(t, srv, "PUT", "/api/v1/repos/blog/files/index.html", `{"content_base64":"`+base64.StdEncoding.EncodeToString([]byte(index))+`"}`)
	mustOK(t, srv, "PUT", "/api/v1/repos/blog/files/css/site.css", `{"content":"h1{color:red}"}`)
	mustOK(t, srv, "PUT", "/api/v1/repos/blog/files/img/logo.png", `{"content_base64":"`+base64.StdEncoding.EncodeToString(png)+`"}`)
	mustOK(t, srv, "PUT", "/api/v1/repos/blog/files/docs/index.html", `{"content":"docs"}`)
	mustOK(t, srv, "PUT", "/api/v1/repos/blog/files/data.weird", `{"content":"?"}`)
	c1 := mustOK(t, srv, "POST", "/api/v1/repos/blog/commit", `{"message":"v1"}`).Object(t, "commit")["id"].(string)

	a = call(t, srv, hostingtest.DefaultToken, "POST", "/api/v1/repos/blog/deploy", `{"commit":"0000000000000000000000000000000000000000"}`)
	assert.Equal(t, 404, a.Status)
	assert.Contains(t, errorText(t, a), "commit")
	a = call(t, srv, hostingtest.DefaultToken, "POST", "/api/v1/repos/blog/deploy", `{"branch":"main"}`)
	assert.Equal(t, 400, a.Status, "deploy takes commit and message only")

	a = mustOK(t, srv, "POST", "/api/v1/repos/blog/deploy", `{"message":"go live"}`)
	assert.Equal(t, 201, a.Status)
	d1 := a.Object(t, "deployment")
	assert.Equal(t, site, a.JSON["preview_url"], "preview_url at the top level")
	assert.Equal(t, site, d1["preview_url"], "and in the deployment")
	assert.Equal(t, c1, d1["commit"], "no commit means the head of main")
	assert.Equal(t, "go live", d1["message"])
	assert.Regexp(t, `^dpl_[0-9a-f]{16}$`, d1["id"])
	assert.Regexp(t, `^2026-01-02T03:\d\d:\d\d\.000Z$`, d1["created_at"])

	get := func(path string) (int, http.Header, string) {
		resp, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, resp.Header, string(body)
	}
	status, h, body := get("/site/blog/")
	assert.Equal(t, 200, status)
	assert.Equal(t, "text/html; charset=utf-8", h.Get("Content-Type"))
	assert.Equal(t, index, body)
	assert.Equal(t, `"`+gitBlobSHA([]byte(index))+`"`, h.Get("ETag"))
	status, _, body = get("/site/blog")
	assert.Equal(t, 200, status, "the redirect to /site/blog/ is followed")
	assert.Equal(t, index, body)
	status, h, body = get("/site/blog/css/site.css")
	assert.Equal(t, 200, status)
	assert.Equal(t, "text/css; charset=utf-8", h.Get("Content-Type"))
	assert.Equal(t, "h1{color:red}", body)
	status, h, body = get("/site/blog/img/logo.png")
	assert.Equal(t, 200, status)
	assert.Equal(t, "image/png", h.Get("Content-Type"))
	assert.Equal(t, string(png), body)
	status, h, _ = get("/site/blog/data.weird")
	assert.Equal(t, 200, status)
	assert.Equal(t, "application/octet-stream", h.Get("Content-Type"))
	status, _, body = get("/site/blog/docs")
	assert.Equal(t, 200, status, "a folder redirects to its index")
	assert.Equal(t, "docs", body)
	for _, missing := range []string{"/site/blog/nope.html", "/site/blog/css/", "/site/blog/../blog/index.html", "/site/nobody/", "/site/", "/site/a%2Fb/"} {
		status, _, _ = get(missing)
		assert.Equal(t, 404, status, missing)
	}

	raw := send(t, srv, "GET", "/site/blog", "", nil)
	assert.Equal(t, 301, raw.Status)
	assert.Equal(t, "/site/blog/", raw.Header.Get("Location"))
	raw = send(t, srv, "HEAD", "/site/blog/index.html", "", nil)
	assert.Equal(t, 200, raw.Status)
	raw = send(t, srv, "POST", "/site/blog/index.html", "x", nil)
	assert.Equal(t, 405, raw.Status)

	// A new commit is published only when deployed; an older commit can be deployed again.
	mustOK(t, srv, "PUT", "/api/v1/repos/blog/files/index.html", `{"content":"v2"}`)
	mustOK(t, srv, "DELETE", "/api/v1/repos/blog/files/css/site.css", "")
	c2 := mustOK(t, srv, "POST", "/api/v1/repos/blog/commit", `{"message":"v2"}`).Object(t, "commit")["id"].(string)
	_, _, body = get("/site/blog/")
	assert.Equal(t, index, body, "not deployed yet")
	clock.Advance(time.Second)
	mustOK(t, srv, "POST", "/api/v1/repos/blog/deploy", `{}`)
	_, _, body = get("/site/blog/")
	assert.Equal(t, "v2", body)
	status, _, _ = get("/site/blog/css/site.css")
	assert.Equal(t, 404, status, "the deleted file is gone from the new deployment")
	clock.Advance(time.Second)
	mustOK(t, srv, "POST", "/api/v1/repos/blog/deploy", `{"commit":"`+c1+`","message":"roll back"}`)
	_, _, body = get("/site/blog/")
	assert.Equal(t, index, body)
	got, ok := srv.DeployedFile("blog", "img/logo.png")
	assert.True(t, ok)
	assert.Equal(t, png, got)

	list := mustOK(t, srv, "GET", "/api/v1/repos/blog/deployments", "").List(t, "deployments")
	require.Len(t, list, 3)
	assert.Equal(t, []any{c1, c2, c1}, []any{list[2]["commit"], list[1]["commit"], list[0]["commit"]}, "newest first")
	assert.Equal(t, "roll back", list[0]["message"])
	assert.Equal(t, "", list[1]["message"], "a deploy without message")
	assert.Equal(t, d1, list[2])
	recorded := srv.Deployments("blog")
	require.Len(t, recorded, 3)
	assert.Equal(t, d1["id"], recorded[0].ID)
	assert.Equal(t, c1, recorded[2].Commit)
	assert.Equal(t, site, recorded[2].PreviewURL)
	assert.Equal(t, 3, srv.Stats().Deploys)
}

func TestSiteOfAPrivateRepositoryWithAnEscapedName(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	mustOK(t, srv, "POST", "/api/v1/repos", `{"name":"my site","visibility":"private"}`)
	mustOK(t, srv, "PUT", "/api/v1/repos/my%20site/files/index.html", `{"content":"hi"}`)
	mustOK(t, srv, "POST", "/api/v1/repos/my%20site/commit", `{"message":"m"}`)
	a := mustOK(t, srv, "POST", "/api/v1/repos/my%20site/deploy", `{}`)
	assert.Equal(t, srv.URL+"/site/my%20site/", a.JSON["preview_url"])
	assert.Equal(t, a.JSON["preview_url"], srv.SiteURL("my site"))
	resp, err := http.Get(a.JSON["preview_url"].(string))
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "hi", string(body))
}
