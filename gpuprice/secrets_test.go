package gpuprice_test

import (
	"encoding/base64"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/internal/fakeserver"
	"github.com/agentapis/sdk/internal/logbuf"
	"github.com/agentapis/sdk/internal/testkit"
)

// echoForms are the forms in which a hostile server echoes secret: as it is, in upper case,
// URL-escaped (query and path), and base64-encoded (standard and URL alphabets) alone and
// after a prefix, so that the secret's bytes start inside a base64 group.
func echoForms(secret string) []string {
	forms := []string{secret, strings.ToUpper(secret), url.QueryEscape(secret), url.PathEscape(secret)}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding} {
		forms = append(forms, enc.EncodeToString([]byte(secret)), enc.EncodeToString([]byte("k="+secret)),
			enc.EncodeToString([]byte("key: "+secret)))
	}
	return forms
}

// echoingServer starts a server for one test whose every endpoint answers a leak: a request
// to /v1/history or to the redemption path is redirected (307) to /v1/leak/<secret>, which
// answers status with the secret's echoes in the body's code and message, in X-Request-Id and
// in other headers; /v1/drop/<secret> hangs up without an answer. secret is the value the
// redirect and the echoes carry; with drop, the redirect goes to /v1/drop/ instead.
func echoingServer(t *testing.T, secret string, status int, code string, drop bool) *httptest.Server {
	t.Helper()
	forms := echoForms(secret)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/v1/drop/"):
			fakeserver.HangUp(w)
		case strings.HasPrefix(r.URL.Path, "/v1/leak/"):
			w.Header().Set("X-Request-Id", forms[len(forms)-1]+"-"+secret)
			w.Header().Set("X-Echo", strings.Join(forms, " "))
			w.Header().Set("Www-Authenticate", `Key realm="`+url.QueryEscape(secret)+`"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			msg := "refused " + strings.Join(forms, ", ")
			_, _ = w.Write([]byte(`{"error":{"code":"` + code + `","message":"` + msg + `"},"echo":"` + secret + `"}`))
		default:
			target := "/v1/leak/"
			if drop {
				target = "/v1/drop/"
			}
			http.Redirect(w, r, target+url.PathEscape(secret), http.StatusTemporaryRedirect)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// assertNoEcho checks that no rendering of err, none of the given texts and no log line
// holds secret in any of its echoed forms.
func assertNoEcho(t *testing.T, secret string, err error, texts ...string) {
	t.Helper()
	all := append([]string{err.Error(), sprintf("%v", err), sprintf("%+v", err), sprintf("%#v", err)}, texts...)
	for i, text := range all {
		lower := strings.ToLower(text)
		for j, form := range echoForms(secret) {
			if strings.Contains(lower, strings.ToLower(form)) {
				t.Errorf("text %d (of Error, %%v, %%+v, %%#v, then the fields) holds echo form %d of the secret", i, j)
			}
		}
	}
}

// echoedAPIError returns the *sdk.APIError of err and every text it shows.
func echoedAPIError(t *testing.T, err error) (*sdk.APIError, []string) {
	t.Helper()
	ae := testkit.As[*sdk.APIError](t, err)
	texts := []string{ae.Path, ae.Code, ae.Message, ae.RequestID, string(ae.Body), sprintf("%#v", ae.Header), sprintf("%#v", *ae)}
	for _, vs := range ae.Header {
		texts = append(texts, vs...)
	}
	return ae, texts
}

func TestARedirectOrAnEchoNeverShowsTheAPIKey(t *testing.T) {
	t.Parallel()
	const key = "gpk_Echo+Key/with=Escapes_0123456789"
	scan.Add(key)
	for _, drop := range []bool{false, true} {
		srv := echoingServer(t, key, http.StatusUnauthorized, "invalid_api_key", drop)
		var logs logbuf.Buffer
		c, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL), gpuprice.WithAPIKey(key), gpuprice.WithRetry(testkit.NoRetry),
			gpuprice.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
		require.NoError(t, err)

		_, err = c.History(t.Context(), nil)
		require.Error(t, err)
		if drop {
			re := testkit.As[*sdk.RequestError](t, err)
			ue := testkit.As[*url.Error](t, err)
			assertNoEcho(t, key, err, re.Path, re.Detail, ue.URL, ue.Error(), logs.String())
			continue
		}
		require.ErrorIs(t, err, gpuprice.ErrInvalidAPIKey)
		ae, texts := echoedAPIError(t, err)
		assert.True(t, strings.HasPrefix(ae.Path, "/v1/leak/"), "the path the answer came from, scrubbed: %s", ae.Path)
		assert.NotEmpty(t, ae.RequestID)
		assertNoEcho(t, key, err, append(texts, logs.String())...)
		assert.Contains(t, logs.String(), "/v1/leak/", "the logger saw the redirect")
	}
}

func TestARedirectOrAnEchoNeverShowsTheSignatureBeingRedeemed(t *testing.T) {
	t.Parallel()
	const sig = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"
	scan.Add(sig)
	for _, drop := range []bool{false, true} {
		srv := echoingServer(t, sig, http.StatusConflict, "already_redeemed", drop)
		var logs logbuf.Buffer
		c, err := gpuprice.New(gpuprice.WithBaseURL(srv.URL), gpuprice.WithRetry(testkit.NoRetry),
			gpuprice.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
		require.NoError(t, err)

		_, err = c.RedeemKey(t.Context(), sig)
		require.Error(t, err)
		if drop {
			re := testkit.As[*sdk.RequestError](t, err)
			ue := testkit.As[*url.Error](t, err)
			assertNoEcho(t, sig, err, re.Path, re.Detail, ue.URL, ue.Error(), logs.String())
			continue
		}
		require.ErrorIs(t, err, gpuprice.ErrAlreadyRedeemed)
		ae, texts := echoedAPIError(t, err)
		assert.True(t, strings.HasPrefix(ae.Path, "/v1/leak/"), "the path the answer came from, scrubbed: %s", ae.Path)
		assert.NotEmpty(t, ae.RequestID)
		assertNoEcho(t, sig, err, append(texts, logs.String())...)
		assert.Contains(t, logs.String(), "/v1/leak/", "the logger saw the redirect")
	}
}
