package hosting_test

import (
	"io/fs"
	"net/http"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"

	"github.com/agentapis/sdk/hosting"
)

func TestDeployDirRefusesBadInputBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	srv := serve(t, answer(http.StatusOK, `{"ok":true}`))
	c := newClient(t, srv.URL)
	ctx := t.Context()
	site := fstest.MapFS{"index.html": {Data: []byte("<p>hi</p>")}}
	for _, tc := range []struct {
		repo  string
		fsys  fstest.MapFS
		opts  *hosting.DeployDirOptions
		field string
	}{
		{"", site, nil, "name"},
		{"a/b", site, nil, "name"},
		{"blog", fstest.MapFS{}, nil, "fsys"},
		{"blog", fstest.MapFS{"empty": {Mode: fs.ModeDir | 0o755}}, nil, "fsys"},
		{"blog", site, &hosting.DeployDirOptions{Concurrency: -1}, "concurrency"},
		{"blog", site, &hosting.DeployDirOptions{Concurrency: hosting.MaxConcurrency + 1}, "concurrency"},
		{"blog", site, &hosting.DeployDirOptions{Message: " "}, "message"},
		{"blog", site, &hosting.DeployDirOptions{Branch: "a\x00"}, "branch"},
		{"blog", fstest.MapFS{"index.html": {}, `css\site.css`: {}}, nil, "path"},
		{"blog", fstest.MapFS{"index.html": {}, "a\nb.txt": {}}, nil, "path"},
	} {
		_, err := c.DeployDir(ctx, tc.repo, tc.fsys, tc.opts)
		ve := validationError(t, err)
		assert.Equal(t, tc.field, ve.Field, "%v", err)
	}
	_, err := c.DeployDir(ctx, "blog", fstest.MapFS{"index.html": {}, `css\site.css`: {}}, nil)
	assert.ErrorContains(t, err, `"css\\site.css" in the folder`, "the offending file is named")
	_, err = c.DeployDir(ctx, "blog", nil, nil)
	assert.Equal(t, "fsys", validationError(t, err).Field)
	assert.Empty(t, srv.requests())
}
