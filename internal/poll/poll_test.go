package poll

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/sdktest"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestScheduleGrowsToItsCap(t *testing.T) {
	t.Parallel()
	s := Schedule{Min: 100 * time.Millisecond, Max: time.Second}
	want := []time.Duration{100, 200, 400, 800, 1000, 1000}
	for n, w := range want {
		assert.Equal(t, w*time.Millisecond, s.Ceiling(n), "ceiling %d", n)
		assert.Equal(t, w*time.Millisecond, s.Delay(n), "without jitter the delay is the ceiling")
	}
	assert.Equal(t, time.Second, s.Ceiling(1000), "a huge attempt number stays at the cap")

	constant := Schedule{Min: time.Second, Factor: 1}
	assert.Equal(t, time.Second, constant.Ceiling(50))

	uncapped := Schedule{Min: time.Second, Factor: 10}
	assert.Equal(t, time.Duration(1<<63-1), uncapped.Ceiling(100), "an uncapped schedule saturates instead of overflowing")

	grow := Schedule{Min: 2 * time.Second, Max: 90 * time.Second, Factor: 1.5}
	assert.Equal(t, 4500*time.Millisecond, grow.Ceiling(2))
}

func TestDelayDrawsWithinTheJitterBand(t *testing.T) {
	t.Parallel()
	full := Schedule{Min: time.Second, Max: time.Second, Jitter: 1}
	half := Schedule{Min: time.Second, Max: time.Second, Jitter: 0.5}
	var sawLow bool
	for range 2000 {
		d := full.Delay(0)
		require.GreaterOrEqual(t, d, time.Duration(0))
		require.LessOrEqual(t, d, time.Second)
		sawLow = sawLow || d < 500*time.Millisecond
		h := half.Delay(3)
		require.GreaterOrEqual(t, h, 500*time.Millisecond)
		require.LessOrEqual(t, h, time.Second)
	}
	assert.True(t, sawLow, "full jitter reaches the lower half")
}

func TestValidate(t *testing.T) {
	t.Parallel()
	assert.NoError(t, Schedule{Min: time.Second, Max: time.Minute, Factor: 1.5, Jitter: 0.2}.Validate())
	assert.NoError(t, Schedule{}.Validate())
	for _, bad := range []Schedule{
		{Min: -1}, {Max: -1}, {Min: 2 * time.Second, Max: time.Second},
		{Factor: 0.5}, {Jitter: 1.5}, {Jitter: -0.1},
	} {
		assert.Error(t, bad.Validate(), "%+v", bad)
	}
}

func TestRunRetriesUntilDoneAndReportsProgress(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	var seen []Progress
	calls := 0
	err := Run(t.Context(), Options{
		Schedule: Schedule{Min: time.Second, Max: 4 * time.Second},
		Clock:    clock,
		Progress: func(p Progress) { seen = append(seen, p) },
	}, func(_ context.Context, n int) (bool, time.Duration, error) {
		calls++
		assert.Equal(t, calls, n, "attempts are numbered from 1")
		if n < 5 {
			return false, 0, errors.New("busy")
		}
		return true, 0, nil
	})
	require.NoError(t, err)
	assert.Equal(t, 5, calls)
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second}, clock.Waits())
	require.Len(t, seen, 4)
	assert.Equal(t, 2, seen[1].Attempt)
	assert.Equal(t, time.Second, seen[1].Elapsed)
	assert.Equal(t, 2*time.Second, seen[1].Wait)
	assert.EqualError(t, seen[1].Err, "busy")
}

func TestRunReturnsTheFinalError(t *testing.T) {
	t.Parallel()
	final := errors.New("refused")
	err := Run(t.Context(), Options{Clock: sdktest.NewClock(epoch)}, func(context.Context, int) (bool, time.Duration, error) {
		return true, 0, final
	})
	assert.Same(t, final, err, "a done attempt's error comes back as it is")
}

func TestRunHonoursTheAttemptsWait(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	_ = Run(t.Context(), Options{Schedule: Schedule{Min: time.Second}, Clock: clock, MaxAttempts: 3},
		func(_ context.Context, n int) (bool, time.Duration, error) { return false, 7 * time.Second, nil })
	assert.Equal(t, []time.Duration{7 * time.Second, 7 * time.Second}, clock.Waits(), "a Retry-After style wait replaces the schedule")
}

func TestRunStopsAtTheAttemptCap(t *testing.T) {
	t.Parallel()
	last := errors.New("still busy")
	calls := 0
	err := Run(t.Context(), Options{Schedule: Schedule{Min: time.Millisecond}, MaxAttempts: 3, Clock: sdktest.NewClock(epoch)},
		func(context.Context, int) (bool, time.Duration, error) { calls++; return false, 0, last })
	assert.Equal(t, 3, calls)
	var stopped *StoppedError
	require.ErrorAs(t, err, &stopped)
	assert.Equal(t, 3, stopped.Attempts)
	assert.ErrorIs(t, err, ErrMaxAttempts)
	assert.ErrorIs(t, err, last, "the last attempt's error stays reachable")
	assert.Contains(t, err.Error(), "still busy")
}

func TestRunDoesNotStartAWaitPastTheTimeout(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	calls := 0
	err := Run(t.Context(), Options{Schedule: Schedule{Min: 4 * time.Second, Factor: 1}, Timeout: 10 * time.Second, Clock: clock},
		func(context.Context, int) (bool, time.Duration, error) { calls++; return false, 0, nil })
	assert.ErrorIs(t, err, ErrTimeout)
	assert.Equal(t, 3, calls, "attempts at 0 s, 4 s and 8 s; a wait to 12 s is not started")
	assert.Equal(t, epoch.Add(8*time.Second), clock.Now())
}

func TestRunEndsAtOnceWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	start := time.Now()
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	last := errors.New("busy")
	err := Run(ctx, Options{Schedule: Schedule{Min: time.Hour}},
		func(context.Context, int) (bool, time.Duration, error) { return false, 0, last })
	assert.Less(t, time.Since(start), 5*time.Second, "an hour-long wait ends with the context")
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, last)

	calls := 0
	err = Run(ctx, Options{}, func(context.Context, int) (bool, time.Duration, error) { calls++; return true, 0, nil })
	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, calls, "an ended context makes no attempt")
}

func TestRealClockSleeps(t *testing.T) {
	t.Parallel()
	start := time.Now()
	require.NoError(t, sdk.SystemClock().Sleep(t.Context(), 20*time.Millisecond))
	assert.GreaterOrEqual(t, time.Since(start), 20*time.Millisecond)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.ErrorIs(t, sdk.SystemClock().Sleep(ctx, time.Hour), context.Canceled)
	assert.ErrorIs(t, sdk.SystemClock().Sleep(ctx, 0), context.Canceled)
	assert.NoError(t, sdk.SystemClock().Sleep(t.Context(), -time.Second))
}
