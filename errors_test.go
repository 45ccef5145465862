package sdk_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentapis/sdk"
)

func TestAPIErrorMatchesItsStatusAndItsSentinels(t *testing.T) {
	t.Parallel()
	playerNotFound := errors.New("chartdiff: player_not_found")
	err := fmt.Errorf("wrapped: %w", &sdk.APIError{Service: "chartdiff", StatusCode: http.StatusNotFound, Code: "player_not_found",
		Sentinels: []error{playerNotFound}})
	assert.ErrorIs(t, err, sdk.ErrNotFound)
	assert.ErrorIs(t, err, playerNotFound)
	assert.NotErrorIs(t, err, sdk.ErrUnauthorized)
	for status, sentinel := range map[int]error{401: sdk.ErrUnauthorized, 403: sdk.ErrForbidden, 404: sdk.ErrNotFound, 409: sdk.ErrConflict, 429: sdk.ErrRateLimited} {
		assert.ErrorIs(t, &sdk.APIError{StatusCode: status}, sentinel, "status %d", status)
	}
	assert.NotErrorIs(t, &sdk.APIError{StatusCode: 500}, sdk.ErrNotFound)
}

func TestAPIErrorTextNamesTheFailure(t *testing.T) {
	t.Parallel()
	e := &sdk.APIError{Service: "hosting", Method: "GET", Path: "/api/v1/repos/x", StatusCode: 404, Code: "not_found", Message: "no such repository", Attempts: 2}
	assert.Equal(t, "hosting: GET /api/v1/repos/x: 404 Not Found: not_found: no such repository (after 2 attempts)", e.Error())
	bare := &sdk.APIError{Service: "hosting", Method: "GET", Path: "/p", StatusCode: 502, Body: []byte(strings.Repeat("x", 300))}
	assert.Contains(t, bare.Error(), `body "`+strings.Repeat("x", 200)+`..."`, "a body without code or message is quoted, cut at 200 bytes")
}

func TestRateLimitErrorMatchesWhateverItsStatus(t *testing.T) {
	t.Parallel()
	e := &sdk.RateLimitError{APIError: &sdk.APIError{StatusCode: http.StatusForbidden, Code: "quota_exceeded"}}
	assert.ErrorIs(t, e, sdk.ErrRateLimited)
	assert.ErrorIs(t, e, sdk.ErrForbidden, "the *APIError's own status still matches")
	var ae *sdk.APIError
	assert.ErrorAs(t, e, &ae)
}

func TestMissingCredentialError(t *testing.T) {
	t.Parallel()
	required := errors.New("gpuprice: api_key_required")
	e := &sdk.MissingCredentialError{Service: "gpuprice", Operation: "History", Credential: "API key",
		Reason: "use WithAPIKey", Sentinels: []error{required}}
	assert.ErrorIs(t, e, sdk.ErrMissingCredential)
	assert.ErrorIs(t, e, required)
	assert.Equal(t, "gpuprice: History needs the API key: use WithAPIKey", e.Error())
}

func TestValidationDecodeAndRequestErrors(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "chartdiff: invalid chart_id: must be positive", (&sdk.ValidationError{Service: "chartdiff", Field: "chart_id", Reason: "must be positive"}).Error())
	cause := errors.New("unexpected end of JSON input")
	de := &sdk.DecodeError{Service: "gpuprice", Method: "GET", Path: "/v1/gpus", StatusCode: 200, ContentType: "application/json", Excerpt: "{", Err: cause}
	assert.ErrorIs(t, de, cause)
	assert.Equal(t, `gpuprice: GET /v1/gpus: decoding 200 response (application/json): unexpected end of JSON input: body "{"`, de.Error())
	re := &sdk.RequestError{Service: "hosting", Method: "PUT", Path: "/f", Attempts: 3, Err: cause, Detail: "connection reset"}
	assert.ErrorIs(t, re, cause)
	assert.Equal(t, "hosting: PUT /f: connection reset (after 3 attempts)", re.Error())
}
