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

// errRunning is a package's sentinel for work still under way.
var errRunning = errors.New("testsvc: still running")

// waiting returns a Waiting on clock with policy p.
func waiting(clock sdk.Clock, p sdk.WaitPolicy) Waiting {
	return Waiting{Service: "testsvc", Operation: "Collect", Subject: "B0TEST", Policy: p, Clock: clock, Sentinels: []error{errRunning}}
}

// notYet is an attempt that never finishes, failing with last.
func notYet(last error) Attempt {
	return func(context.Context, int) (bool, time.Duration, error) { return false, 0, last }
}

func TestWaitGivesUpAfterMaxAttemptsWithAWaitError(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	var seen []sdk.WaitProgress
	last := errors.New("rate limited")
	p := sdk.WaitPolicy{MinDelay: time.Second, MaxDelay: 4 * time.Second, MaxAttempts: 3,
		Progress: func(pr sdk.WaitProgress) { seen = append(seen, pr) }}
	err := Wait(t.Context(), waiting(clock, p), notYet(last))

	var we *sdk.WaitError
	require.ErrorAs(t, err, &we)
	assert.Equal(t, "testsvc", we.Service)
	assert.Equal(t, "Collect", we.Operation)
	assert.Equal(t, "B0TEST", we.Subject)
	assert.Equal(t, 3, we.Attempts)
	assert.ErrorIs(t, err, sdk.ErrWaitAttempts)
	assert.ErrorIs(t, err, last)
	assert.ErrorIs(t, err, errRunning, "the package's sentinels match")
	require.Len(t, seen, 2, "a report before each of the two waits")
	assert.Equal(t, sdk.WaitProgress{Service: "testsvc", Operation: "Collect", Subject: "B0TEST", Attempt: 2,
		Elapsed: clock.Waits()[0], Wait: clock.Waits()[1], Err: last}, seen[1])
	for i, d := range clock.Waits() {
		ceiling := time.Second << i
		assert.True(t, d >= ceiling/2 && d <= ceiling, "wait %d is %s, in the upper half of %s", i, d, ceiling)
	}
}

func TestWaitRunsTheServiceScheduleUpToTheTimeout(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	p := sdk.WaitPolicy{Timeout: 10 * time.Second}
	w := waiting(clock, p)
	// The last request at the Timeout itself, as productdata asks.
	w.Next = func(_ int, elapsed time.Duration) time.Duration { return min(4*time.Second, p.Timeout-elapsed) }
	calls := 0
	err := Wait(t.Context(), w, func(context.Context, int) (bool, time.Duration, error) { calls++; return false, 0, nil })
	assert.ErrorIs(t, err, sdk.ErrWaitTimeout)
	assert.Equal(t, []time.Duration{4 * time.Second, 4 * time.Second, 2 * time.Second}, clock.Waits())
	assert.Equal(t, 4, calls, "requests at 0, 4, 8 and 10 s; none after the Timeout")
	var we *sdk.WaitError
	require.ErrorAs(t, err, &we)
	assert.Equal(t, 10*time.Second, we.Elapsed)
	assert.Nil(t, we.Last, "the work was only still errRunning")
}

func TestWaitDoesNotStartAWaitPastTheTimeout(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	w := waiting(clock, sdk.WaitPolicy{Timeout: 5 * time.Second})
	w.Next = func(int, time.Duration) time.Duration { return 3 * time.Second }
	err := Wait(t.Context(), w, notYet(nil))
	assert.ErrorIs(t, err, sdk.ErrWaitTimeout)
	assert.Equal(t, []time.Duration{3 * time.Second}, clock.Waits(), "a second wait would end after the Timeout")
}

func TestWaitReturnsTheOutcomeAndHonoursTheAttemptsWait(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	inner := &StoppedError{Reason: ErrTimeout} // a loop inside the attempt gave up: its own outcome
	err := Wait(t.Context(), waiting(clock, sdk.WaitPolicy{MinDelay: time.Second}), func(_ context.Context, n int) (bool, time.Duration, error) {
		if n < 3 {
			return false, 7 * time.Second, nil
		}
		return true, 0, inner
	})
	assert.Same(t, inner, err, "a done attempt's error comes back as it is")
	assert.Equal(t, []time.Duration{7 * time.Second, 7 * time.Second}, clock.Waits(), "a Retry-After style wait replaces the schedule")

	err = Wait(t.Context(), waiting(clock, sdk.WaitPolicy{}), func(context.Context, int) (bool, time.Duration, error) { return true, 0, nil })
	assert.NoError(t, err)
}

func TestWaitEndsWithTheContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	start := time.Now()
	busy := errors.New("busy")
	err := Wait(ctx, waiting(nil, sdk.WaitPolicy{MinDelay: time.Hour}), notYet(busy))
	assert.Less(t, time.Since(start), 5*time.Second, "an hour-long wait ends with the context")
	var we *sdk.WaitError
	require.ErrorAs(t, err, &we)
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, err, busy)
	assert.Equal(t, 1, we.Attempts)
}

func TestAsWaitErrorConvertsOnlyAStoppedLoop(t *testing.T) {
	t.Parallel()
	w := waiting(nil, sdk.WaitPolicy{})
	other := errors.New("failed on chain")
	assert.Same(t, other, AsWaitError(w, other))
	assert.NoError(t, AsWaitError(w, nil))
	last := errors.New("not seen yet")
	err := AsWaitError(w, &StoppedError{Reason: ErrMaxAttempts, Attempts: 5, Elapsed: time.Minute, Last: last})
	assert.Equal(t, &sdk.WaitError{Service: "testsvc", Operation: "Collect", Subject: "B0TEST", Attempts: 5, Elapsed: time.Minute,
		Reason: sdk.ErrWaitAttempts, Last: last, Sentinels: []error{errRunning}}, err)
	assert.ErrorIs(t, AsWaitError(w, &StoppedError{Reason: context.DeadlineExceeded}), context.DeadlineExceeded)
}
