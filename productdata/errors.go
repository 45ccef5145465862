package productdata

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// sentinels are the package's sentinel errors and the business codes that mean each. The
// codes that mean the same as an HTTP status a caller branches on match the sdk sentinel of
// that status.
var sentinels = httpcore.NewSentinels(serviceName).
	Alias(sdk.ErrUnauthorized, "401", "400", "402", "9").
	Alias(sdk.ErrNotFound, "97", "13").
	Alias(sdk.ErrRateLimited, "501")

// ErrAlreadyExists (code 12, the data already exists, such as a review collection repeated
// within two hours; 106, already subscribed).
var ErrAlreadyExists = sentinels.New("already exists", "12", "106")

// ErrConflict is [sdk.ErrConflict]: every HTTP 409.
var ErrConflict = sdk.ErrConflict

// ErrExecutionFailed (code -1): the service failed to execute the request; Message says why.
var ErrExecutionFailed = sentinels.New("execution failed", "-1")

// ErrForbidden is [sdk.ErrForbidden]: every HTTP 403.
var ErrForbidden = sdk.ErrForbidden

// ErrInvalidParams (code 10, a parameter is wrong; 14, more than 100 ASINs; 15, more than 10
// ASINs in a query; 17, more than 30 ASINs to collect; 18, more than 20 task details; 19, only
// sub-categories are supported; 22, only one ASIN may be monitored; 23, data older than two
// years; 24, monthly history is not supported).
var ErrInvalidParams = sentinels.New("invalid parameters", "10", "14", "15", "17", "18", "19", "22", "23", "24")

// ErrNoMoreData (code 11, "no data available"): paging went past the last page, or the query
// has no data. The iterators of this package end cleanly on it.
var ErrNoMoreData = sentinels.New("no more data", "11")

// ErrNotFound is [sdk.ErrNotFound]: code 97 (the ASIN or product does not exist), 13 (the
// first page of reviews does not exist), and every HTTP 404. A *NotFoundError, for a product
// lookup answered with no product, matches it too.
var ErrNotFound = sdk.ErrNotFound

// ErrQuotaExhausted (code 4, not enough credit points; 500, the month's requests are used up;
// 502, the day's; 694, not enough requests left or the API not activated for the account):
// wait for the reset or buy more. Never retried.
var ErrQuotaExhausted = sentinels.New("request quota exhausted", "4", "500", "502", "694")

// ErrRateLimited is [sdk.ErrRateLimited]: code 501 (the per-minute limit), returned as an
// *sdk.RateLimitError, and every HTTP 429. The client retries code 501 within its retry
// policy, waiting the capped minute the service asks for, then returns it.
var ErrRateLimited = sdk.ErrRateLimited

// ErrTaskFailed (code 98, a real-time fetch or collection failed; 503, the service could not
// register the task at this time): a *TaskError whose status query reports a failure matches
// it too.
var ErrTaskFailed = sentinels.New("task failed", "98", "503")

// ErrTaskRunning (codes 20 and 21, real-time data of some or all products is still being
// calculated; 99, a real-time fetch or collection is under way, about five minutes): ask
// again later. RefreshProduct and CollectReviews wait through it, and the *sdk.WaitError of a
// wait that ended before the task did matches it too.
var ErrTaskRunning = sentinels.New("task still running", "20", "21", "99")

// ErrUnauthorized is [sdk.ErrUnauthorized]: code 401 (endpoint not open to the account or not
// in its plan, also given for a wrong or missing domain), 400 (the caller's IP is not
// whitelisted), 402 (no permission to view the data), TikTok's 9 (access restricted), and
// every HTTP 401 (a key the gateway refused). Check the key and the domain first.
var ErrUnauthorized = sdk.ErrUnauthorized

// ErrUnsupported (code 16): the endpoint does not exist on this site.
var ErrUnsupported = sentinels.New("endpoint not supported on this site", "16")

// NotFoundError reports a lookup that succeeded (Code 0, and charged) without the data asked
// for: the service returns no data for an ASIN that does not exist or whose listing is gone.
// errors.Is(err, ErrNotFound) matches it.
type NotFoundError struct {
	// Endpoint and Domain identify the request.
	Endpoint Endpoint
	Domain   Domain
	// Missing names what did not come back: ASINs, or a keyword.
	Missing []string
	// Units are the request units the answer reported.
	Units Units
	// Response describes the answer.
	Response sdk.Response
}

// Error names the missing products.
func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%s: %s on %s: no data for %s", serviceName, e.Endpoint, e.Domain, strings.Join(e.Missing, ", "))
}

// Is matches ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// notFound builds the *NotFoundError of a lookup answered without the data. Its Response keeps
// the answer's request id and header (names and values) with the client's keys scrubbed, as an
// *sdk.APIError keeps them: an error may be printed whole (%#v), and a gateway may echo the
// Authorization header.
func (c *Client) notFound(endpoint Endpoint, domain Domain, missing []string, units Units, resp sdk.Response) *NotFoundError {
	return &NotFoundError{Endpoint: endpoint, Domain: domain, Missing: missing, Units: units,
		Response: c.core.RedactResponse(resp)}
}

// TaskStatus is the state of an asynchronous task as its status query reports it.
type TaskStatus int

// The states of a real-time product fetch or a review collection, as their status queries
// write them ("<ASIN>:<status>:<finish time>").
const (
	TaskPending   TaskStatus = 0 // still running
	TaskDone      TaskStatus = 1 // finished; the finish time is set
	TaskFailed    TaskStatus = 3 // the fetch or collection failed
	TaskNoCredit  TaskStatus = 4 // the account has not enough credit points
	TaskNoProduct TaskStatus = 5 // the ASIN does not exist
)

// TaskError reports an asynchronous task that its status query says ended without success.
// errors.Is matches ErrTaskFailed (TaskFailed), ErrQuotaExhausted (TaskNoCredit) or
// ErrNotFound (TaskNoProduct). A state the package does not know is waited through, not
// reported.
type TaskError struct {
	// Endpoint is the request that started the task.
	Endpoint Endpoint
	// ASIN is the product of the task; TaskID is the task's id, when the service gave one.
	ASIN   string
	TaskID string
	// Status is the state the status query reported.
	Status TaskStatus
	// Polls is the number of status queries made.
	Polls int
}

// Error names the task and its state.
func (e *TaskError) Error() string {
	what := fmt.Sprintf("ended in state %d", int(e.Status))
	switch e.Status {
	case TaskFailed:
		what = "failed"
	case TaskNoCredit:
		what = "stopped: not enough credit points"
	case TaskNoProduct:
		what = "stopped: the ASIN does not exist"
	}
	return fmt.Sprintf("%s: %s task for %s %s after %d polls", serviceName, e.Endpoint, e.ASIN, what, e.Polls)
}

// Is matches the sentinel of the task's state.
func (e *TaskError) Is(target error) bool {
	switch e.Status {
	case TaskNoCredit:
		return target == ErrQuotaExhausted
	case TaskNoProduct:
		return target == ErrNotFound
	}
	return target == ErrTaskFailed
}

// classify is the client's Service.ClassifyAt: the per-minute limit, code 501 in HTTP 200,
// becomes an *sdk.RateLimitError like a 429, with the quota state of the answer's headers at
// now, on the client's clock.
func classify(err error, now time.Time) error {
	if ae, ok := err.(*sdk.APIError); ok && ae.StatusCode == http.StatusOK && ae.Code == strconv.Itoa(codeRateLimited) {
		return &sdk.RateLimitError{APIError: ae, RateLimit: httpcore.ParseRateLimit(ae.Header, now)}
	}
	return err
}

// invalid returns the *sdk.ValidationError for a refused parameter.
func invalid(field, reason string) error {
	return &sdk.ValidationError{Service: serviceName, Field: field, Reason: reason}
}
