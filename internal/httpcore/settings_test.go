package httpcore

import (
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
)

func TestOptionsRefuseBadInput(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		opt   testOption
		field string
	}{
		"empty base URL":      {WithBaseURL[*testConfig](""), "base URL"},
		"relative base URL":   {WithBaseURL[*testConfig]("/x"), "base URL"},
		"password in URL":     {WithBaseURL[*testConfig]("https://u:p@h"), "base URL"},
		"nil HTTP client":     {WithHTTPClient[*testConfig](nil), "HTTP client"},
		"negative attempts":   {WithRetry[*testConfig](sdk.RetryPolicy{MaxAttempts: -1}), "retry policy"},
		"negative delay":      {WithRetry[*testConfig](sdk.RetryPolicy{BaseDelay: -time.Second}), "retry policy"},
		"max below base":      {WithRetry[*testConfig](sdk.RetryPolicy{BaseDelay: time.Second, MaxDelay: time.Millisecond}), "retry policy"},
		"empty user agent":    {WithUserAgent[*testConfig](" "), "user agent"},
		"user agent newline":  {WithUserAgent[*testConfig]("a\r\nX-Evil: 1"), "user agent"},
		"nil clock":           {WithClock[*testConfig](nil), "clock"},
		"negative wait":       {WithWait[*testConfig](sdk.WaitPolicy{Timeout: -time.Second}), "wait policy"},
		"negative wait delay": {WithWait[*testConfig](sdk.WaitPolicy{MinDelay: -time.Second}), "wait policy"},
		"negative wait tries": {WithWait[*testConfig](sdk.WaitPolicy{MaxAttempts: -1}), "wait policy"},
		"wait max below min":  {WithWait[*testConfig](sdk.WaitPolicy{MinDelay: time.Second, MaxDelay: time.Millisecond}), "wait policy"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := Configure("testsvc", &testConfig{}, []testOption{tc.opt})
			var ve *sdk.ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, tc.field, ve.Field)
			assert.Equal(t, "testsvc", ve.Service)
		})
	}
}

func TestNewClientNeedsBaseURL(t *testing.T) {
	t.Setenv("TESTSVC_URL", "")
	_, err := NewClient(&Settings{}, Service{Name: "testsvc", BaseURLEnv: "TESTSVC_URL"})
	var ve *sdk.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "base URL", ve.Field)
	assert.Contains(t, err.Error(), "TESTSVC_URL")
}

func TestLoadEnvReadsURLAndSecretsOnlyTogether(t *testing.T) {
	t.Setenv("TESTSVC_URL", "https://from-env.example/root")
	t.Setenv("TESTSVC_KEY", "key-from-env")
	s := &Settings{}
	secrets, err := s.LoadEnv("testsvc", "TESTSVC_URL", "TESTSVC_KEY", "TESTSVC_UNSET")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"TESTSVC_KEY": "key-from-env"}, secrets, "unset variables are left out")
	c, err := NewClient(s, Service{Name: "testsvc", BaseURLEnv: "TESTSVC_URL", PathPrefix: "/v1"})
	require.NoError(t, err)
	assert.Equal(t, "https://from-env.example/root/v1", c.Root().String())

	cfg := &testConfig{}
	require.NoError(t, Configure("testsvc", cfg, []testOption{WithBaseURL[*testConfig]("https://option.example")}))
	secrets, err = cfg.LoadEnv("testsvc", "TESTSVC_URL", "TESTSVC_KEY")
	require.NoError(t, err)
	assert.Empty(t, secrets, "an explicitly addressed server never gets the environment's credentials")
	c, err = NewClient(&cfg.Settings, Service{Name: "testsvc", BaseURLEnv: "TESTSVC_URL"})
	require.NoError(t, err)
	assert.Equal(t, "https://option.example", c.Root().String(), "the option wins over the environment")

	t.Setenv("TESTSVC_URL", "not a url")
	_, err = (&Settings{}).LoadEnv("testsvc", "TESTSVC_URL", "TESTSVC_KEY")
	var ve *sdk.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "TESTSVC_URL", ve.Field)
	assert.Equal(t, "testsvc", ve.Service, "the error names the service")
	assert.NotContains(t, err.Error(), "not a url")
}

func TestNewClientRefusesBadCredentials(t *testing.T) {
	t.Parallel()
	cfg := &testConfig{}
	require.NoError(t, Configure("testsvc", cfg, []testOption{WithBaseURL[*testConfig]("https://h")}))
	for _, cr := range []Credential{{Header: "", Value: "abcdef"}, {Header: "X-Key", Value: "ab"}, {Header: "X-Key", Value: "abcd\r\nX-Evil: 1"},
		{Header: "X-Key", Value: "abcd efgh"}, {Header: "X-Key", Value: "abcd\u00a0efgh"}, {Header: "X-Key", Prefix: "Bearer\n", Value: "abcdefgh"}} {
		_, err := NewClient(&cfg.Settings, Service{Name: "testsvc", Credentials: []Credential{cr}})
		var ve *sdk.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "credential", ve.Field)
		assert.NotContains(t, err.Error(), "abcd", "the refusal never quotes the value")
	}
}

func TestUserAgentAndDefaultHeaders(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"ua":"`+r.Header.Get("User-Agent")+`","accept":"`+r.Header.Get("Accept")+`","extra":"`+r.Header.Get("X-Extra")+`"}`)
	})
	var out struct{ UA, Accept, Extra string }
	c := newTestClient(t, Service{Name: "chartdiff"}, WithBaseURL[*testConfig](srv.URL))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/", Header: http.Header{"X-Extra": {"1"}}}, &out)
	require.NoError(t, err)
	assert.Equal(t, "agentapis-sdk-go/"+Version+" chartdiff", out.UA)
	assert.Equal(t, "application/json", out.Accept)
	assert.Equal(t, "1", out.Extra)

	c = newTestClient(t, Service{Name: "chartdiff"}, WithBaseURL[*testConfig](srv.URL), WithUserAgent[*testConfig]("my-agent/1.2"))
	_, err = c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/"}, &out)
	require.NoError(t, err)
	assert.Equal(t, "my-agent/1.2 agentapis-sdk-go/"+Version+" chartdiff", out.UA)
}

func TestPerRequestCredentialsReplaceDefaults(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"key":"`+r.Header.Get("x-phm-key")+`","token":"`+r.Header.Get("x-hm-token")+`"}`)
	})
	c := newTestClient(t, Service{Credentials: []Credential{{Header: "x-phm-key", Value: "sk-default-key"}}}, WithBaseURL[*testConfig](srv.URL))
	var out struct{ Key, Token string }
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/"}, &out)
	require.NoError(t, err)
	assert.Equal(t, "sk-default-key", out.Key)
	assert.Empty(t, out.Token)

	_, err = c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/", Credentials: []Credential{{Header: "x-hm-token", Value: "account-token"}}}, &out)
	require.NoError(t, err)
	assert.Empty(t, out.Key, "the request's own credentials replace the default ones")
	assert.Equal(t, "account-token", out.Token)

	_, err = c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/", Credentials: []Credential{}}, &out)
	require.NoError(t, err)
	assert.Empty(t, out.Key, "an empty list sends the request anonymously")
	assert.Empty(t, out.Token)
}

func TestBadRequestsRefusedBeforeSending(t *testing.T) {
	t.Parallel()
	sent := false
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { sent = true })
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL))
	for _, req := range []*Request{
		{Method: http.MethodGet, Path: "https://elsewhere.example/x"},
		{Method: http.MethodGet, Path: "/a/../../etc"},
		{Method: "BAD METHOD", Path: "/x"},
		{Method: http.MethodGet, Path: "/x", Credentials: []Credential{{Header: "X-Key", Value: "k"}}},
	} {
		_, err := c.Do(t.Context(), req, nil)
		var ve *sdk.ValidationError
		require.ErrorAs(t, err, &ve, "request %+v", req.Path)
	}
	_, err := c.Do(t.Context(), &Request{Method: http.MethodPost, Path: "/x", Body: JSON(func() {})}, nil)
	require.Error(t, err)
	assert.False(t, sent)
}

func TestStreamReturnsLiveBody(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"code":"not_found","message":"no such report"}`)
			return
		}
		w.Header().Set("Content-Type", "text/csv")
		_, _ = io.WriteString(w, "economy,year\nUS,2025\n")
	})
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL))
	resp, err := c.Stream(t.Context(), &Request{Method: http.MethodGet, Path: "/report/a"})
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, "economy,year\nUS,2025\n", string(body))
	assert.Equal(t, "text/csv", resp.Header.Get("Content-Type"))

	_, err = c.Stream(t.Context(), &Request{Method: http.MethodGet, Path: "/missing"})
	var apiErr *sdk.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "not_found", apiErr.Code)
	assert.Equal(t, "no such report", apiErr.Message)
}

func TestDecodeErrorBodyShapes(t *testing.T) {
	t.Parallel()
	cases := []struct{ body, code, message string }{
		{`{"error":{"code":"invalid_chart_id","message":"chart_id must be positive"}}`, "invalid_chart_id", "chart_id must be positive"},
		{`{"code":"insufficient_scope","message":"needs usage:read"}`, "insufficient_scope", "needs usage:read"},
		{`{"error":"rate_limit_exceeded","message":"hourly quota"}`, "rate_limit_exceeded", "hourly quota"},
		{`{"ok":false,"error":"Repository not found"}`, "", "Repository not found"},
		{`{"error":"not_found"}`, "not_found", ""},
		{`{"Code":40001,"Message":"bad domain"}`, "40001", "bad domain"},
		{`{"detail":"Not Found"}`, "", "Not Found"},
		{`<html>502</html>`, "", ""},
		{``, "", ""},
		{`[1,2]`, "", ""},
	}
	for _, tc := range cases {
		code, msg := DecodeErrorBody([]byte(tc.body))
		assert.Equal(t, tc.code, code, tc.body)
		assert.Equal(t, tc.message, msg, tc.body)
	}
}

func TestValidationErrorMessage(t *testing.T) {
	t.Parallel()
	err := &sdk.ValidationError{Service: "chartdiff", Field: "pageSize", Reason: "must be between 1 and 200"}
	assert.Equal(t, "chartdiff: invalid pageSize: must be between 1 and 200", err.Error())
}

func TestNoRetrySendsOnce(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](fastRetry))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/report/a", Retry: RetryNever}, nil)
	var apiErr *sdk.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, int32(1), calls.Load())
	assert.Equal(t, 1, apiErr.Attempts)
}

func TestResponseCarriesRequestID(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req-42")
		_, _ = io.WriteString(w, `{}`)
	})
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL))
	resp, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "req-42", resp.RequestID)
}

func TestServiceSecretsScrubbedAndSensitiveBodyWithheld(t *testing.T) {
	t.Parallel()
	const token = "account-token-0123456789"
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/keys" {
			_, _ = io.WriteString(w, `{"plaintext":"sk-0123456789abcdef0123456789abcdef"`)
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"code":"bad","message":"token `+token+` refused"}}`)
	})
	c := newTestClient(t, Service{Secrets: []string{token}}, WithBaseURL[*testConfig](srv.URL))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/x"}, nil)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), token)
	assert.Contains(t, err.Error(), "token [REDACTED] refused")

	var out map[string]string
	_, err = c.Do(t.Context(), &Request{Method: http.MethodPost, Path: "/keys", SensitiveBody: true}, &out)
	var decErr *sdk.DecodeError
	require.ErrorAs(t, err, &decErr)
	assert.NotContains(t, err.Error(), "sk-0123456789abcdef")
	assert.Contains(t, decErr.Excerpt, "withheld")
}

func TestDecodeWrapsParseFailures(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"items":"not a list"}`)
	})
	c := newTestClient(t, Service{PathPrefix: "/api/v1"}, WithBaseURL[*testConfig](srv.URL))
	req := &Request{Method: http.MethodGet, Path: "/catalog"}
	resp, err := c.Do(t.Context(), req, nil)
	require.NoError(t, err)
	shapeErr := errors.New("no list of products")
	err = c.Decode(req, resp, func(body []byte) error {
		assert.JSONEq(t, `{"items":"not a list"}`, string(body))
		return shapeErr
	})
	var decErr *sdk.DecodeError
	require.ErrorAs(t, err, &decErr)
	assert.ErrorIs(t, err, shapeErr, "the parse error stays reachable")
	assert.Equal(t, "/api/v1/catalog", decErr.Path, "the path the response answered")
	assert.Equal(t, `{"items":"not a list"}`, decErr.Excerpt)
	assert.NoError(t, c.Decode(req, resp, func([]byte) error { return nil }))
}

func TestMissingCredentialSaysWhyTheEnvironmentWasNotUsed(t *testing.T) {
	t.Setenv("TESTSVC_URL", "https://from-env.example")
	t.Setenv("TESTSVC_TOKEN", "token-from-the-environment")
	sentinel := errors.New("testsvc: token required")

	cfg := &testConfig{}
	require.NoError(t, Configure("testsvc", cfg, []testOption{WithBaseURL[*testConfig]("https://in-code.example")}))
	env, err := cfg.LoadEnv("testsvc", "TESTSVC_URL", "TESTSVC_TOKEN")
	require.NoError(t, err)
	assert.Empty(t, env, "an address given in code gets no credential from the environment")
	e := cfg.MissingCredential("testsvc", "New", "token", "WithToken", "TESTSVC_TOKEN", sentinel)
	assert.ErrorIs(t, e, sdk.ErrMissingCredential)
	assert.ErrorIs(t, e, sentinel)
	assert.Contains(t, e.Error(), "TESTSVC_TOKEN is set but was not used")
	assert.Contains(t, e.Error(), `WithToken(os.Getenv("TESTSVC_TOKEN"))`)
	assert.NotContains(t, e.Error(), "token-from-the-environment")

	fromEnv := &testConfig{}
	env, err = fromEnv.LoadEnv("testsvc", "TESTSVC_URL", "TESTSVC_TOKEN")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"TESTSVC_TOKEN": "token-from-the-environment"}, env)

	t.Setenv("TESTSVC_TOKEN", "")
	e = cfg.MissingCredential("testsvc", "History", "token", "WithToken", "TESTSVC_TOKEN")
	assert.Equal(t, "testsvc: History needs the token: give it with WithToken, or TESTSVC_TOKEN with the address in TESTSVC_URL", e.Error())
}
