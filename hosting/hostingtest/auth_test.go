package hostingtest_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/hosting/hostingtest"
	"github.com/agentapis/sdk/internal/testkit"
)

func TestDefaultTokenIsLong(t *testing.T) {
	t.Parallel()
	assert.GreaterOrEqual(t, len(hostingtest.DefaultToken), 32)
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	const path = "/api/v1/repos"

	for label, h := range map[string]map[string]string{
		"no credential":           nil,
		"unknown bearer":          {"Authorization": "Bearer not-a-token"},
		"empty bearer":            {"Authorization": "Bearer "},
		"unknown x-api-token":     {"X-API-Token": "not-a-token"},
		"token without scheme":    {"Authorization": hostingtest.DefaultToken},
		"token in another scheme": {"Authorization": "Token " + hostingtest.DefaultToken},
		"bearer wins over header": {"Authorization": "Bearer not-a-token", "X-API-Token": hostingtest.DefaultToken},
	} {
		a := send(t, srv, "GET", path, "", h)
		assert.Equal(t, 401, a.Status, label)
		assert.NotContains(t, errorText(t, a), hostingtest.DefaultToken, label)
	}

	for label, h := range map[string]map[string]string{
		"bearer":                  {"Authorization": "Bearer " + hostingtest.DefaultToken},
		"bearer in lower case":    {"Authorization": "bearer " + hostingtest.DefaultToken},
		"x-api-token":             {"X-API-Token": hostingtest.DefaultToken},
		"basic, then x-api-token": {"Authorization": "Basic dXNlcjpwYXNz", "X-API-Token": hostingtest.DefaultToken},
	} {
		a := send(t, srv, "GET", path, "", h)
		assert.Equal(t, 200, a.Status, label)
		assert.Equal(t, true, a.JSON["ok"], label)
	}
	assert.Equal(t, 7, testkit.CountStatus(srv.Requests(), 401))

	reqs := srv.Exchanges()
	require.Len(t, reqs, 11)
	used := map[string]int{}
	for _, r := range reqs {
		if r.Status == 200 {
			used[r.Auth]++
		}
	}
	assert.Equal(t, map[string]int{hostingtest.AuthAuthorization: 2, hostingtest.AuthAPIToken: 2}, used)
}

func TestAddAccount(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, hostingtest.NewServer())
	const token = "late-account-token-0f1e2d3c4b5a69788796"
	a := call(t, srv, token, "GET", "/api/v1/repos", "")
	assert.Equal(t, 401, a.Status)
	srv.AddAccount(token, "late")
	a = call(t, srv, token, "POST", "/api/v1/repos", `{"name":"late-site"}`)
	require.Equal(t, 201, a.Status, string(a.Body))
	assert.Equal(t, "late", a.Object(t, "repo")["owner"])

	assert.Panics(t, func() { srv.AddAccount("", "x") })
	assert.Panics(t, func() { srv.AddAccount("t", "") })
	assert.Panics(t, func() { srv.AddAccount("with space", "x") })
	assert.Panics(t, func() { srv.AddAccount("with\nnewline", "x") })
	assert.Panics(t, func() { srv.AddAccount(token, "someone-else") })
	assert.NotPanics(t, func() { srv.AddAccount(token, "late") })
}

func TestAnotherOwnerCannotSeeOrChangeARepository(t *testing.T) {
	t.Parallel()
	const sameOwnerToken = "second-token-of-demo-7c6b5a4938271605f4e3"
	srv := testkit.Start(t, hostingtest.NewServer(hostingtest.WithAccount(otherToken, "other"), hostingtest.WithAccount(sameOwnerToken, hostingtest.DefaultOwner)))
	createRepo(t, srv, "mine")
	mustOK(t, srv, "PUT", "/api/v1/repos/mine/files/index.html", `{"content":"mine"}`)
	commit := mustOK(t, srv, "POST", "/api/v1/repos/mine/commit", `{"message":"first"}`).Object(t, "commit")["id"].(string)
	mustOK(t, srv, "POST", "/api/v1/repos/mine/deploy", `{}`)

	missing := call(t, srv, otherToken, "GET", "/api/v1/repos/nothing-here", "")
	require.Equal(t, 404, missing.Status)

	a := call(t, srv, otherToken, "GET", "/api/v1/repos", "")
	assert.JSONEq(t, `{"ok":true,"repos":[]}`, string(a.Body), "another owner lists none of them")

	attempts := []struct{ method, path, body string }{
		{"GET", "/api/v1/repos/mine", ""},
		{"GET", "/api/v1/repos/mine/files/index.html", ""},
		{"PUT", "/api/v1/repos/mine/files/index.html", `{"content":"theirs"}`},
		{"POST", "/api/v1/repos/mine/files/index.html", `{"content":"theirs"}`},
		{"PUT", "/api/v1/repos/mine/files/new.txt", `{"content":"theirs"}`},
		{"PUT", "/api/v1/repos/mine/files/new.txt", `{"bad body`},
		{"DELETE", "/api/v1/repos/mine/files/index.html", ""},
		{"POST", "/api/v1/repos/mine/commit", `{"message":"theirs"}`},
		{"POST", "/api/v1/repos/mine/deploy", `{"commit":"` + commit + `"}`},
		{"GET", "/api/v1/repos/mine/deployments", ""},
		{"POST", "/api/v1/repos/mine/branches", `{"branch":"theirs"}`},
	}
	for _, at := range attempts {
		a := call(t, srv, otherToken, at.method, at.path, at.body)
		label := fmt.Sprint(at)
		assert.Equal(t, 404, a.Status, label)
		assert.Equal(t, errorText(t, missing), errorText(t, a), "%s: the same answer as for a missing repository", label)
	}

	got, _ := srv.File("mine", "index.html")
	assert.Equal(t, "mine", string(got))
	assert.Equal(t, []string{"index.html"}, srv.Files("mine"))
	assert.Len(t, srv.Deployments("mine"), 1)
	head, _ := srv.Head("mine", "main")
	assert.Equal(t, commit, head)
	st := srv.Stats()
	assert.Equal(t, 1, st.PutWrites)
	assert.Equal(t, 1, st.Commits)
	assert.Equal(t, 1, st.Deploys)

	a = call(t, srv, sameOwnerToken, "GET", "/api/v1/repos/mine/files/index.html", "")
	assert.Equal(t, 200, a.Status, "another token of the same owner sees the repository")
	assert.Equal(t, "mine", a.JSON["content"])
}
