package httpcore

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
)

// envelope is a productdata-like answer: failures are codes inside HTTP 200.
type envelope struct {
	Code    *int            `json:"Code"`
	Message string          `json:"Message"`
	Data    json.RawMessage `json:"Data"`
}

// decodeEnvelope is a Service.Decode that checks Code before reading Data, and asks for a
// retry on code 501 (a per-minute limit: the request was not executed).
func decodeEnvelope(body []byte, out any) error {
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return err
	}
	switch {
	case env.Code == nil:
		return errors.New(`field "Code" is missing`)
	case *env.Code == 501:
		return &Failure{Code: "501", Message: env.Message, Retry: true, RetryAfter: time.Millisecond}
	case *env.Code != 0:
		return &Failure{Code: strconv.Itoa(*env.Code), Message: env.Message}
	case out == nil:
		return nil
	}
	return json.Unmarshal(env.Data, out)
}

func TestFailureInA2xxBodyIsAnAPIError(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_, _ = io.WriteString(w, `{"Code":401,"Message":"endpoint not open for this domain","Data":null}`)
	})
	c := newTestClient(t, Service{Decode: decodeEnvelope}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](fastRetry))
	var out map[string]any
	_, err := c.Do(t.Context(), &Request{Method: http.MethodPost, Path: "/api/ProductRequest", Body: JSON(map[string]any{"asin": "B0X"}), Retry: RetrySafe}, &out)
	var ae *sdk.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, http.StatusOK, ae.StatusCode)
	assert.Equal(t, "401", ae.Code)
	assert.Equal(t, "endpoint not open for this domain", ae.Message)
	assert.Contains(t, string(ae.Body), `"Code":401`, "the body is kept")
	assert.Equal(t, int32(1), calls.Load(), "a failure that does not ask for a retry is not retried")
	assert.Nil(t, out)
}

func TestRetryableFailureIsRetriedEvenForPOST(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) < 3 {
			_, _ = io.WriteString(w, `{"Code":501,"Message":"per-minute limit reached"}`)
			return
		}
		_, _ = io.WriteString(w, `{"Code":0,"Data":{"ASIN":"B0X","SalesPrice":1999}}`)
	})
	c := newTestClient(t, Service{Decode: decodeEnvelope}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](fastRetry))
	var out struct {
		ASIN       string
		SalesPrice int
	}
	resp, err := c.Do(t.Context(), &Request{Method: http.MethodPost, Path: "/api/ProductRequest", Body: JSON(map[string]any{"asin": "B0X"})}, &out)
	require.NoError(t, err)
	assert.Equal(t, 3, resp.Attempts)
	assert.Equal(t, "B0X", out.ASIN)
	assert.Equal(t, 1999, out.SalesPrice)

	calls.Store(0)
	_, err = c.Do(t.Context(), &Request{Method: http.MethodPost, Path: "/api/ProductRequest", Retry: RetryNever}, &out)
	var ae *sdk.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "501", ae.Code)
	assert.Equal(t, int32(1), calls.Load(), "NoRetry sends once even when the failure asks for a retry")
}

func TestRetryableFailureGivesUpWithTheLastFailure(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_, _ = io.WriteString(w, `{"Code":501,"Message":"per-minute limit reached"}`)
	})
	c := newTestClient(t, Service{Decode: decodeEnvelope}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](fastRetry))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/x"}, nil)
	var ae *sdk.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "501", ae.Code)
	assert.Equal(t, 4, ae.Attempts)
	assert.Equal(t, int32(4), calls.Load())
	assert.Contains(t, err.Error(), "after 4 attempts")
}

func TestDecodeHookErrorIsADecodeErrorAndRunsOnce(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"Message":"no code here"}`)
	})
	var runs atomic.Int32
	decode := func(body []byte, out any) error { runs.Add(1); return decodeEnvelope(body, out) }
	c := newTestClient(t, Service{Decode: decode}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](fastRetry))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/x"}, nil)
	var de *sdk.DecodeError
	require.ErrorAs(t, err, &de)
	assert.Contains(t, de.Error(), `field "Code" is missing`)
	assert.Contains(t, de.Excerpt, "no code here")
	assert.Equal(t, int32(1), runs.Load(), "a body that does not decode is neither retried nor decoded twice")
}

func TestDecodeHookSeesBodiesWithoutAnOutValue(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"Code":97,"Message":"product does not exist"}`)
	})
	c := newTestClient(t, Service{Decode: decodeEnvelope}, WithBaseURL[*testConfig](srv.URL))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodDelete, Path: "/x"}, nil)
	var ae *sdk.APIError
	require.ErrorAs(t, err, &ae, "an envelope failure is found even when the caller wants no value")
	assert.Equal(t, "97", ae.Code)
}
