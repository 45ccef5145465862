package httpcore

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPathEscapesEachSegment(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "/report/macro-gdp", Path("report", "macro-gdp"))
	assert.Equal(t, "/repos/a%20b/files/x%2Fy%3Fz%23w", Path("repos", "a b", "files", "x/y?z#w"))
	assert.Equal(t, "", Path())
}

func TestResolveJoinsBaseAndEndpoint(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, base, prefix, endpoint string
		query                        url.Values
		want                         string
	}{
		{"path prefix kept", "https://h/x", "", "/report/a", nil, "https://h/x/report/a"},
		{"trailing slash on base", "https://h/x/", "", "/report/a", nil, "https://h/x/report/a"},
		{"bare host", "https://h", "", "/catalog", nil, "https://h/catalog"},
		{"endpoint without leading slash", "https://h/x", "", "report/a", nil, "https://h/x/report/a"},
		{"service prefix added", "https://h", "/api/v1", "/charts/5", nil, "https://h/api/v1/charts/5"},
		{"service prefix after base path", "https://h/proxy", "/api/v1", "/charts", nil, "https://h/proxy/api/v1/charts"},
		{"service prefix not doubled", "https://h/api/v1", "/api/v1", "/charts", nil, "https://h/api/v1/charts"},
		{"escaped segment kept", "https://h/x", "", Path("repos", "a/b", "files", "c d"), nil, "https://h/x/repos/a%2Fb/files/c%20d"},
		{"query encoded", "https://h", "", "/charts", url.Values{"q": {"a&b"}, "page": {"2"}}, "https://h/charts?page=2&q=a%26b"},
		{"endpoint query merged", "https://h", "", "/report/custom?countries=US", url.Values{"format": {"csv"}}, "https://h/report/custom?countries=US&format=csv"},
		{"port kept", "http://127.0.0.1:8080/base", "", "/x", nil, "http://127.0.0.1:8080/base/x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, err := parseBaseURL(tc.base)
			require.NoError(t, err)
			root, err := serviceRoot(base, tc.prefix)
			require.NoError(t, err)
			got, err := resolve(root, tc.endpoint, tc.query)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.String())
		})
	}
}

func TestResolveRefusesAbsoluteAndDotEndpoints(t *testing.T) {
	t.Parallel()
	root, err := parseBaseURL("https://h/x")
	require.NoError(t, err)
	for _, ep := range []string{"https://evil.example/steal", "//evil.example/steal", "http:/x", "/a/../b", "/a/./b", "../a", "/.."} {
		_, err := resolve(root, ep, nil)
		assert.Error(t, err, "endpoint %q", ep)
	}
	// An escaped dot-dot inside a segment is data, not traversal.
	got, err := resolve(root, Path("files", "a..b"), nil)
	require.NoError(t, err)
	assert.Equal(t, "https://h/x/files/a..b", got.String())
}

func TestParseBaseURLRefusals(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"", "h/x", "ftp://h", "https://", "https://user:pass@h", "https://h?token=x", "https://h#frag", "://bad"} {
		_, err := parseBaseURL(raw)
		assert.Error(t, err, "base %q", raw)
		if err != nil {
			assert.NotContains(t, err.Error(), "pass", "the error must not quote the URL")
		}
	}
}

func TestPlainPathsTakeTheFastJoinWithTheSameResult(t *testing.T) {
	t.Parallel()
	for _, ep := range []string{"/charts/7", "/api/ProductRequest", "/report/macro-gdp", "/a.b/c~d_e", "/v1/futures/index"} {
		assert.True(t, plainPath(ep), ep)
	}
	for _, ep := range []string{"", "/", "charts", "/a//b", "/a/./b", "/a/../b", "/..", "/a%20b", "/a?b=1", "/a b", "//h/x", "/a/"} {
		assert.False(t, plainPath(ep), ep)
	}
	for _, base := range []string{"https://h", "https://h/x/", "https://h/a%2Fb", "http://127.0.0.1:8080/p"} {
		b, err := parseBaseURL(base)
		require.NoError(t, err)
		root, err := serviceRoot(b, "/api/v1")
		require.NoError(t, err)
		fast, err := resolve(root, "/charts/7", url.Values{"q": {"a b"}})
		require.NoError(t, err)
		slow, err := resolveParsed(root, "/charts/7", url.Values{"q": {"a b"}})
		require.NoError(t, err)
		assert.Equal(t, slow.String(), fast.String(), base)
		assert.Equal(t, slow.Path, fast.Path, base)
	}
}
