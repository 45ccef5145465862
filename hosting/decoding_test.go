package hosting_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/internal/testkit"
)

func TestRepoReadsTheNamedMembersInEveryLikelyShape(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
	}{
		{"flat beside the record", `{"ok":true,"repo":{"name":"blog","visibility":"public"},
			"files":[{"path":"index.html","size":5,"sha":"0123456789abcdef0123456789abcdef01234567"},{"path":"css/a.css","size":3}],
			"branches":[{"name":"main","commit":"c2"}],"head":"c2"}`},
		{"inside repo", `{"ok":true,"repo":{"name":"blog","visibility":"public",
			"files":[{"path":"index.html","size":5,"sha":"0123456789abcdef0123456789abcdef01234567"},{"path":"css/a.css","size":3}],
			"branches":["main"],"head":{"id":"c2"}}}`},
		{"inside data, other spellings", `{"ok":true,"data":{"name":"blog","private":false,
			"tree":{"index.html":{"size":5,"sha1":"0123456789abcdef0123456789abcdef01234567"},"css/a.css":{"bytes":3}},
			"branches":{"main":"c2"},"head_commit":{"sha":"c2"}}}`},
	} {
		srv := testkit.Record(t, testkit.Answer(http.StatusOK, tc.body))
		info, err := newClient(t, srv.URL).Repo(t.Context(), "blog")
		require.NoError(t, err, tc.name)
		assert.Equal(t, "blog", info.Repo.Name, tc.name)
		assert.Equal(t, hosting.Public, info.Repo.Visibility, tc.name)
		assert.Equal(t, "c2", info.Head, tc.name)
		require.Len(t, info.Branches, 1, tc.name)
		assert.Equal(t, "main", info.Branches[0].Name, tc.name)
		require.Len(t, info.Files, 2, tc.name)
		paths := []string{info.Files[0].Path, info.Files[1].Path}
		assert.ElementsMatch(t, []string{"index.html", "css/a.css"}, paths, tc.name)
		idx, ok := info.File("index.html")
		require.True(t, ok, tc.name)
		require.NotNil(t, idx.Size, tc.name)
		assert.Equal(t, int64(5), *idx.Size, tc.name)
		assert.Equal(t, "0123456789abcdef0123456789abcdef01234567", idx.SHA, tc.name)
		assert.JSONEq(t, tc.body, string(info.Raw), tc.name)
		assert.Equal(t, http.StatusOK, info.Response.StatusCode)
	}
}

func TestRepoRefusesAnAnswerWithoutANamedMember(t *testing.T) {
	t.Parallel()
	for member, body := range map[string]string{
		"files":    `{"ok":true,"repo":{"name":"blog"},"branches":[],"head":null}`,
		"branches": `{"ok":true,"repo":{"name":"blog"},"files":[],"head":null}`,
		"head":     `{"ok":true,"repo":{"name":"blog"},"files":[],"branches":[]}`,
	} {
		srv := testkit.Record(t, testkit.Answer(http.StatusOK, body))
		_, err := newClient(t, srv.URL).Repo(t.Context(), "blog")
		assert.ErrorContains(t, testkit.DecodeError(t, err), `"`+member+`" is missing`, body)
	}
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":true,"files":[{"size":3}],"branches":[],"head":null}`))
	_, err := newClient(t, srv.URL).Repo(t.Context(), "blog")
	assert.ErrorContains(t, testkit.DecodeError(t, err), `"path" is missing`, "an entry without a path is never dropped")
}

func TestRepoOfAFreshRepository(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":true,"repo":{"name":"new","created_at":"2026-03-01T10:00:00.000Z"},"files":null,"branches":[{"name":"main","commit":null}],"head":null}`))
	info, err := newClient(t, srv.URL).Repo(t.Context(), "new")
	require.NoError(t, err)
	assert.NotNil(t, info.Files)
	assert.Empty(t, info.Files, "null is an empty list")
	assert.Empty(t, info.Head)
	assert.Equal(t, []hosting.Branch{{Name: "main", Raw: []byte(`{"name":"main","commit":null}`)}}, info.Branches)
	require.NotNil(t, info.Repo.CreatedAt)
	assert.Equal(t, time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), info.Repo.CreatedAt.UTC())
	assert.Nil(t, info.Repo.UpdatedAt)
}

func TestReposAcceptsLikelyNamesAndRefusesAMissingList(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"ok":true,"repos":[{"name":"a","owner":{"login":"ann"}},"b"]}`,
		`{"ok":true,"repositories":[{"name":"a","owner":"ann"},{"slug":"b"}]}`,
		`{"ok":true,"data":[{"name":"a","owner":"ann"},"b"]}`,
	} {
		srv := testkit.Record(t, testkit.Answer(http.StatusOK, body))
		list, err := newClient(t, srv.URL).Repos(t.Context())
		require.NoError(t, err, body)
		require.Len(t, list.Repos, 2, body)
		assert.Equal(t, "a", list.Repos[0].Name, body)
		assert.Equal(t, "ann", list.Repos[0].Owner, body)
		assert.Equal(t, "b", list.Repos[1].Name, body)
		assert.Zero(t, list.Repos[0].Response, "a repository inside a list has no response of its own")
	}
	for _, body := range []string{`{"ok":true}`, `{"ok":true,"list":[]}`, `{"ok":true,"repos":[{"description":"no name"}]}`} {
		srv := testkit.Record(t, testkit.Answer(http.StatusOK, body))
		_, err := newClient(t, srv.URL).Repos(t.Context())
		testkit.DecodeError(t, err)
	}
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":true,"repos":null}`))
	list, err := newClient(t, srv.URL).Repos(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []hosting.Repo{}, list.Repos)
}

func TestDeployRequiresPreviewURLWhereverItIs(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"ok":true,"preview_url":"https://h/site/blog/"}`,
		`{"ok":true,"deployment":{"id":"d1","commit":"c1","preview_url":"https://h/site/blog/"}}`,
		`{"ok":true,"deployment":{"id":"d1","commit":"c1"},"preview_url":"https://h/site/blog/"}`,
		`{"ok":true,"data":{"deployment_id":7,"commit":{"sha":"c1"},"previewUrl":"https://h/site/blog/","state":"ready"}}`,
	} {
		srv := testkit.Record(t, testkit.Answer(http.StatusCreated, body))
		d, err := newClient(t, srv.URL).Deploy(t.Context(), "blog", &hosting.DeployParams{Commit: "c1", Message: "go"})
		require.NoError(t, err, body)
		assert.Equal(t, "https://h/site/blog/", d.PreviewURL, body)
		assert.Equal(t, http.StatusCreated, d.Response.StatusCode)
		assert.JSONEq(t, body, string(d.Raw))
		reqs := srv.Requests()
		assert.Equal(t, "/api/v1/repos/blog/deploy", reqs[0].Path)
		assert.JSONEq(t, `{"commit":"c1","message":"go"}`, string(reqs[0].Body))
	}
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":true,"data":{"deployment_id":7,"commit":{"sha":"c1"},"previewUrl":"https://h/site/blog/","state":"ready"}}`))
	d, err := newClient(t, srv.URL).Deploy(t.Context(), "blog", &hosting.DeployParams{Message: "go"})
	require.NoError(t, err)
	assert.Equal(t, hosting.Deployment{ID: "7", Commit: "c1", PreviewURL: "https://h/site/blog/", Status: "ready",
		Raw: d.Raw, Response: d.Response}, *d)
	assert.JSONEq(t, `{"message":"go"}`, string(srv.Requests()[0].Body), "no commit is sent when none is given")

	for _, body := range []string{`{"ok":true}`, `{"ok":true,"deployment":{"id":"d1"}}`, `{"ok":true,"url":"https://h/site/blog/"}`} {
		srv := testkit.Record(t, testkit.Answer(http.StatusOK, body))
		_, err := newClient(t, srv.URL).Deploy(t.Context(), "blog", &hosting.DeployParams{Message: "go"})
		assert.ErrorContains(t, testkit.DecodeError(t, err), `"preview_url" is missing`, body)
	}
}

func TestDeploymentsList(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":true,"deployments":[{"id":"d2","commit":"c2","preview_url":"https://h/site/blog/","created_at":"2026-03-01T10:00:00Z"},{"id":"d1"}]}`))
	list, err := newClient(t, srv.URL).Deployments(t.Context(), "blog")
	require.NoError(t, err)
	require.Len(t, list.Deployments, 2)
	assert.Equal(t, "d2", list.Deployments[0].ID)
	assert.Equal(t, "c2", list.Deployments[0].Commit)
	require.NotNil(t, list.Deployments[0].CreatedAt)
	assert.Empty(t, list.Deployments[1].PreviewURL, "a record's members are optional")
	assert.JSONEq(t, `{"id":"d1"}`, string(list.Deployments[1].Raw))

	for _, body := range []string{`{"ok":true}`, `{"ok":true,"deployments":"none"}`, `{"ok":true,"deployments":[1]}`} {
		srv := testkit.Record(t, testkit.Answer(http.StatusOK, body))
		_, err := newClient(t, srv.URL).Deployments(t.Context(), "blog")
		testkit.DecodeError(t, err)
	}
}

func TestCommitReadsTheIDInEveryLikelyShape(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"ok":true,"commit":{"id":"c9","branch":"main","message":"m","parent":"c8"}}`: "c9",
		`{"ok":true,"commit":"c9"}`:                  "c9",
		`{"ok":true,"sha":"c9"}`:                     "c9",
		`{"ok":true,"data":{"commit_id":"c9"}}`:      "c9",
		`{"ok":true,"result":{"hash":"c9"}}`:         "c9",
		`{"ok":true}`:                                "",
		`{"ok":true,"commit":{"id":42,"parent":{}}}`: "42",
	} {
		srv := testkit.Record(t, testkit.Answer(http.StatusCreated, body))
		cm, err := newClient(t, srv.URL).Commit(t.Context(), "blog", &hosting.CommitParams{Message: "m", Branch: "main"})
		require.NoError(t, err, body)
		assert.Equal(t, want, cm.ID, body)
		assert.Equal(t, "m", cm.Message, body)
		assert.Equal(t, "main", cm.Branch, body)
		assert.JSONEq(t, `{"message":"m","branch":"main"}`, string(srv.Requests()[0].Body))
	}
}

func TestCreateRepoAndCreateBranchFillWhatTheAnswerDoesNotCarry(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusCreated, `{"ok":true}`))
	c := newClient(t, srv.URL)
	repo, err := c.CreateRepo(t.Context(), &hosting.CreateRepoParams{Name: "blog", Description: "my blog"})
	require.NoError(t, err)
	assert.Equal(t, "blog", repo.Name)
	assert.Equal(t, "my blog", repo.Description)
	assert.Equal(t, hosting.Public, repo.Visibility)
	assert.JSONEq(t, `{"name":"blog","description":"my blog","visibility":"public"}`, string(srv.Requests()[0].Body))
	assert.Equal(t, "application/json", srv.Requests()[0].Header.Get("Content-Type"))

	br, err := c.CreateBranch(t.Context(), "blog", &hosting.CreateBranchParams{Branch: "preview"})
	require.NoError(t, err)
	assert.Equal(t, "preview", br.Name)
	assert.Equal(t, "/api/v1/repos/blog/branches", srv.Requests()[1].Path)
	assert.JSONEq(t, `{"branch":"preview"}`, string(srv.Requests()[1].Body))

	srv = testkit.Record(t, testkit.Answer(http.StatusCreated, `{"ok":true,"branch":{"name":"preview","commit":"c3"},"repo":{"name":"blog","owner":"ann","visibility":"private"}}`))
	c = newClient(t, srv.URL)
	br, err = c.CreateBranch(t.Context(), "blog", &hosting.CreateBranchParams{Branch: "preview", From: "main"})
	require.NoError(t, err)
	assert.Equal(t, "c3", br.Commit)
	assert.JSONEq(t, `{"branch":"preview","from":"main"}`, string(srv.Requests()[0].Body))
	repo, err = c.CreateRepo(t.Context(), &hosting.CreateRepoParams{Name: "blog", Visibility: "private"})
	require.NoError(t, err)
	assert.Equal(t, "ann", repo.Owner)
	assert.Equal(t, hosting.Visibility("private"), repo.Visibility)
	assert.JSONEq(t, `{"name":"blog","visibility":"private"}`, string(srv.Requests()[1].Body))
}

// TestFileSizesAreFiniteOrAbsent: NaN and infinities are never values; a file size that is
// not a finite number, as text or as an out-of-range JSON number, is absent.
func TestFileSizesAreFiniteOrAbsent(t *testing.T) {
	t.Parallel()
	for _, v := range []string{`"NaN"`, `"Infinity"`, `"inf"`, `"1e999"`, `1e999`, `-1e999`} {
		srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":true,"files":[{"path":"a.txt","size":`+v+`}],"branches":[],"head":null}`))
		info, err := newClient(t, srv.URL).Repo(t.Context(), "blog")
		require.NoError(t, err, v)
		f, ok := info.File("a.txt")
		require.True(t, ok, v)
		assert.Nil(t, f.Size, v)
	}
}
