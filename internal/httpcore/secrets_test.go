package httpcore

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/logbuf"
)

func TestTokenNeverInErrorsOrLogs(t *testing.T) {
	t.Parallel()
	const token = "tok-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
	const perRequestToken = "acct-0a1b2c3d4e5f60718293a4b5c6d7e8f9"
	echo := func(r *http.Request) string {
		return r.Header.Get("Authorization") + " " + r.Header.Get("X-Account")
	}
	// The foreign host must never see the token: Go drops only Authorization on a cross-host
	// redirect, and only the client's redirect guard drops the service's custom headers.
	foreignSaw := make(chan string, 4)
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		foreignSaw <- r.Header.Get("Authorization") + r.Header.Get("X-Account") + r.Header.Get("X-Api-Token")
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `{"error":"forbidden"}`)
	}))
	defer foreign.Close()

	mux := http.NewServeMux()
	mux.HandleFunc("/unauthorized", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Echo", echo(r))
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"code":"invalid_token %s","message":"token %s is not valid"}}`, echo(r), echo(r))
	})
	mux.HandleFunc("/busy", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, "overloaded while serving %s", echo(r))
	})
	mux.HandleFunc("/garbled", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"you sent": "%s"`, echo(r))
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, foreign.URL+"/steal", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	logs := &logbuf.Buffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	creds := []Credential{{Header: "Authorization", Prefix: "Bearer ", Value: token}}
	p := fastRetry
	p.MaxAttempts = 2
	newClient := func(base string) *Client {
		return newTestClient(t, Service{Credentials: creds},
			WithBaseURL[*testConfig](base), WithLogger[*testConfig](logger), WithRetry[*testConfig](p))
	}
	c, dead := newClient(srv.URL), newClient(closedURL)

	var errs []error
	collect := func(_ *Response, err error) {
		require.Error(t, err)
		errs = append(errs, err)
	}
	withAccount := []Credential{{Header: "X-Account", Value: perRequestToken}, creds[0]}
	for _, path := range []string{"/unauthorized", "/busy", "/garbled", "/redirect"} {
		var out map[string]any
		collect(c.Do(t.Context(), &Request{Method: http.MethodGet, Path: path, Query: map[string][]string{"page": {"1"}}}, &out))
		collect(c.Do(t.Context(), &Request{Method: http.MethodPost, Path: path, Body: JSON(map[string]string{"k": "v"}), Credentials: withAccount}, &out))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
	defer cancel()
	collect(c.Do(ctx, &Request{Method: http.MethodGet, Path: "/hang", Credentials: withAccount}, nil))
	collect(dead.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/down"}, nil))
	_, err := c.Stream(t.Context(), &Request{Method: http.MethodGet, Path: "/unauthorized", Credentials: withAccount})
	collect(nil, err)

	require.Len(t, errs, 11)
	for _, err := range errs {
		for _, text := range []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err)} {
			assert.NotContains(t, text, token)
			assert.NotContains(t, text, perRequestToken)
		}
		if apiErr, ok := err.(*sdk.APIError); ok {
			assert.NotContains(t, string(apiErr.Body), token, "the kept body is scrubbed too")
			assert.NotContains(t, string(apiErr.Body), perRequestToken)
		}
	}
	assert.Contains(t, errs[0].Error(), "[REDACTED]", "a token echoed by the server is visibly redacted")
	out := logs.String()
	assert.NotEmpty(t, out)
	assert.NotContains(t, out, token)
	assert.NotContains(t, out, perRequestToken)
	assert.NotContains(t, out, "page=1", "query strings are never logged")
	close(foreignSaw)
	for seen := range foreignSaw {
		assert.Empty(t, seen, "a redirect to another host carries no credential")
	}
}

func TestRedirectOnSameHostKeepsCredentials(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
			return
		}
		assert.Equal(t, "/new", r.URL.Path)
		_, _ = io.WriteString(w, `{"key":"`+r.Header.Get("X-API-Key")+`"}`)
	})
	c := newTestClient(t, Service{Credentials: []Credential{{Header: "X-API-Key", Value: "key-1234567890"}}}, WithBaseURL[*testConfig](srv.URL))
	var out struct{ Key string }
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/old"}, &out)
	require.NoError(t, err)
	assert.Equal(t, "key-1234567890", out.Key)
}

func TestLogRecordsCarryMetadataOnly(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, "secret-body-content")
	})
	logs := &logbuf.Buffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p := fastRetry
	p.MaxAttempts = 2
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithLogger[*testConfig](logger), WithRetry[*testConfig](p))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/v1/history", Query: map[string][]string{"model": {"h100"}},
		Header: http.Header{"X-Custom": {"header-value"}}}, nil)
	require.Error(t, err)
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	require.Len(t, lines, 2, "one record per attempt")
	for i, line := range lines {
		assert.Contains(t, line, `"method":"GET"`)
		assert.Contains(t, line, `"host":"`+strings.TrimPrefix(srv.URL, "http://")+`"`)
		assert.Contains(t, line, `"path":"/v1/history"`)
		assert.Contains(t, line, `"status":502`)
		assert.Contains(t, line, fmt.Sprintf(`"attempt":%d`, i+1))
		assert.Contains(t, line, `"duration":`)
		assert.Contains(t, line, `"service":"testsvc"`)
		assert.NotContains(t, line, "h100")
		assert.NotContains(t, line, "header-value")
		assert.NotContains(t, line, "secret-body-content")
	}
}

func TestNoLoggerNoOutput(t *testing.T) {
	t.Parallel()
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL), WithRetry[*testConfig](fastRetry))
	assert.Nil(t, c.logger)
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/x"}, nil)
	require.Error(t, err)
}

func TestSecretsScrubbedInAnyLetterCaseAndFromKeptHeaders(t *testing.T) {
	t.Parallel()
	const token = "Tok-AbCdEf0123456789"
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Echo", "your token was "+strings.ToUpper(token))
		w.Header().Set("X-Request-Id", strings.ToLower(token))
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"bad_token","message":"got ` + strings.ToLower(token) + `"}`))
	})
	c := newTestClient(t, Service{Credentials: []Credential{{Header: "X-Token", Value: token}}}, WithBaseURL[*testConfig](srv.URL))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/x"}, nil)
	var ae *sdk.APIError
	require.ErrorAs(t, err, &ae)
	for _, form := range []string{fmt.Sprint(err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", ae), string(ae.Body), fmt.Sprint(ae.Header)} {
		assert.NotContains(t, strings.ToLower(form), strings.ToLower(token))
	}
	assert.Contains(t, ae.Header.Get("X-Echo"), "[REDACTED]", "the header is kept, scrubbed")
	assert.Equal(t, "[REDACTED]", ae.RequestID, "a request id echoing the token is scrubbed")
}

func TestRedactorKeepsOffsetsAndNonASCII(t *testing.T) {
	t.Parallel()
	r := redactor{}.with("SeCrEt-123", "abc") // "abc" is too short to scrub
	assert.Equal(t, "é [REDACTED] x [REDACTED] abc", r.text("é secret-123 x SECRET-123 abc"))
	assert.Equal(t, "no secret here", r.text("no secret here"))
}

func TestScrubIgnoresCaseAndShortValues(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "sig [REDACTED] and [REDACTED], id", Scrub("sig 0xABCDEF0123 and 0xabcdef0123, id", "0xAbCdEf0123", "id"))
}

func TestEncodedFormsOfASecretAreScrubbed(t *testing.T) {
	t.Parallel()
	const token = "tok_Zq9mN4xB7vK2pL8sR3tW"
	r := redactor{}.with(token)
	inputs := map[string]string{
		"query-escaped": url.QueryEscape("a+" + token + " b"),
		"path-escaped":  url.PathEscape(token + "/x"),
		"upper case":    strings.ToUpper(token),
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		for _, prefix := range []string{"", "B", "Be", "Bearer "} { // every alignment within a base64 group
			inputs[fmt.Sprintf("base64 %q after %q", enc.EncodeToString([]byte("x")), prefix)] = enc.EncodeToString([]byte(prefix + token + `","more":1}`))
		}
	}
	for name, in := range inputs {
		out := r.text("echo: " + in)
		assert.Contains(t, out, "[REDACTED]", name)
		decoded := strings.ToLower(out)
		for _, form := range encodedForms(token) {
			assert.NotContains(t, decoded, strings.ToLower(form), name)
		}
	}
	assert.Equal(t, "no secret: dG9rX1pxOW1O", r.text("no secret: dG9rX1pxOW1O"), "a piece of the encoding is not the secret")
}

func TestASecretInARedirectedPathIsScrubbedFromErrorsAndLogs(t *testing.T) {
	t.Parallel()
	const token = "tok-PaTh0123456789abcdef"
	mux := http.NewServeMux()
	mux.HandleFunc("/start", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/echo/"+url.PathEscape(r.Header.Get("X-Token"))+"/end?x=1", http.StatusFound)
	})
	mux.HandleFunc("/echo/", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":"not_found","message":"`+base64.StdEncoding.EncodeToString([]byte("key="+token))+`"}`)
	})
	srv := newServer(t, mux.ServeHTTP)
	logs := &logbuf.Buffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := newTestClient(t, Service{Credentials: []Credential{{Header: "X-Token", Value: token}}}, WithBaseURL[*testConfig](srv.URL), WithLogger[*testConfig](logger))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/start"}, nil)
	var ae *sdk.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "/echo/[REDACTED]/end", ae.Path)
	for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", ae), logs.String()} {
		assert.NotContains(t, text, token)
	}
	assert.NotContains(t, ae.Message, base64.StdEncoding.EncodeToString([]byte("key=" + token))[4:20])

	// The same redirect to a host that does not answer: the *url.Error kept in the
	// *sdk.RequestError names the redirected URL, scrubbed.
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	away := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, closedURL+"/k/"+token+"?q=1", http.StatusFound)
	})
	c = newTestClient(t, Service{Credentials: []Credential{{Header: "X-Token", Value: token}}}, WithBaseURL[*testConfig](away.URL), WithRetry[*testConfig](sdk.RetryPolicy{MaxAttempts: 1}))
	_, err = c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/start"}, nil)
	var re *sdk.RequestError
	require.ErrorAs(t, err, &re)
	var ue *url.Error
	require.ErrorAs(t, err, &ue)
	assert.NotContains(t, ue.URL, token)
	assert.NotContains(t, ue.URL, "q=1", "the query is dropped too")
	assert.NotContains(t, ue.Error(), token)
	assert.NotContains(t, fmt.Sprintf("%+v %#v", err, re), token)
}

func TestARequestsOwnSecretsAreScrubbedFromEveryField(t *testing.T) {
	t.Parallel()
	const signature = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req-"+signature)
		w.Header().Set("X-Echo", url.QueryEscape(signature))
		w.WriteHeader(http.StatusConflict)
		_, _ = io.WriteString(w, `{"error":{"code":"already_redeemed","message":"`+signature+` was redeemed"}}`)
	})
	c := newTestClient(t, Service{}, WithBaseURL[*testConfig](srv.URL))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodPost, Path: "/keys/redeem",
		Body: JSON(map[string]string{"tx": signature}), Secrets: []string{signature}}, nil)
	var ae *sdk.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "req-[REDACTED]", ae.RequestID)
	assert.Equal(t, "[REDACTED]", ae.Header.Get("X-Echo"))
	for _, text := range []string{err.Error(), fmt.Sprintf("%#v", ae), string(ae.Body), fmt.Sprint(ae.Header)} {
		assert.NotContains(t, text, signature)
	}
}

func TestASecretInAHeaderNameIsScrubbed(t *testing.T) {
	t.Parallel()
	const token = "tok-HeAdErNaMe0123456789"
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-"+token, "seen")
		w.WriteHeader(http.StatusBadRequest)
	})
	c := newTestClient(t, Service{Credentials: []Credential{{Header: "X-Token", Value: token}}}, WithBaseURL[*testConfig](srv.URL))
	_, err := c.Do(t.Context(), &Request{Method: http.MethodGet, Path: "/x"}, nil)
	var ae *sdk.APIError
	require.ErrorAs(t, err, &ae)
	assert.NotContains(t, strings.ToLower(fmt.Sprintf("%#v %v", ae, ae.Header)), strings.ToLower(token))
	assert.Equal(t, []string{"seen"}, ae.Header["X-[REDACTED]"], "the header is kept under a scrubbed name")
	meta := c.RedactResponse(sdk.Response{RequestID: token, Header: http.Header{"X-" + token: {token}}})
	assert.Equal(t, "[REDACTED]", meta.RequestID)
	assert.Equal(t, http.Header{"X-[REDACTED]": {"[REDACTED]"}}, meta.Header)
}
