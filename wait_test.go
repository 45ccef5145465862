package sdk_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/agentapis/sdk"
)

func TestWaitErrorMatchesReasonLastAndSentinels(t *testing.T) {
	t.Parallel()
	running := errors.New("productdata: task still running")
	busy := &sdk.APIError{Service: "chartdiff", StatusCode: 503, Code: "analysis_busy"}
	err := fmt.Errorf("wrapped: %w", &sdk.WaitError{Service: "chartdiff", Operation: "Analyze", Reason: sdk.ErrWaitTimeout,
		Last: busy, Sentinels: []error{running}})
	assert.ErrorIs(t, err, sdk.ErrWaitTimeout)
	assert.ErrorIs(t, err, running)
	assert.ErrorIs(t, err, busy)
	var ae *sdk.APIError
	assert.ErrorAs(t, err, &ae, "the last answer is reachable with errors.As")
	assert.NotErrorIs(t, err, sdk.ErrWaitAttempts)

	canceled := &sdk.WaitError{Reason: context.Canceled}
	assert.ErrorIs(t, canceled, context.Canceled)
	assert.NotErrorIs(t, canceled, running)
	assert.Equal(t, []error{context.Canceled}, canceled.Unwrap(), "no last error: the reason alone")
}

func TestWaitErrorTextNamesTheWait(t *testing.T) {
	t.Parallel()
	err := &sdk.WaitError{Service: "productdata", Operation: "CollectReviews", Subject: "B0TEST0001", Attempts: 13,
		Elapsed: 90*time.Second + 123456*time.Microsecond, Reason: sdk.ErrWaitAttempts, Last: errors.New("rate limited")}
	assert.Equal(t, "productdata: CollectReviews B0TEST0001: wait attempt limit reached after 13 attempts in 1m30.123s: last attempt: rate limited",
		err.Error())
	bare := &sdk.WaitError{Service: "gpuprice", Operation: "BuyKey", Attempts: 1, Reason: sdk.ErrWaitTimeout}
	assert.Equal(t, "gpuprice: BuyKey: wait timed out after 1 attempts in 0s", bare.Error())
}
