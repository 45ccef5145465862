package hosting_test

import (
	"context"
	"io/fs"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/hosting/hostingtest"
	"github.com/agentapis/sdk/internal/testkit"
)

func TestDeployDirRefusesBadInputBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":true}`))
	c := newClient(t, srv.URL)
	ctx := t.Context()
	site := fstest.MapFS{"index.html": {Data: []byte("<p>hi</p>")}}
	for _, tc := range []struct {
		repo  string
		fsys  fstest.MapFS
		opts  *hosting.DeployDirParams
		field string
	}{
		{"", site, nil, "name"},
		{"a/b", site, nil, "name"},
		{"blog", fstest.MapFS{}, nil, "fsys"},
		{"blog", fstest.MapFS{"empty": {Mode: fs.ModeDir | 0o755}}, nil, "fsys"},
		{"blog", site, &hosting.DeployDirParams{Concurrency: -1}, "concurrency"},
		{"blog", site, &hosting.DeployDirParams{Concurrency: hosting.MaxConcurrency + 1}, "concurrency"},
		{"blog", site, &hosting.DeployDirParams{Message: " "}, "message"},
		{"blog", site, &hosting.DeployDirParams{Branch: "a\x00"}, "branch"},
		{"blog", fstest.MapFS{"index.html": {}, `css\site.css`: {}}, nil, "path"},
		{"blog", fstest.MapFS{"index.html": {}, "a\nb.txt": {}}, nil, "path"},
	} {
		_, err := c.DeployDir(ctx, tc.repo, tc.fsys, tc.opts)
		ve := testkit.ValidationError(t, err)
		assert.Equal(t, tc.field, ve.Field, "%v", err)
	}
	_, err := c.DeployDir(ctx, "blog", fstest.MapFS{"index.html": {}, `css\site.css`: {}}, nil)
	assert.ErrorContains(t, err, `"css\\site.css" in the folder`, "the offending file is named")
	_, err = c.DeployDir(ctx, "blog", nil, nil)
	assert.Equal(t, "fsys", testkit.ValidationError(t, err).Field)
	assert.Empty(t, srv.Requests())
}

// mapFS returns files as an fs.FS.
func mapFS(files map[string][]byte) fstest.MapFS {
	m := fstest.MapFS{}
	for p, data := range files {
		m[p] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return m
}

// assertPublished checks that every file is served by the site byte for byte.
func assertPublished(t *testing.T, site string, files map[string][]byte) {
	t.Helper()
	for path, data := range files {
		status, _, body := fetch(t, site+path)
		require.Equal(t, http.StatusOK, status, path)
		require.Equal(t, nonNil(data), body, "%s published byte for byte", path)
	}
}

// inFlight is a transport that counts the requests under way and remembers the most.
type inFlight struct {
	next      http.RoundTripper
	mu        sync.Mutex
	now, most int
}

// RoundTrip counts req while it is under way.
func (f *inFlight) RoundTrip(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	f.now++
	f.most = max(f.most, f.now)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.now--
		f.mu.Unlock()
	}()
	return f.next.RoundTrip(req)
}

func TestDeployDirPublishesAFolderByteExact(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithCDNBlockRawHTML(), hostingtest.WithLatency(5*time.Millisecond)))
	counter := &inFlight{next: http.DefaultTransport}
	c := fakeClient(t, srv, hosting.WithHTTPClient(&http.Client{Transport: counter}))
	ctx := t.Context()
	_, err := c.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "blog"})
	require.NoError(t, err)
	files := bigSite(40, "v1")
	maps.Copy(files, siteFiles)
	var total int64
	for _, data := range files {
		total += int64(len(data))
	}

	var progress []hosting.Progress
	res, err := c.DeployDir(ctx, "blog", mapFS(files), &hosting.DeployDirParams{
		Concurrency: 4,
		Progress:    func(p hosting.Progress) { progress = append(progress, p) },
	})
	require.NoError(t, err)
	assert.Len(t, res.Uploaded, len(files))
	assert.True(t, slices.IsSorted(res.Uploaded))
	assert.Empty(t, res.Unchanged)
	assert.Empty(t, res.Deleted)
	assert.Equal(t, srv.URL+"/site/blog/", res.SiteURL)
	assert.Equal(t, res.SiteURL, res.Deployment.PreviewURL)
	assert.Equal(t, res.Commit.ID, res.Deployment.Commit)
	assert.Equal(t, "Deploy 47 files", res.Commit.Message)
	assertPublished(t, res.SiteURL, files)

	require.Len(t, progress, len(files))
	for i, p := range progress {
		assert.Equal(t, i+1, p.FilesDone)
		assert.Equal(t, len(files), p.FilesTotal)
		assert.Equal(t, total, p.BytesTotal)
		assert.Equal(t, hosting.ActionUploaded, p.Action)
	}
	assert.Equal(t, total, progress[len(progress)-1].BytesDone)

	st := srv.Stats()
	assert.Equal(t, len(files), st.PutWrites)
	assert.Equal(t, 1, st.Commits)
	assert.Equal(t, 1, st.Deploys)
	assert.Zero(t, testkit.CountStatus(srv.Requests(), http.StatusForbidden), "markup always travels as content_base64")
	assert.Equal(t, 4, counter.most, "the uploads run 4 at a time, never more")
}

func TestDeployDirSendsOnlyWhatChangedAndPrunes(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	c := fakeClient(t, srv)
	ctx := t.Context()
	_, err := c.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "blog"})
	require.NoError(t, err)
	files := maps.Clone(siteFiles)
	_, err = c.DeployDir(ctx, "blog", mapFS(files), nil)
	require.NoError(t, err)

	res, err := c.DeployDir(ctx, "blog", mapFS(files), nil)
	require.NoError(t, err)
	assert.Empty(t, res.Uploaded)
	assert.Len(t, res.Unchanged, len(files))
	assert.Equal(t, len(files), srv.Stats().PutWrites, "nothing was sent again")
	assert.Equal(t, 2, srv.Stats().Deploys, "the commit and the deployment are made all the same")

	files["css/site.css"] = []byte("body { margin: 1em }\n")
	files["about.html"] = []byte("<h1>About</h1>")
	delete(files, "notes.txt")
	res, err = c.DeployDir(ctx, "blog", mapFS(files), &hosting.DeployDirParams{Prune: true, Message: "update"})
	require.NoError(t, err)
	assert.Equal(t, []string{"about.html", "css/site.css"}, res.Uploaded)
	assert.Equal(t, []string{"notes.txt"}, res.Deleted)
	assert.Len(t, res.Unchanged, len(files)-2)
	assert.Equal(t, "update", res.Deployment.Message)
	assertPublished(t, res.SiteURL, files)
	status, _, _ := fetch(t, res.SiteURL+"notes.txt")
	assert.Equal(t, http.StatusNotFound, status, "a pruned file is gone from the site")
	assert.Equal(t, 1, srv.Stats().Deletes)

	delete(files, "about.html")
	res, err = c.DeployDir(ctx, "blog", mapFS(files), nil)
	require.NoError(t, err)
	assert.Empty(t, res.Deleted, "without Prune nothing is deleted")
	status, _, _ = fetch(t, res.SiteURL+"about.html")
	assert.Equal(t, http.StatusOK, status)
}

func TestDeployDirWithFailingWritesCommitsAllOrNothing(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithWriteFailures(0.10, 7)))
	c := fakeClient(t, srv)
	ctx := t.Context()
	_, err := c.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "big"})
	require.NoError(t, err)
	files := bigSite(300, "v1")

	var lastFailed []string
	var failedRuns int
	for run := 1; ; run++ {
		require.LessOrEqual(t, run, 10, "the deployment should complete within 10 runs")
		before := len(srv.Requests())
		res, err := c.DeployDir(ctx, "big", mapFS(files), nil)
		sent := writtenSince(srv, "big", before)
		if run > 1 {
			assert.ElementsMatch(t, lastFailed, sent, "run %d sends only what was missing", run)
		}
		if err == nil {
			assertPublished(t, res.SiteURL, files)
			assert.Equal(t, 1, srv.Stats().Commits)
			assert.Equal(t, 1, srv.Stats().Deploys)
			if run > 1 {
				assert.ElementsMatch(t, lastFailed, res.Uploaded)
				assert.Len(t, res.Unchanged, len(files)-len(lastFailed))
			}
			break
		}
		failedRuns++
		var ue *hosting.UploadError
		require.ErrorAs(t, err, &ue)
		require.NotEmpty(t, ue.Files)
		assert.Equal(t, "big", ue.Repo)
		assert.True(t, slices.IsSortedFunc(ue.Files, func(a, b hosting.FileError) int { return strings.Compare(a.Path, b.Path) }))
		for _, f := range ue.Files {
			assert.Equal(t, "upload", f.Op)
			status := testkit.APIError(t, f.Err).StatusCode
			assert.Contains(t, []int{http.StatusInternalServerError, http.StatusServiceUnavailable}, status, f.Path)
			assert.Contains(t, err.Error(), f.Path)
		}
		assert.Equal(t, ue.Paths(), pathsOf(ue.Files))
		assert.Equal(t, len(files), ue.Done+len(ue.Files), "every file is either done or failed")
		assert.Zero(t, srv.Stats().Commits, "nothing is committed while a file failed")
		assert.Zero(t, srv.Stats().Deploys)
		status, _, _ := fetch(t, srv.URL+"/site/big/")
		assert.Equal(t, http.StatusNotFound, status, "nothing is published")
		t.Logf("run %d: %d files failed", run, len(ue.Files))
		lastFailed = ue.Paths()
	}
	assert.GreaterOrEqual(t, failedRuns, 1, "with 10%% of writes failing, 300 files do not all pass at once")
	assert.Positive(t, srv.Stats().FailedWrites)
}

// writtenSince returns the paths of the file writes to repo that srv received after its first
// n requests, each once.
func writtenSince(srv *hostingtest.Server, repo string, n int) []string {
	prefix := "/api/v1/repos/" + repo + "/files/"
	seen := map[string]bool{}
	var out []string
	for _, r := range srv.Requests()[n:] {
		path, ok := strings.CutPrefix(r.Path, prefix)
		if ok && (r.Method == http.MethodPut || r.Method == http.MethodPost) && !seen[path] {
			seen[path] = true
			out = append(out, path)
		}
	}
	return out
}

// pathsOf returns the paths of files.
func pathsOf(files []hosting.FileError) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out
}

func TestDeployDirCancelledCommitsNothing(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithLatency(10*time.Millisecond)))
	c := fakeClient(t, srv)
	_, err := c.CreateRepo(t.Context(), &hosting.CreateRepoParams{Name: "big"})
	require.NoError(t, err)
	files := bigSite(60, "v1")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	res, err := c.DeployDir(ctx, "big", mapFS(files), &hosting.DeployDirParams{
		Concurrency: 2,
		Progress: func(p hosting.Progress) {
			if p.FilesDone == 5 {
				cancel()
			}
		},
	})
	assert.Nil(t, res)
	var ue *hosting.UploadError
	require.ErrorAs(t, err, &ue)
	assert.ErrorIs(t, err, context.Canceled)
	assert.GreaterOrEqual(t, ue.Done, 5)
	assert.Equal(t, len(files), ue.Done+len(ue.Files), "every file not done is listed")
	assert.Zero(t, srv.Stats().Commits)
	assert.Zero(t, srv.Stats().Deploys)
	assert.Less(t, srv.Stats().PutWrites, len(files))
}

func TestDeployDirToABranch(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	c := fakeClient(t, srv)
	ctx := t.Context()
	_, err := c.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "site"})
	require.NoError(t, err)
	live := map[string][]byte{"index.html": []byte("<p>live</p>")}
	_, err = c.DeployDir(ctx, "site", mapFS(live), nil)
	require.NoError(t, err)
	_, err = c.CreateBranch(ctx, "site", &hosting.CreateBranchParams{Branch: "preview"})
	require.NoError(t, err)

	preview := map[string][]byte{"index.html": []byte("<p>preview</p>")}
	res, err := c.DeployDir(ctx, "site", mapFS(preview), &hosting.DeployDirParams{Branch: "preview"})
	require.NoError(t, err)
	assert.Equal(t, "preview", res.Commit.Branch)
	head, ok := srv.Head("site", "preview")
	require.True(t, ok)
	assert.Equal(t, head, res.Deployment.Commit, "the branch's new commit is deployed, not the default branch")
	assertPublished(t, res.SiteURL, preview)
	mainHead, _ := srv.Head("site", "main")
	assert.NotEqual(t, head, mainHead)
}

func TestDeployDirThroughAStrippingGatewayAndACDNBlockingPUT(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithGatewayStripsAuthorization(), hostingtest.WithCDNBlockPUT()))
	c := fakeClient(t, srv)
	ctx := t.Context()
	_, err := c.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "site"})
	require.NoError(t, err)
	res, err := c.DeployDir(ctx, "site", mapFS(siteFiles), nil)
	require.NoError(t, err)
	assertPublished(t, res.SiteURL, siteFiles)
	st := c.GatewayRemedies()
	assert.Equal(t, hosting.TokenHeader, st.TokenHeader)
	assert.Equal(t, int64(1), st.TokenHeaderRetries)
	assert.Equal(t, int64(len(siteFiles)), st.BlockedPutRetries)
	assert.Equal(t, len(siteFiles), srv.Stats().PostWrites)
}

func TestDeployDirOfAMissingRepositoryWritesNothing(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	c := fakeClient(t, srv)
	_, err := c.DeployDir(t.Context(), "nope", mapFS(siteFiles), nil)
	assert.Equal(t, http.StatusNotFound, testkit.APIError(t, err).StatusCode)
	assert.Len(t, srv.Requests(), 1, "only the file list was asked for")
}
