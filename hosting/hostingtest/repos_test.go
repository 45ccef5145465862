package hostingtest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting/hostingtest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
)

func TestCreateListAndGetRepositories(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 4, 5, 6, 7, 890_000_000, time.FixedZone("CET", 3600))
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithClock(sdktest.NewClock(at))))

	a := call(t, srv, hostingtest.DefaultToken, "POST", "/api/v1/repos", `{"name":"zeta","description":"the last","visibility":"private"}`)
	require.Equal(t, 201, a.Status, string(a.Body))
	assert.Equal(t, map[string]any{
		"name": "zeta", "description": "the last", "visibility": "private", "owner": hostingtest.DefaultOwner,
		"default_branch": "main", "created_at": "2026-03-04T04:06:07.890Z", "updated_at": "2026-03-04T04:06:07.890Z",
	}, a.Object(t, "repo"))

	a = call(t, srv, hostingtest.DefaultToken, "POST", "/api/v1/repos", `{"name":"alpha"}`)
	require.Equal(t, 201, a.Status, string(a.Body))
	assert.Equal(t, "public", a.Object(t, "repo")["visibility"], "public is the default visibility")
	assert.Equal(t, "", a.Object(t, "repo")["description"])

	a = mustOK(t, srv, "GET", "/api/v1/repos", "")
	repos := a.List(t, "repos")
	require.Len(t, repos, 2)
	assert.Equal(t, "alpha", repos[0]["name"])
	assert.Equal(t, "zeta", repos[1]["name"])

	a = mustOK(t, srv, "GET", "/api/v1/repos/alpha", "")
	assert.Equal(t, "alpha", a.Object(t, "repo")["name"])
	assert.Empty(t, a.List(t, "files"))
	assert.Equal(t, []map[string]any{{"name": "main", "commit": nil}}, a.List(t, "branches"))
	assert.Contains(t, a.JSON, "head")
	assert.Nil(t, a.JSON["head"], "no head before the first commit")
	owner, ok := srv.Owner("alpha")
	assert.True(t, ok)
	assert.Equal(t, hostingtest.DefaultOwner, owner)
}

func TestEmptyRepositoryListIsAnEmptyArray(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	a := mustOK(t, srv, "GET", "/api/v1/repos", "")
	assert.JSONEq(t, `{"ok":true,"repos":[]}`, string(a.Body))
}

func TestCreateRepositoryRefusesBadInput(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	cases := map[string]struct{ body, mention string }{
		"no name":            {`{"description":"x"}`, "name"},
		"empty name":         {`{"name":""}`, "name"},
		"null name":          {`{"name":null}`, "name"},
		"slash":              {`{"name":"a/b"}`, "name"},
		"dot dot":            {`{"name":".."}`, "name"},
		"dot":                {`{"name":"."}`, "name"},
		"backslash":          {`{"name":"a\\b"}`, "name"},
		"NUL":                {`{"name":"a\u0000b"}`, "name"},
		"newline":            {`{"name":"a\nb"}`, "name"},
		"DEL":                {`{"name":"a\u007fb"}`, "name"},
		"number name":        {`{"name":5}`, "name"},
		"bad visibility":     {`{"name":"ok","visibility":"Public"}`, "visibility"},
		"other visibility":   {`{"name":"ok","visibility":"internal"}`, "visibility"},
		"unknown member":     {`{"name":"ok","private":true}`, `"private"`},
		"member in capitals": {`{"Name":"ok"}`, `"Name"`},
		"description number": {`{"name":"ok","description":1}`, "description"},
		"array body":         {`["ok"]`, "JSON object"},
		"not JSON":           {`name=ok`, "JSON object"},
		"trailing data":      {`{"name":"ok"} {}`, "JSON object"},
		"blank body":         {` `, "empty"},
	}
	for label, tc := range cases {
		a := call(t, srv, hostingtest.DefaultToken, "POST", "/api/v1/repos", tc.body)
		assert.Equal(t, 400, a.Status, label)
		assert.Contains(t, errorText(t, a), tc.mention, label)
	}
	a := send(t, srv, "POST", "/api/v1/repos", "", map[string]string{"Authorization": "Bearer " + hostingtest.DefaultToken, "Content-Type": "application/json"})
	assert.Equal(t, 400, a.Status, "a write without a body")
	assert.Contains(t, errorText(t, a), "empty")
	a = mustOK(t, srv, "GET", "/api/v1/repos", "")
	assert.Empty(t, a.List(t, "repos"), "nothing was created")
}

func TestRepositoryNamesAreGlobal(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithAccount(otherToken, "other")))
	createRepo(t, srv, "site")

	a := call(t, srv, hostingtest.DefaultToken, "POST", "/api/v1/repos", `{"name":"site"}`)
	assert.Equal(t, 409, a.Status)
	assert.Contains(t, errorText(t, a), "taken")

	a = call(t, srv, otherToken, "POST", "/api/v1/repos", `{"name":"site"}`)
	assert.Equal(t, 409, a.Status, "a site name is global: another owner cannot take it")
	assert.Contains(t, errorText(t, a), "taken")
	owner, _ := srv.Owner("site")
	assert.Equal(t, hostingtest.DefaultOwner, owner)
}

func TestNamesInAddressesAreDecodedAndChecked(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	createRepo(t, srv, "my site ✓")
	a := mustOK(t, srv, "GET", "/api/v1/repos/my%20site%20%E2%9C%93", "")
	assert.Equal(t, "my site ✓", a.Object(t, "repo")["name"])

	for _, name := range []string{"a%2Fb", "%2E%2E", "a%5Cb", "a%00b"} {
		a := call(t, srv, hostingtest.DefaultToken, "GET", "/api/v1/repos/"+name, "")
		assert.Equal(t, 400, a.Status, name)
		assert.Contains(t, errorText(t, a), "name", name)
	}
}

func TestContentTypeOfWritesMustBeJSON(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	auth := "Bearer " + hostingtest.DefaultToken
	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "application/jsonx"} {
		a := send(t, srv, "POST", "/api/v1/repos", `{"name":"x"}`, map[string]string{"Authorization": auth, "Content-Type": ct})
		assert.Equal(t, 415, a.Status, ct)
		assert.Contains(t, errorText(t, a), "application/json", ct)
	}
	a := send(t, srv, "POST", "/api/v1/repos", `{"name":"x"}`, map[string]string{"Authorization": auth, "Content-Type": "Application/JSON; charset=utf-8"})
	assert.Equal(t, 201, a.Status, "parameters are allowed and the media type is case-insensitive")
}

func TestUnknownEndpointsAndMethods(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	createRepo(t, srv, "r")
	for _, path := range []string{"/api/v1", "/api/v1/", "/api/v1/users", "/api/v1/repos/", "/api/v1/reposx", "/api/v1/repos/r/unknown", "/api/v1/repos/r/commit/x"} {
		a := call(t, srv, hostingtest.DefaultToken, "GET", path, "")
		assert.Equal(t, 404, a.Status, path)
		assert.NotEmpty(t, errorText(t, a), path)
	}
	cases := map[string]string{
		"DELETE /api/v1/repos":              "GET, POST",
		"PUT /api/v1/repos/r":               "GET",
		"GET /api/v1/repos/r/commit":        "POST",
		"GET /api/v1/repos/r/deploy":        "POST",
		"POST /api/v1/repos/r/deployments":  "GET",
		"GET /api/v1/repos/r/branches":      "POST",
		"PATCH /api/v1/repos/r/files/a.txt": "GET, PUT, POST, DELETE",
	}
	for req, allow := range cases {
		method, path, _ := strings.Cut(req, " ")
		a := call(t, srv, hostingtest.DefaultToken, method, path, "")
		assert.Equal(t, 405, a.Status, req)
		assert.Equal(t, allow, a.Header.Get("Allow"), req)
		assert.Contains(t, errorText(t, a), method, req)
	}
	a := send(t, srv, "GET", "/elsewhere", "", nil)
	assert.Equal(t, 404, a.Status)
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithMaxBodyBytes(64)))
	createRepo(t, srv, "r")
	a := call(t, srv, hostingtest.DefaultToken, "PUT", "/api/v1/repos/r/files/a.txt", `{"content":"`+strings.Repeat("x", 64)+`"}`)
	assert.Equal(t, 413, a.Status)
	assert.NotEmpty(t, errorText(t, a))
	_, stored := srv.File("r", "a.txt")
	assert.False(t, stored)
	mustOK(t, srv, "PUT", "/api/v1/repos/r/files/a.txt", `{"content":"small"}`)

	unlimited := testkit.Start(t, hostingtest.NewServer(hostingtest.WithMaxBodyBytes(0)))
	createRepo(t, unlimited, "r")
	mustOK(t, unlimited, "PUT", "/api/v1/repos/r/files/a.txt", `{"content":"`+strings.Repeat("x", 1<<20)+`"}`)
}
