package hostingtest_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting/hostingtest"
	"github.com/agentapis/sdk/internal/testkit"
)

func TestBlobSHAIsGitsHash(t *testing.T) {
	t.Parallel()
	// git hash-object of "hello\n" and of the empty file.
	assert.Equal(t, "ce013625030ba8dba906f756967f9e9ca394464a", hostingtest.BlobSHA([]byte("hello\n")))
	assert.Equal(t, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", hostingtest.BlobSHA(nil))
}

func TestFilesRoundTripByteForByte(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	createRepo(t, srv, "r")

	binary := make([]byte, 256)
	for i := range binary {
		binary[i] = byte(i)
	}
	html := []byte("<!DOCTYPE html>\n<html><head><title>T</title></head><body>é &amp; ✓</body></html>\r\n")
	text := []byte("line one\r\nline two\ttab \u2028 \x00 nul and emoji 🙂\n")
	files := []struct {
		path     string
		data     []byte
		encoding string // how it is sent
		answered string // how GET answers it
	}{
		{"readme.txt", text, "content", "content"},
		{"empty.txt", nil, "content", "content"},
		{"index.html", html, "content_base64", "content"},
		{"img/pixel.bin", binary, "content_base64", "content_base64"},
		{"deep/a/b/c/d.json", []byte(`{"k":[1,2]}`), "content", "content"},
	}
	for _, f := range files {
		value := string(f.data)
		if f.encoding == "content_base64" {
			value = base64.StdEncoding.EncodeToString(f.data)
		}
		a := mustOK(t, srv, "PUT", "/api/v1/repos/r/files/"+f.path, fmt.Sprintf(`{%q:%s}`, f.encoding, jsonString(value)))
		assert.Equal(t, map[string]any{"ok": true, "path": f.path, "size": float64(len(f.data)), "sha": gitBlobSHA(f.data)}, a.JSON, f.path)
	}

	for _, f := range files {
		stored, ok := srv.File("r", f.path)
		require.True(t, ok, f.path)
		assert.Equal(t, string(f.data), string(stored), f.path)

		a := mustOK(t, srv, "GET", "/api/v1/repos/r/files/"+f.path, "")
		assert.Equal(t, f.path, a.JSON["path"])
		assert.Equal(t, float64(len(f.data)), a.JSON["size"])
		assert.Equal(t, gitBlobSHA(f.data), a.JSON["sha"])
		other := map[string]string{"content": "content_base64", "content_base64": "content"}[f.answered]
		assert.NotContains(t, a.JSON, other, f.path)
		got := a.JSON[f.answered].(string)
		if f.answered == "content_base64" {
			decoded, err := base64.StdEncoding.DecodeString(got)
			require.NoError(t, err)
			got = string(decoded)
		}
		assert.Equal(t, string(f.data), got, f.path)
	}
	assert.Contains(t, string(mustOK(t, srv, "GET", "/api/v1/repos/r/files/index.html", "").Body), "<!DOCTYPE html>",
		"markup is not escaped in answers")

	a := mustOK(t, srv, "GET", "/api/v1/repos/r", "")
	listed := a.List(t, "files")
	require.Len(t, listed, len(files))
	paths := []string{}
	for _, entry := range listed {
		paths = append(paths, entry["path"].(string))
		stored, _ := srv.File("r", entry["path"].(string))
		assert.Equal(t, map[string]any{"path": entry["path"], "size": float64(len(stored)), "sha": gitBlobSHA(stored)}, entry)
	}
	assert.Equal(t, []string{"deep/a/b/c/d.json", "empty.txt", "img/pixel.bin", "index.html", "readme.txt"}, paths)
	assert.Equal(t, paths, srv.Files("r"))
}

func TestPostWritesLikePutAndOverwrites(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	createRepo(t, srv, "r")
	mustOK(t, srv, "PUT", "/api/v1/repos/r/files/a.txt", `{"content":"one"}`)
	mustOK(t, srv, "POST", "/api/v1/repos/r/files/a.txt", `{"content_base64":"dHdv"}`)
	got, _ := srv.File("r", "a.txt")
	assert.Equal(t, "two", string(got))
	mustOK(t, srv, "POST", "/api/v1/repos/r/files/b.txt", `{"content":"b","path":"b.txt"}`)
	st := srv.Stats()
	assert.Equal(t, 1, st.PutWrites)
	assert.Equal(t, 2, st.PostWrites)
	encodings := []string{}
	for _, r := range srv.Exchanges() {
		if strings.Contains(r.Path, "/files/") {
			encodings = append(encodings, r.Method+" "+r.Encoding)
		}
	}
	assert.Equal(t, []string{"PUT content", "POST content_base64", "POST content"}, encodings)
}

func TestEscapedPathsAreDecoded(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	createRepo(t, srv, "r")
	mustOK(t, srv, "PUT", "/api/v1/repos/r/files/my%20docs/caf%C3%A9%20%231.txt", `{"content":"x"}`)
	mustOK(t, srv, "PUT", "/api/v1/repos/r/files/a%2Fb.txt", `{"content":"y"}`)
	assert.Equal(t, []string{"a/b.txt", "my docs/café #1.txt"}, srv.Files("r"))
	a := mustOK(t, srv, "GET", "/api/v1/repos/r/files/my%20docs/caf%C3%A9%20%231.txt", "")
	assert.Equal(t, "my docs/café #1.txt", a.JSON["path"])
	assert.Equal(t, "x", a.JSON["content"])
}

func TestUnsafeFilePathsAreRefused(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	createRepo(t, srv, "r")
	for _, p := range []string{
		"", "..", "../x", "a/../b", "a/..", "%2E%2E/x", "a/%2e%2e/b", ".", "./a", "a/./b",
		"/a", "%2Fa", "a//b", "a/", "a%5Cb", "a%5C..%5Cb", "a%00b", "a%0Ab", "a%1Fb", "%FF.txt",
	} {
		path := "/api/v1/repos/r/files/" + p
		for _, method := range []string{"PUT", "POST", "GET", "DELETE"} {
			body := ""
			if method == "PUT" || method == "POST" {
				body = `{"content":"x"}`
			}
			a := call(t, srv, hostingtest.DefaultToken, method, path, body)
			assert.Equal(t, 400, a.Status, "%s %q", method, p)
			assert.Contains(t, errorText(t, a), "path", "%s %q", method, p)
		}
	}
	a := call(t, srv, hostingtest.DefaultToken, "GET", "/api/v1/repos/r/files", "")
	assert.Equal(t, 400, a.Status, "a file address without a path")
	assert.Contains(t, errorText(t, a), "path")
	assert.Empty(t, srv.Files("r"))
	assert.Zero(t, srv.Stats().PutWrites+srv.Stats().PostWrites)
}

func TestFileWriteBodiesAreChecked(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	createRepo(t, srv, "r")
	cases := map[string]struct{ body, mention string }{
		"both":                  {`{"content":"a","content_base64":"YQ=="}`, "not both"},
		"neither":               {`{}`, "content"},
		"both null":             {`{"content":null,"content_base64":null}`, "content"},
		"misspelt member":       {`{"contents":"a"}`, `"contents"`},
		"capitalised member":    {`{"Content":"a"}`, `"Content"`},
		"content number":        {`{"content":5}`, "content"},
		"content object":        {`{"content":{"text":"a"}}`, "content"},
		"url alphabet":          {`{"content_base64":"-_8="}`, "content_base64"},
		"no padding":            {`{"content_base64":"YQ"}`, "content_base64"},
		"not base64":            {`{"content_base64":"not base64!"}`, "content_base64"},
		"non-zero padding bits": {`{"content_base64":"YR=="}`, "content_base64"},
		"other path":            {`{"content":"a","path":"b.txt"}`, "path"},
		"not JSON":              {`content=a`, "JSON"},
	}
	for label, tc := range cases {
		a := call(t, srv, hostingtest.DefaultToken, "PUT", "/api/v1/repos/r/files/a.txt", tc.body)
		assert.Equal(t, 400, a.Status, label)
		assert.Contains(t, errorText(t, a), tc.mention, label)
	}
	a := send(t, srv, "PUT", "/api/v1/repos/r/files/a.txt", `{"content":"a"}`,
		map[string]string{"Authorization": "Bearer " + hostingtest.DefaultToken, "Content-Type": "text/plain"})
	assert.Equal(t, 415, a.Status)
	assert.Empty(t, srv.Files("r"), "nothing was stored")

	a = call(t, srv, hostingtest.DefaultToken, "PUT", "/api/v1/repos/none/files/a.txt", `{"content":"a"}`)
	assert.Equal(t, 404, a.Status)
}

func TestDeleteFile(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	createRepo(t, srv, "r")
	mustOK(t, srv, "PUT", "/api/v1/repos/r/files/a/b.txt", `{"content":"x"}`)
	mustOK(t, srv, "PUT", "/api/v1/repos/r/files/c.txt", `{"content":"y"}`)
	a := mustOK(t, srv, "DELETE", "/api/v1/repos/r/files/a/b.txt", "")
	assert.JSONEq(t, `{"ok":true,"path":"a/b.txt"}`, string(a.Body))
	assert.Equal(t, []string{"c.txt"}, srv.Files("r"))
	_, ok := srv.File("r", "a/b.txt")
	assert.False(t, ok)

	a = call(t, srv, hostingtest.DefaultToken, "DELETE", "/api/v1/repos/r/files/a/b.txt", "")
	assert.Equal(t, 404, a.Status)
	assert.Contains(t, errorText(t, a), "file not found")
	a = call(t, srv, hostingtest.DefaultToken, "GET", "/api/v1/repos/r/files/a/b.txt", "")
	assert.Equal(t, 404, a.Status)
	assert.Equal(t, 1, srv.Stats().Deletes)
}
