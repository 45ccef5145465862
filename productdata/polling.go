package productdata

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/lenient"
	"github.com/agentapis/sdk/internal/poll"
)

// Defaults of PollOptions.
const (
	// DefaultPollMinDelay is the wait after the request that starts a task, and the shortest
	// wait between status queries.
	DefaultPollMinDelay = 2 * time.Second
	// DefaultPollMaxDelay is the longest wait between status queries.
	DefaultPollMaxDelay = 30 * time.Second
	// DefaultPollTimeout bounds a whole wait, the API description's "about 90 seconds".
	DefaultPollTimeout = 90 * time.Second
	// DefaultMaxPolls caps the status queries of one wait; the default schedule needs at most
	// 10 in 90 seconds.
	DefaultMaxPolls = 12
)

// PollOptions bound the wait for an asynchronous task (RefreshProduct, CollectReviews). Every
// status query is a request (counted in Counters, paced, and possibly charged), so the schedule
// asks rarely: after the request that starts the task it waits MinDelay, and then half the
// time elapsed so far, between MinDelay and MaxDelay, with the last query at the Timeout. A
// task is therefore noticed at most half its running time after it finished (MinDelay for
// short tasks), with about ten queries in 90 seconds. Zero fields take the defaults.
type PollOptions struct {
	// MinDelay is the first wait and the shortest one (default 2 s).
	MinDelay time.Duration
	// MaxDelay is the longest wait (default 30 s).
	MaxDelay time.Duration
	// Timeout bounds the wait from the request that starts the task (default 90 s). When it
	// passes, the wait ends with a *WaitError; the task may still finish on the service.
	Timeout time.Duration
	// MaxPolls caps the status queries (default 12).
	MaxPolls int
	// Progress, when set, is called before every wait with the state of the task.
	Progress func(TaskProgress)
}

// TaskProgress is what PollOptions.Progress sees before each wait.
type TaskProgress struct {
	// Endpoint is the request that started the task.
	Endpoint Endpoint
	// ASIN is the task's product; TaskID its id, when the service gave one.
	ASIN   string
	TaskID string
	// Polls is the number of status queries made so far.
	Polls int
	// Status is the task's state as last reported (TaskPending before the service lists it).
	Status TaskStatus
	// Elapsed is the time since the request that started the task.
	Elapsed time.Duration
	// Wait is the wait about to start.
	Wait time.Duration
	// Err is why the last request asked for another try, such as a network failure or the
	// per-minute limit; nil when it only found the task still running.
	Err error
}

// resolve returns o (which may be nil) with its defaults, or an *sdk.ValidationError.
func (o *PollOptions) resolve() (PollOptions, error) {
	var r PollOptions
	if o != nil {
		r = *o
	}
	switch {
	case r.MinDelay < 0 || r.MaxDelay < 0 || r.Timeout < 0 || r.MaxPolls < 0:
		return r, invalid("poll options", "delays, timeout and poll cap must not be negative")
	case r.MaxDelay != 0 && r.MaxDelay < r.MinDelay:
		return r, invalid("poll options", "MaxDelay must not be below MinDelay")
	}
	if r.MinDelay == 0 {
		r.MinDelay = DefaultPollMinDelay
		if r.MaxDelay != 0 {
			r.MinDelay = min(r.MinDelay, r.MaxDelay) // never above a MaxDelay that was given
		}
	}
	r.MaxDelay = cmp.Or(r.MaxDelay, max(DefaultPollMaxDelay, r.MinDelay))
	r.Timeout = cmp.Or(r.Timeout, DefaultPollTimeout)
	r.MaxPolls = cmp.Or(r.MaxPolls, DefaultMaxPolls)
	return r, nil
}

// task is an asynchronous task being waited for.
type task struct {
	endpoint Endpoint
	asin     string
	taskID   string
	polls    int
	// finished is the finish time reported by the status query that found the task done.
	finished string
}

// step is one request of a wait: it reports whether the task is over (with err its outcome)
// or, when not, why the request asks for another try (nil when the task is only running).
type step func(ctx context.Context) (done bool, err error)

// await starts a task with start and then queries its status with check until one of them
// reports it over, on the schedule of po (validated before start is sent). It is the one
// polling loop of the package, on internal/poll: the context ends any wait at once, and a
// wait that ends early is a *WaitError.
func (c *Client) await(ctx context.Context, po *PollOptions, t *task, start, check step) error {
	o, err := po.resolve()
	if err != nil {
		return err
	}
	begin := c.clock.Now()
	deadline := begin.Add(o.Timeout)
	try := func(ctx context.Context, attempt int) (bool, time.Duration, error) {
		run := start
		if attempt > 1 {
			t.polls = attempt - 1
			run = check
		}
		done, err := run(ctx)
		if done {
			return true, 0, err
		}
		now := c.clock.Now()
		left := deadline.Sub(now)
		if left <= 0 {
			return true, 0, t.waitError(ErrWaitTimeout, now.Sub(begin), err)
		}
		// The next wait is half the time elapsed, within [MinDelay, MaxDelay].
		return false, min(max(now.Sub(begin)/2, o.MinDelay), o.MaxDelay, left), err
	}
	opts := poll.Options{MaxAttempts: o.MaxPolls + 1, Clock: c.clock}
	if o.Progress != nil {
		opts.Progress = func(p poll.Progress) {
			// A wait follows only a status query that found the task running or did not list it.
			o.Progress(TaskProgress{Endpoint: t.endpoint, ASIN: t.asin, TaskID: t.taskID, Polls: p.Attempt - 1,
				Status: TaskPending, Elapsed: p.Elapsed, Wait: p.Wait, Err: p.Err})
		}
	}
	err = poll.Run(ctx, opts, try)
	var stopped *poll.StoppedError
	if errors.As(err, &stopped) {
		reason := stopped.Reason
		if errors.Is(reason, poll.ErrMaxAttempts) {
			reason = ErrPollLimit
		}
		return t.waitError(reason, stopped.Elapsed, stopped.Last)
	}
	return err
}

// waitError builds the *WaitError of a wait that ended before the task.
func (t *task) waitError(reason error, elapsed time.Duration, last error) *WaitError {
	return &WaitError{Endpoint: t.endpoint, ASIN: t.asin, TaskID: t.taskID, Polls: t.polls, Elapsed: elapsed, Reason: reason, Last: last}
}

// statusStep is the step that sends body to endpoint, a status query, and settles t by the
// answer. A failed query is tried again on the schedule when the task is still running or not
// listed yet (codes 20, 21, 99 and 11, reported as nil), the per-minute limit persisted
// through the retries, or the request got no answer.
func (c *Client) statusStep(t *task, endpoint Endpoint, domain Domain, body any) step {
	return func(ctx context.Context) (bool, error) {
		var states statusList
		_, err := c.call(ctx, endpoint, domain, body, &envelope{data: &states})
		var re *sdk.RequestError
		switch {
		case err == nil:
			return t.settle(states)
		case ctx.Err() != nil:
			return true, err
		case errors.Is(err, ErrTaskRunning), errors.Is(err, ErrNoMoreData):
			return false, nil
		case errors.Is(err, ErrRateLimited), errors.As(err, &re):
			return false, err
		}
		return true, err
	}
}

// taskState is one entry of a status query's answer.
type taskState struct {
	asin     string
	taskID   string
	status   TaskStatus
	finished string
	// listed is false for an entry that says there is no such task (yet).
	listed bool
}

// statusList is the Data of a status query: strings "<ASIN>:<status>:<finish time or -->",
// or objects {"taskId", "status"} in the other enumeration some answers use (see
// objectStates); null is an empty list.
type statusList []taskState

// UnmarshalJSON reads the entries; an entry of neither form is refused.
func (s *statusList) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, (*[]taskState)(s)); err != nil {
		return fmt.Errorf("task status: %w", err)
	}
	return nil
}

// objectStates maps the status of an object entry to a TaskStatus: 0 done, 99 collecting, 4
// no credit, 97 no such ASIN, 98 failed. 11 (no such task) is not listed; another number is
// kept as it is.
var objectStates = map[int]TaskStatus{
	0: TaskDone, 99: TaskPending, 4: TaskNoCredit, 97: TaskNoProduct, 98: TaskFailed,
}

// UnmarshalJSON reads one entry of a status query, in either form.
func (st *taskState) UnmarshalJSON(item []byte) error {
	var line string
	if json.Unmarshal(item, &line) == nil {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) < 2 {
			return fmt.Errorf("%q is not <ASIN>:<status>:<finish time>", line)
		}
		n, ok := wholeNumber(parts[1])
		if !ok {
			return fmt.Errorf("%q has no numeric status", line)
		}
		*st = taskState{asin: strings.TrimSpace(parts[0]), status: TaskStatus(n), listed: true}
		if len(parts) == 3 && strings.TrimSpace(parts[2]) != "--" {
			st.finished = strings.TrimSpace(parts[2])
		}
		return nil
	}
	var obj struct {
		TaskID lenient.Opt[lenient.Text] `json:"taskId"`
		Status *int                      `json:"status"`
		ASIN   string                    `json:"asin"`
	}
	if err := json.Unmarshal(item, &obj); err != nil || obj.Status == nil {
		return fmt.Errorf("entry %.60s is neither a string nor {taskId, status}", item)
	}
	*st = taskState{asin: obj.ASIN, taskID: string(obj.TaskID.Or("")), status: TaskStatus(*obj.Status),
		listed: *obj.Status != 11}
	if s, ok := objectStates[*obj.Status]; ok {
		st.status = s
	}
	return nil
}

// settle reads a status answer for t: the entries of t's task (by id when both sides have
// one, else by ASIN). Any entry still pending, or in a state the package does not know, keeps
// the task running; otherwise a finished entry ends it; otherwise a failed one ends it with a
// *TaskError. A task not listed yet keeps it running.
func (t *task) settle(states statusList) (done bool, err error) {
	var failed *taskState
	finished := ""
	for i := range states {
		st := &states[i]
		if !st.listed || !t.owns(st) {
			continue
		}
		switch st.status {
		case TaskDone:
			done, finished = true, max(finished, st.finished)
		case TaskFailed, TaskNoCredit, TaskNoProduct:
			failed = st
		default:
			return false, nil
		}
	}
	switch {
	case done:
		t.finished = finished
		return true, nil
	case failed != nil:
		return true, &TaskError{Endpoint: t.endpoint, ASIN: t.asin, TaskID: t.taskID, Status: failed.status, Polls: t.polls}
	}
	return false, nil
}

// owns reports whether a status entry is t's.
func (t *task) owns(st *taskState) bool {
	if t.taskID != "" && st.taskID != "" {
		return st.taskID == t.taskID
	}
	return strings.EqualFold(st.asin, t.asin)
}
