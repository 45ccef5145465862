package stalltest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/failrecord"
)

func TestRequireBoundedRefusesWhatTheBoundsDidNotEnd(t *testing.T) {
	t.Parallel()
	timedOut := &sdk.RequestError{Err: context.DeadlineExceeded}
	for name, tc := range map[string]struct {
		err   error
		bound time.Duration
		wait  time.Duration
		fails bool
	}{
		"ended by the bounds":  {timedOut, time.Second, 0, false},
		"no error":             {nil, time.Second, 0, true},
		"another error":        {&sdk.RequestError{Err: errors.New("refused")}, time.Second, 0, true},
		"past bound and slack": {timedOut, -Slack, time.Millisecond, true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := failrecord.New(t)
			RequireBounded(f, tc.bound, func(context.Context) error { time.Sleep(tc.wait); return tc.err })
			assert.Equal(t, tc.fails, len(f.Messages) > 0, f.Messages)
		})
	}
}

func TestServerAnswersWhatItTakesAndStallsTheRestUntilTheClientLeaves(t *testing.T) {
	t.Parallel()
	for _, mode := range Modes {
		srv := NewServer(t, mode.Trickle, func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path != "/now" {
				return false
			}
			_, _ = io.WriteString(w, "at once")
			return true
		})
		resp, err := srv.Client().Get(srv.URL + "/now")
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, "at once", string(body), mode.Name)

		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/stalled", nil)
		resp, err = srv.Client().Do(req)
		if mode.Trickle {
			require.NoError(t, err, "the trickling server sends its headers at once")
			assert.Equal(t, "4096", resp.Header.Get("Content-Length"))
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		assert.ErrorIs(t, err, context.DeadlineExceeded, mode.Name)
		cancel()
	}
}

// client is a stand-in for a client of the SDK: each call is one GET of a path, bounded by
// the attempt timeout, whose failure is an *sdk.RequestError.
type client struct{ base string }

func (c client) get(ctx context.Context, path string) error {
	ctx, cancel := context.WithTimeout(ctx, Timeouts.Attempt)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	return &sdk.RequestError{Err: err}
}

func TestRunCallsRunsEveryCallInEveryMode(t *testing.T) {
	t.Parallel()
	var servers, clients atomic.Int32
	var ran sync.Map
	calls := []Call[client]{
		{"first", Once, func(ctx context.Context, c client) error { ran.Store("first"+c.base, true); return c.get(ctx, "/a") }},
		{"second", Once, func(ctx context.Context, c client) error { ran.Store("second"+c.base, true); return c.get(ctx, "/b") }},
	}
	t.Run("all", func(t *testing.T) {
		RunCalls(t, calls, func(t *testing.T, trickle bool) *httptest.Server {
			servers.Add(1)
			return NewServer(t, trickle, nil)
		}, func(url string) (client, error) {
			clients.Add(1)
			return client{base: url}, nil
		})
	})
	assert.EqualValues(t, 4, servers.Load(), "a server per call and mode")
	assert.EqualValues(t, 4, clients.Load(), "a client per call and mode")
	n := 0
	ran.Range(func(any, any) bool { n++; return true })
	assert.Equal(t, 4, n, "each call ran against its own server")
}
