package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNonPublicAddressesAreNamed(t *testing.T) {
	cases := map[string]string{
		"127.0.0.1":         "loopback",
		"::1":               "loopback",
		"10.1.2.3":          "private",
		"192.168.0.1":       "private",
		"fd00:ec2::254":     "private",
		"169.254.169.254":   "link-local (cloud metadata)",
		"::ffff:127.0.0.1":  "loopback",
		"100.100.100.200":   "shared (carrier-grade NAT)",
		"0.0.0.0":           "unspecified",
		"239.1.2.3":         "multicast",
		"93.184.216.34":     "",
		"2606:4700::6810:1": "",
	}
	for ip, want := range cases {
		assert.Equal(t, want, notPublic(netip.MustParseAddr(ip)), ip)
	}
}

func TestFetchRefusesWhatTheRulesDoNotAllow(t *testing.T) {
	f := newFetcher(FetchRules{}, nil, []string{"127.0.0.1:9999"})
	for raw, want := range map[string]string{
		"http://example.com/":         "is not https",
		"ftp://example.com/":          "only http and https",
		"https://user:pw@example.com": "credentials",
	} {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		assert.ErrorContains(t, f.checkURL(u), want, raw)
	}
	trusted, _ := url.Parse("http://127.0.0.1:9999/x")
	assert.NoError(t, f.checkURL(trusted), "an offline fake's host may be fetched over http")
	for _, address := range []string{"127.0.0.1:443", "169.254.169.254:443", "[::1]:443", "localhost:443"} {
		_, err := f.dial(context.Background(), nil, "tcp", address)
		assert.ErrorContains(t, err, "refused", address)
	}

	allowed := newFetcher(FetchRules{}, []string{"intranet.example"}, nil)
	other, _ := url.Parse("https://example.com/")
	assert.ErrorContains(t, allowed.checkURL(other), "not in allowed_hosts")
	listedURL, _ := url.Parse("http://intranet.example:8080/")
	assert.NoError(t, allowed.checkURL(listedURL), "a listed host may be fetched over http")
}

func TestFetchToolRefusesLoopbackAndMetadata(t *testing.T) {
	s := start(t, Options{}, nil)
	assert.Contains(t, s.fails("x402_fetch", map[string]any{"url": "https://127.0.0.1/"}), "loopback")
	assert.Contains(t, s.fails("x402_fetch", map[string]any{"url": "https://169.254.169.254/latest/meta-data/"}), "cloud metadata")
	assert.Contains(t, s.fails("x402_fetch", map[string]any{"url": "http://example.com/"}), "not https")
}

func TestACancelledCallStopsItsWork(t *testing.T) {
	stopped := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
			close(stopped)
		case <-time.After(20 * time.Second):
		}
	}))
	defer slow.Close()
	s := start(t, Options{Fetch: FetchRules{AllowHTTP: true, AllowPrivate: true}}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := s.client.CallTool(ctx, &mcp.CallToolParams{Name: "x402_fetch", Arguments: map[string]any{"url": slow.URL + "/slow"}})
	require.Error(t, err, "the client gave up")
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("the handler went on after the client cancelled the call")
	}
	s.ok("budget_status", map[string]any{})
}
