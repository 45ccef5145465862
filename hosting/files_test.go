package hosting_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/internal/logbuf"
	"github.com/agentapis/sdk/internal/testkit"
)

func TestContentEncodingRules(t *testing.T) {
	t.Parallel()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for _, tc := range []struct {
		path string
		data string
		want hosting.Encoding
	}{
		{"style.css", "body { color: red }\n", hosting.EncodingText},
		{"app.js", "if (a < b && c > d) { go() }", hosting.EncodingText},
		{"notes.md", "# Título\n\nÜnïcödé ✓", hosting.EncodingText},
		{"empty.txt", "", hosting.EncodingText},
		{"index.html", "plain words", hosting.EncodingBase64},
		{"page.HTM", "x", hosting.EncodingBase64},
		{"doc.xhtml", "x", hosting.EncodingBase64},
		{"feed.xml", "x", hosting.EncodingBase64},
		{"img/logo.svg", "x", hosting.EncodingBase64},
		{"photo.JPG", "valid utf-8 bytes", hosting.EncodingBase64},
		{"font.woff2", "x", hosting.EncodingBase64},
		{"logo.png", string(png), hosting.EncodingBase64},
		{"data.bin2", "\xff\xfe\x00", hosting.EncodingBase64},
		{"nul.txt", "a\x00b", hosting.EncodingBase64},
		{"latin1.txt", "caf\xe9", hosting.EncodingBase64},
		{"readme.txt", "<!DOCTYPE html><p>hi</p>", hosting.EncodingBase64},
		{"snippet.txt", "  <html><body>x</body></html>", hosting.EncodingBase64},
		{"post.md", "Intro\n\n<SCRIPT>alert(1)</SCRIPT>", hosting.EncodingBase64},
		{"data.json", `{"svg":"<svg viewBox='0 0 1 1'/>"}`, hosting.EncodingBase64},
		{"noext", "<?xml version=\"1.0\"?><a/>", hosting.EncodingBase64},
		{"math.txt", "a<b, c<d", hosting.EncodingText},
	} {
		assert.Equal(t, tc.want, hosting.ContentEncoding(tc.path, []byte(tc.data)), "%s %q", tc.path, tc.data)
	}
}

func TestPutFileSendsTextAndBase64ToTheEscapedPath(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":true,"path":"x","size":4,"sha":"0123456789abcdef0123456789abcdef01234567"}`))
	c := newClient(t, srv.URL)

	w, err := c.PutFile(t.Context(), "blog", "css/site main.css", []byte("a{}\n"))
	require.NoError(t, err)
	assert.Equal(t, hosting.EncodingText, w.Encoding)
	assert.Equal(t, http.MethodPut, w.Method)
	assert.Equal(t, "css/site main.css", w.Path)
	require.NotNil(t, w.Size)
	assert.Equal(t, int64(4), *w.Size)
	assert.Equal(t, "0123456789abcdef0123456789abcdef01234567", w.SHA)

	html := []byte("<!doctype html><title>Hi</title>")
	w, err = c.PutFile(t.Context(), "blog", "a?b#c/index.html", html)
	require.NoError(t, err)
	assert.Equal(t, hosting.EncodingBase64, w.Encoding)

	img := []byte{0x89, 'P', 'N', 'G', 0, 1, 2, 0xff}
	_, err = c.PutFile(t.Context(), "my blog", "img/€.png", img)
	require.NoError(t, err)

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, http.MethodPut, reqs[0].Method)
	assert.Equal(t, "/api/v1/repos/blog/files/css/site%20main.css", reqs[0].Path)
	assert.Equal(t, "application/json", reqs[0].Header.Get("Content-Type"))
	assert.Equal(t, map[string]any{"content": "a{}\n"}, jsonBody(t, reqs[0].Body))

	assert.Equal(t, "/api/v1/repos/blog/files/a%3Fb%23c/index.html", reqs[1].Path, "each segment is escaped on its own")
	assert.Empty(t, reqs[1].Query.Encode())
	assert.Equal(t, map[string]any{"content_base64": base64.StdEncoding.EncodeToString(html)}, jsonBody(t, reqs[1].Body))
	assert.NotContains(t, string(reqs[1].Body), "<", "no raw markup in the body")

	assert.Equal(t, "/api/v1/repos/my%20blog/files/img/%E2%82%AC.png", reqs[2].Path)
	assert.Equal(t, map[string]any{"content_base64": base64.StdEncoding.EncodeToString(img)}, jsonBody(t, reqs[2].Body))
}

func TestPutFileOfAnEmptyFileSendsAnEmptyContent(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":true}`))
	c := newClient(t, srv.URL)
	_, err := c.PutFile(t.Context(), "blog", ".nojekyll", nil)
	require.NoError(t, err)
	_, err = c.PutFile(t.Context(), "blog", "empty.png", []byte{})
	require.NoError(t, err)
	reqs := srv.Requests()
	assert.JSONEq(t, `{"content":""}`, string(reqs[0].Body), "the member is present even when empty")
	assert.JSONEq(t, `{"content_base64":""}`, string(reqs[1].Body))
}

func TestPathAndNameValidationSendsNothing(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":true}`))
	c := newClient(t, srv.URL)
	ctx := t.Context()
	for _, path := range []string{"", "/index.html", "../secret", "a/../../b", "a/..", "./a", "a/./b", `a\b.txt`, "a\x00b", "a//b", "dir/", "a\nb", "bad\xffutf8"} {
		_, err := c.PutFile(ctx, "blog", path, []byte("x"))
		ve := testkit.ValidationError(t, err)
		assert.Equal(t, "path", ve.Field, "%q", path)
		assert.Equal(t, "hosting", ve.Service)
		_, err = c.File(ctx, "blog", path)
		assert.Equal(t, "path", testkit.ValidationError(t, err).Field, "%q", path)
		_, err = c.DeleteFile(ctx, "blog", path)
		assert.Equal(t, "path", testkit.ValidationError(t, err).Field, "%q", path)
	}
	for _, name := range []string{"", ".", "..", "a/b", `a\b`, "a\x00", "a\tb"} {
		_, err := c.Repo(ctx, name)
		assert.Equal(t, "name", testkit.ValidationError(t, err).Field, "%q", name)
		_, err = c.PutFile(ctx, name, "index.html", []byte("x"))
		assert.Equal(t, "name", testkit.ValidationError(t, err).Field, "%q", name)
		_, err = c.CreateRepo(ctx, &hosting.CreateRepoParams{Name: name})
		assert.Equal(t, "name", testkit.ValidationError(t, err).Field, "%q", name)
		_, err = c.Deploy(ctx, name, &hosting.DeployParams{Message: "m"})
		assert.Equal(t, "name", testkit.ValidationError(t, err).Field, "%q", name)
	}
	for _, tc := range []struct {
		err   error
		field string
	}{
		{second(c.CreateRepo(ctx, nil)), "name"},
		{second(c.Commit(ctx, "blog", nil)), "message"},
		{second(c.Commit(ctx, "blog", &hosting.CommitParams{})), "message"},
		{second(c.Commit(ctx, "blog", &hosting.CommitParams{Message: "  "})), "message"},
		{second(c.Commit(ctx, "blog", &hosting.CommitParams{Message: "m", Branch: "a\x00"})), "branch"},
		{second(c.Deploy(ctx, "blog", &hosting.DeployParams{})), "message"},
		{second(c.Deploy(ctx, "blog", &hosting.DeployParams{Message: "m", Commit: " "})), "commit"},
		{second(c.CreateBranch(ctx, "blog", nil)), "branch"},
		{second(c.CreateBranch(ctx, "blog", &hosting.CreateBranchParams{From: "main"})), "branch"},
		{second(c.CreateBranch(ctx, "blog", &hosting.CreateBranchParams{Branch: "b", From: "\x01"})), "from"},
	} {
		assert.Equal(t, tc.field, testkit.ValidationError(t, tc.err).Field, "%v", tc.err)
	}
	assert.Empty(t, srv.Requests(), "nothing is sent for refused input")
}

// second returns the error of a call's two results.
func second[T any](_ T, err error) error { return err }

// blockPage is a CDN's 403 answer.
const blockPage = "<!DOCTYPE html><html><head><title>Access denied</title></head><body>Request blocked by the firewall.</body></html>"

func TestBlockedPutIsResentAsPostWithBase64(t *testing.T) {
	t.Parallel()
	var logs logbuf.Buffer
	srv := testkit.Record(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		if r.Method == http.MethodPut {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(blockPage))
			return
		}
		testkit.Reply(w, http.StatusOK, `{"ok":true,"path":"app.js","size":22}`)
	})
	c := newClient(t, srv.URL, hosting.WithLogger(jsonLogger(&logs)))
	js := []byte(`document.title = "hi";`)
	w, err := c.PutFile(t.Context(), "blog", "js/app.js", js)
	require.NoError(t, err)
	assert.Equal(t, http.MethodPost, w.Method)
	assert.Equal(t, hosting.EncodingBase64, w.Encoding)

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, http.MethodPut, reqs[0].Method)
	assert.Equal(t, map[string]any{"content": string(js)}, jsonBody(t, reqs[0].Body))
	assert.Equal(t, http.MethodPost, reqs[1].Method)
	assert.Equal(t, reqs[0].Path, reqs[1].Path, "the same address")
	assert.Equal(t, map[string]any{"content_base64": base64.StdEncoding.EncodeToString(js)}, jsonBody(t, reqs[1].Body))
	assert.Equal(t, "Bearer "+testToken, reqs[1].Header.Get("Authorization"))

	assert.Equal(t, int64(1), c.GatewayRemedies().BlockedPutRetries)
	out := logs.String()
	assert.Contains(t, out, `"remedy":"POST with content_base64 after a 403 block page to PUT"`)
	assert.Contains(t, out, `"path":"/api/v1/repos/blog/files/js/app.js"`)
	assert.Contains(t, out, `"status":403`)
	assert.NotContains(t, out, testToken)
	assert.NotContains(t, out, "document.title", "bodies are never logged")
}

func TestServiceRefusalWithJSONIsNotABlockPage(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusForbidden, `{"ok":false,"error":"repository belongs to another account"}`))
	c := newClient(t, srv.URL)
	_, err := c.PutFile(t.Context(), "blog", "a.txt", []byte("x"))
	ae := testkit.APIError(t, err)
	assert.Equal(t, "repository belongs to another account", ae.Message)
	assert.ErrorIs(t, err, hosting.ErrForbidden)
	assert.NotErrorIs(t, err, hosting.ErrBlocked, "the service's own refusal is no block page")
	assert.Len(t, srv.Requests(), 1)
	assert.Zero(t, c.GatewayRemedies().BlockedPutRetries)
}

func TestBlockedPostIsReturnedAfterOneResend(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		w.WriteHeader(http.StatusForbidden) // no Content-Type: the body tells
		_, _ = w.Write([]byte(blockPage))
	})
	c := newClient(t, srv.URL, withFastRetry)
	_, err := c.PutFile(t.Context(), "blog", "a.txt", []byte("x"))
	ae := testkit.APIError(t, err)
	assert.Equal(t, http.StatusForbidden, ae.StatusCode)
	assert.Equal(t, http.MethodPost, ae.Method)
	assert.Contains(t, err.Error(), "Access denied", "the block page is quoted")
	assert.ErrorIs(t, err, hosting.ErrBlocked)
	assert.ErrorIs(t, err, hosting.ErrForbidden)
	assert.Len(t, srv.Requests(), 2)
}

func TestPutIsRetriedOnGatewayErrorsButCommitIsNot(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
		testkit.Reply(w, http.StatusServiceUnavailable, `{"ok":false,"error":"busy"}`)
	})
	c := newClient(t, srv.URL, withFastRetry)
	_, err := c.PutFile(t.Context(), "blog", "a.txt", []byte("x"))
	ae := testkit.APIError(t, err)
	assert.Equal(t, 4, ae.Attempts)
	assert.Equal(t, "busy", ae.Message)
	_, err = c.Commit(t.Context(), "blog", &hosting.CommitParams{Message: "m"})
	assert.Equal(t, 1, testkit.APIError(t, err).Attempts)
	_, err = c.Deploy(t.Context(), "blog", &hosting.DeployParams{Message: "m"})
	assert.Equal(t, 1, testkit.APIError(t, err).Attempts)
	_, err = c.DeleteFile(t.Context(), "blog", "a.txt")
	assert.Equal(t, 4, testkit.APIError(t, err).Attempts)
	assert.Len(t, srv.Requests(), 4+1+1+4)
}

func TestFileReturnsTheBytesWhicheverWayTheyCome(t *testing.T) {
	t.Parallel()
	bin := []byte{0, 1, 2, 0xfe, 0xff, '<', 'a'}
	b64 := base64.StdEncoding.EncodeToString(bin)
	for _, tc := range []struct {
		body string
		want []byte
		enc  hosting.Encoding
	}{
		{`{"ok":true,"path":"a.txt","size":5,"sha":"0123456789abcdef0123456789abcdef01234567","content":"héllo"}`, []byte("héllo"), hosting.EncodingText},
		{`{"ok":true,"content":""}`, []byte{}, hosting.EncodingText},
		{`{"ok":true,"content_base64":"` + b64 + `"}`, bin, hosting.EncodingBase64},
		{`{"ok":true,"content_base64":"` + strings.TrimRight(b64, "=") + `"}`, bin, hosting.EncodingBase64},
		{`{"ok":true,"content":"` + b64[:4] + `\n` + b64[4:] + `","encoding":"base64"}`, bin, hosting.EncodingBase64},
		{`{"ok":true,"file":{"path":"a.bin","content_base64":"` + b64 + `"}}`, bin, hosting.EncodingBase64},
		{`{"ok":true,"data":{"contentBase64":"` + b64 + `"}}`, bin, hosting.EncodingBase64},
	} {
		srv := testkit.Record(t, testkit.Answer(http.StatusOK, tc.body))
		f, err := newClient(t, srv.URL).File(t.Context(), "blog", "dir/a.bin")
		require.NoError(t, err, tc.body)
		assert.Equal(t, tc.want, f.Content, tc.body)
		assert.Equal(t, tc.enc, f.Encoding, tc.body)
		assert.Equal(t, "dir/a.bin", f.Path)
		assert.Equal(t, "/api/v1/repos/blog/files/dir/a.bin", srv.Requests()[0].Path)
		assert.Equal(t, http.MethodGet, srv.Requests()[0].Method)
	}
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":true,"path":"a.txt","size":5,"sha":"0123456789abcdef0123456789abcdef01234567","content":"héllo"}`))
	f, err := newClient(t, srv.URL).File(t.Context(), "blog", "a.txt")
	require.NoError(t, err)
	require.NotNil(t, f.Size)
	assert.Equal(t, int64(5), *f.Size)
	assert.Equal(t, "0123456789abcdef0123456789abcdef01234567", f.SHA)

	for _, body := range []string{`{"ok":true,"path":"a.txt"}`, `{"ok":true,"content":null}`, `{"ok":true,"content_base64":"***"}`, `{"ok":true,"content":42}`} {
		srv := testkit.Record(t, testkit.Answer(http.StatusOK, body))
		_, err := newClient(t, srv.URL).File(t.Context(), "blog", "a.txt")
		testkit.DecodeError(t, err) // never an empty file
	}
}

func TestDeleteFile(t *testing.T) {
	t.Parallel()
	srv := testkit.Record(t, testkit.Answer(http.StatusOK, `{"ok":true,"path":"old/page.html"}`))
	d, err := newClient(t, srv.URL).DeleteFile(t.Context(), "blog", "old/page.html")
	require.NoError(t, err)
	assert.Equal(t, "old/page.html", d.Path)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, http.MethodDelete, reqs[0].Method)
	assert.Equal(t, "/api/v1/repos/blog/files/old/page.html", reqs[0].Path)
	assert.Empty(t, reqs[0].Body)
}
