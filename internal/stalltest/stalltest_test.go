package stalltest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
)

// failures records what RequireBounded reports instead of failing the test.
type failures struct {
	testing.TB
	messages []string
}

func (f *failures) Helper() {}

func (f *failures) Errorf(format string, args ...any) {
	f.messages = append(f.messages, fmt.Sprintf(format, args...))
}

func (f *failures) Fatalf(format string, args ...any) { f.Errorf(format, args...) }

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
			f := &failures{TB: t}
			RequireBounded(f, tc.bound, func(context.Context) error { time.Sleep(tc.wait); return tc.err })
			assert.Equal(t, tc.fails, len(f.messages) > 0, f.messages)
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
