package productdata

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/jsonmember"
	"github.com/agentapis/sdk/internal/poll"
)

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
// reports it over, within the client's wait policy. It is the one polling loop of the
// package, on internal/poll: every status query is a request (counted, paced, and possibly
// charged), so the schedule asks rarely: after the starting request it waits MinDelay, and
// then half the time elapsed so far, between MinDelay and MaxDelay, with the last query at
// the Timeout. The context ends any wait at once, and a wait that ends early is an
// *sdk.WaitError matching ErrTaskRunning.
func (c *Client) await(ctx context.Context, operation string, t *task, start, check step) error {
	p := c.wait
	w := poll.Waiting{Service: serviceName, Operation: operation, Subject: t.asin, Policy: p, Clock: c.clock,
		Sentinels: []error{ErrTaskRunning},
		Next: func(_ int, elapsed time.Duration) time.Duration {
			return min(max(elapsed/2, p.MinDelay), p.MaxDelay, p.Timeout-elapsed)
		},
	}
	return poll.Wait(ctx, w, func(ctx context.Context, attempt int) (bool, time.Duration, error) {
		run := start
		if attempt > 1 {
			t.polls = attempt - 1
			run = check
		}
		done, err := run(ctx)
		return done, 0, err
	})
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
		TaskID jsonmember.Optional[jsonmember.Text] `json:"taskId"`
		Status *int                                 `json:"status"`
		ASIN   string                               `json:"asin"`
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
