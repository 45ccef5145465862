package gpuprice_test

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/gpuprice/gpupricetest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
)

func TestHistoryWithoutAKeySendsNothing(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newClient(t, srv)

	_, err := c.History(t.Context(), &gpuprice.HistoryParams{Model: "H100"})
	require.ErrorIs(t, err, gpuprice.ErrKeyRequired)
	require.ErrorIs(t, err, sdk.ErrMissingCredential)
	mc := testkit.As[*sdk.MissingCredentialError](t, err)
	assert.Equal(t, "gpuprice", mc.Service)
	assert.Equal(t, "History", mc.Operation)
	assert.Equal(t, "API key", mc.Credential)
	assert.Empty(t, srv.Requests())
}

func TestFreeKeyIsForbiddenAndUnknownKeyUnauthorized(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	free := issueKey(srv, gpupricetest.PlanFree)
	c := newClient(t, srv, gpuprice.WithAPIKey(free))

	_, err := c.History(t.Context(), nil)
	require.ErrorIs(t, err, gpuprice.ErrForbidden)
	require.ErrorIs(t, err, gpuprice.ErrPlanRequired)
	assert.Equal(t, http.StatusForbidden, testkit.As[*sdk.APIError](t, err).StatusCode)
	assert.NotContains(t, sprintf("%v %+v %#v", err, err, err), free)

	unknown := "gpk_0000000000000000000000000000000000000000"
	scan.Add(unknown)
	c2 := newClient(t, srv, gpuprice.WithAPIKey(unknown))
	_, err = c2.History(t.Context(), nil)
	require.ErrorIs(t, err, gpuprice.ErrUnauthorized)
	require.ErrorIs(t, err, gpuprice.ErrInvalidAPIKey)
	assert.Equal(t, http.StatusUnauthorized, testkit.As[*sdk.APIError](t, err).StatusCode)
	assert.False(t, errorsIs(err, gpuprice.ErrForbidden))
}

// errorsIs is errors.Is, for assertions that expect false.
func errorsIs(err, target error) bool { return errors.Is(err, target) }

func TestKeyTravelsOnlyInItsHeaderAndOnlyWhereItIsNeeded(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	key := issueKey(srv, gpupricetest.PlanPro)
	var seen []http.Header
	var mu sync.Mutex
	hc := &http.Client{Transport: recorder(func(r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, r.Header.Clone())
		assert.NotContains(t, r.URL.String(), key)
	})}
	c := newClient(t, srv, gpuprice.WithAPIKey(key), gpuprice.WithHTTPClient(hc))

	_, err := c.GPUs(t.Context(), nil)
	require.NoError(t, err)
	_, err = c.Cheapest(t.Context(), "H100")
	require.NoError(t, err)
	_, err = c.History(t.Context(), nil)
	require.NoError(t, err)
	_, err = c.Health(t.Context())
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 4)
	assert.False(t, sentKey(reqs[0]), "a free endpoint needs no key")
	assert.False(t, sentKey(reqs[1]), "a free endpoint needs no key")
	assert.Equal(t, sdktest.Redacted, reqs[2].Header.Get(gpuprice.KeyHeader), "history needs the key, which the fake does not record")
	assert.False(t, sentKey(reqs[3]), "health is public")
	require.Len(t, seen, 4)
	assert.Empty(t, seen[0].Values(gpuprice.KeyHeader))
	assert.Equal(t, key, seen[2].Get(gpuprice.KeyHeader))
	assert.Empty(t, seen[2].Values("Authorization"))
}

func TestKeyOnFreeEndpointsWhenAsked(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	key := issueKey(srv, gpupricetest.PlanPro)
	c := newClient(t, srv, gpuprice.WithAPIKey(key), gpuprice.WithKeyOnFreeEndpoints())

	_, err := c.GPUs(t.Context(), nil)
	require.NoError(t, err)
	_, err = c.OrderBook(t.Context(), "")
	require.NoError(t, err)
	_, err = c.Health(t.Context())
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.True(t, sentKey(reqs[0]), "counted against the plan's quota")
	assert.True(t, sentKey(reqs[1]))
	assert.False(t, sentKey(reqs[2]), "health is public")
}

// recorder is a transport that shows each request to f, then sends it.
type recorder func(*http.Request)

// RoundTrip calls f and sends req.
func (f recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	f(req)
	return http.DefaultTransport.RoundTrip(req)
}

func TestSetAPIKeyWhileRequestsRun(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	old := issueKey(srv, gpupricetest.PlanUnlimited)
	fresh := issueKey(srv, gpupricetest.PlanUnlimited)
	c := newClient(t, srv, gpuprice.WithAPIKey(old))

	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 8 {
				assert.NoError(t, c.SetAPIKey(fresh))
			}
			_, err := c.History(t.Context(), &gpuprice.HistoryParams{Limit: 1})
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	_, err := c.History(t.Context(), &gpuprice.HistoryParams{Limit: 1})
	require.NoError(t, err)
	assert.True(t, sentKey(srv.Requests()[len(srv.Requests())-1]))
	require.Error(t, c.SetAPIKey("has space"))
}

func TestKeyOptionsAndEnvironment(t *testing.T) {
	// Not parallel: it sets environment variables.
	srv := startFake(t)
	key := issueKey(srv, gpupricetest.PlanPro)
	t.Setenv(gpuprice.EnvURL, srv.URL)
	t.Setenv(gpuprice.EnvAPIKey, key)
	t.Setenv(gpuprice.EnvRPCURL, srv.RPCURL)

	c, err := gpuprice.New(gpuprice.WithRetry(testkit.NoRetry))
	require.NoError(t, err)
	_, err = c.History(t.Context(), &gpuprice.HistoryParams{Limit: 1})
	require.NoError(t, err, "the key came from the environment with the URL")

	explicit, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL))
	require.NoError(t, err)
	_, err = explicit.History(t.Context(), nil)
	require.ErrorIs(t, err, gpuprice.ErrKeyRequired, "an explicit base URL does not take the environment's key")

	for _, bad := range []gpuprice.Option{gpuprice.WithAPIKey(""), gpuprice.WithAPIKey("a b c d e f"), gpuprice.WithRPCURL("ftp://x"),
		gpuprice.WithRedeemPath("keys"), gpuprice.WithWait(sdk.WaitPolicy{Timeout: -time.Second}), gpuprice.WithClock(nil), gpuprice.WithRPCClient(nil)} {
		_, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL), bad)
		ve := testkit.As[*sdk.ValidationError](t, err)
		assert.Equal(t, "gpuprice", ve.Service)
	}
}

func TestLogsCarryNoKey(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	key := issueKey(srv, gpupricetest.PlanPro)
	c := newClient(t, srv, gpuprice.WithAPIKey(key), gpuprice.WithLogger(scan.Logger()))
	_, err := c.History(t.Context(), &gpuprice.HistoryParams{From: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)})
	require.ErrorIs(t, err, gpuprice.ErrInvalidParameter, "a range before the history is refused by the fake")
	scan.Record(err)
	_, _, errs := scan.Counts()
	assert.Positive(t, errs)
	assert.NotContains(t, fmt.Sprint(err), key)
}

func TestAKeyLeftInTheEnvironmentIsNotSentToAnAddressGivenInCode(t *testing.T) {
	// Not parallel: it sets environment variables.
	srv := startFake(t)
	key := issueKey(srv, gpupricetest.PlanPro)
	t.Setenv(gpuprice.EnvAPIKey, key)
	t.Setenv(gpuprice.EnvURL, "")

	c, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL))
	require.NoError(t, err)
	_, err = c.History(t.Context(), nil)
	require.ErrorIs(t, err, gpuprice.ErrKeyRequired)
	require.ErrorIs(t, err, sdk.ErrMissingCredential)
	mc := testkit.As[*sdk.MissingCredentialError](t, err)
	assert.Equal(t, "History", mc.Operation)
	assert.Equal(t, "API key", mc.Credential)
	assert.Contains(t, mc.Reason, "GPUPRICE_API_KEY is set but was not used", "it says why the variable was not used")
	assert.Contains(t, mc.Reason, `WithAPIKey(os.Getenv("GPUPRICE_API_KEY"))`, "and how to send it anyway")
	assert.NotContains(t, err.Error(), key)
	assert.Empty(t, srv.Requests(), "nothing was sent")

	t.Setenv(gpuprice.EnvAPIKey, "")
	_, err = c.History(t.Context(), nil)
	mc = testkit.As[*sdk.MissingCredentialError](t, err)
	assert.NotContains(t, mc.Reason, "is set but was not used", "without the variable, only how to give a key")
	assert.Contains(t, mc.Reason, "WithAPIKey")
}

// A remote Solana node over plain http is refused unless WithInsecureRPC says so: what the
// node says of a purchase decides whether its amount stays counted. Loopback may be http.
func TestRemoteRPCOverHTTPNeedsWithInsecureRPC(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	const remote = "http://rpc.example.com/?api-key=k-123456"
	_, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL), gpuprice.WithRPCURL(remote))
	ve := testkit.As[*sdk.ValidationError](t, err)
	assert.Equal(t, "gpuprice", ve.Service)
	assert.NotContains(t, err.Error(), "k-123456", "the URL's key is not quoted")

	_, err = gpuprice.New(gpuprice.WithBaseURL(srv.URL), gpuprice.WithRPCURL(remote), gpuprice.WithInsecureRPC())
	require.NoError(t, err)
	_, err = gpuprice.New(gpuprice.WithBaseURL(srv.URL), gpuprice.WithRPCURL(srv.RPCURL))
	require.NoError(t, err, "the fake's node is on loopback")
}
