package chartdiff_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/internal/testkit"
	"github.com/agentapis/sdk/sdktest"
)

// keyForm is the plaintext form of an API key.
var keyForm = regexp.MustCompile(`^sk-[0-9a-f]{32}$`)

func TestKeyLifecycle(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithClock(clock)))
	token := srv.AccountToken()
	log := &testkit.HeaderLog{}
	admin := newClient(t, srv.URL, chartdiff.WithAccountToken(token), chartdiff.WithHTTPClient(log.Client()))

	// Create: the plaintext once, the record, the request's credential and body.
	created, err := admin.CreateKey(t.Context(), &chartdiff.CreateKeyParams{
		Name:     "ci",
		Scopes:   []chartdiff.Scope{chartdiff.ScopeChartsRead, chartdiff.ScopeUsageRead},
		Lifetime: chartdiff.Lifetime90Days,
	})
	require.NoError(t, err)
	plain := created.Secret.Reveal()
	assert.Regexp(t, keyForm, plain)
	assert.Equal(t, "sk-…"+plain[len(plain)-4:], created.Secret.String())
	assert.Equal(t, created.Secret.String(), created.Key.Mask)
	assert.NotEmpty(t, created.Key.ID)
	assert.Equal(t, "ci", created.Key.Name)
	assert.Equal(t, []chartdiff.Scope{chartdiff.ScopeChartsRead, chartdiff.ScopeUsageRead}, created.Key.Scopes)
	assert.Equal(t, chartdiff.KeyActive, created.Key.Status)
	require.NotNil(t, created.Key.ExpiresAt)
	assert.Equal(t, srv.Now().Add(90*24*time.Hour), *created.Key.ExpiresAt)
	assert.NotContains(t, string(created.Key.Raw), plain, "the record never holds the plaintext")
	assert.Equal(t, http.StatusCreated, created.Response.StatusCode)

	post := srv.Requests()[0]
	assert.Equal(t, http.MethodPost, post.Method)
	assert.Equal(t, "/api/v1/keys", post.Path)
	assert.Equal(t, token, log.Sent()[0].Get("x-hm-token"))
	assert.Equal(t, sdktest.Redacted, post.Header.Get("x-hm-token"), "the fake's record redacts the token")
	assert.Empty(t, post.Header.Get("x-phm-key"))
	assert.JSONEq(t, `{"name":"ci","scopes":["charts:read","usage:read"],"expires_in_days":90}`, string(post.Body))

	// The key works, in x-phm-key.
	user := newClient(t, srv.URL, chartdiff.WithAPIKey(plain))
	_, err = user.Chart(t.Context(), 1)
	require.NoError(t, err)

	// List: the record without plaintext.
	list, err := admin.Keys(t.Context())
	require.NoError(t, err)
	require.Len(t, list.Keys, 1)
	assert.Equal(t, created.Key.ID, list.Keys[0].ID)
	assert.NotNil(t, list.Keys[0].LastUsedAt, "the key was used")
	assert.NotContains(t, string(list.Keys[0].Raw), plain)

	// Update: rename, new scopes, no expiry.
	name := "ci-renamed"
	updated, err := admin.UpdateKey(t.Context(), created.Key.ID, &chartdiff.UpdateKeyParams{
		Name:     &name,
		Scopes:   []chartdiff.Scope{chartdiff.ScopeChartsRead, chartdiff.ScopeAnalysesWrite},
		Lifetime: chartdiff.LifetimeNever,
	})
	require.NoError(t, err)
	assert.Equal(t, "ci-renamed", updated.Name)
	assert.Equal(t, []chartdiff.Scope{chartdiff.ScopeChartsRead, chartdiff.ScopeAnalysesWrite}, updated.Scopes)
	assert.Nil(t, updated.ExpiresAt)
	patch := srv.Requests()[len(srv.Requests())-1]
	assert.Equal(t, http.MethodPatch, patch.Method)
	assert.Equal(t, "/api/v1/keys/"+string(created.Key.ID), patch.Path)
	assert.JSONEq(t, `{"name":"ci-renamed","scopes":["charts:read","analyses:write"],"expires_in_days":null}`, string(patch.Body))
	_, err = user.Usage(t.Context())
	require.ErrorIs(t, err, chartdiff.ErrInsufficientScope, "usage:read was removed")

	// Rotate: a new key with the same scopes; the old one is revoked at once.
	rotated, err := admin.RotateKey(t.Context(), created.Key.ID)
	require.NoError(t, err)
	newPlain := rotated.Secret.Reveal()
	assert.Regexp(t, keyForm, newPlain)
	assert.NotEqual(t, plain, newPlain)
	assert.Equal(t, created.Key.ID, rotated.RevokedID)
	assert.NotEqual(t, created.Key.ID, rotated.Key.ID)
	assert.Equal(t, updated.Scopes, rotated.Key.Scopes)
	assert.Equal(t, "ci-renamed", rotated.Key.Name)
	assert.Equal(t, "/api/v1/keys/"+string(created.Key.ID)+"/rotate", srv.Requests()[len(srv.Requests())-1].Path)

	_, err = user.Chart(t.Context(), 1)
	require.ErrorIs(t, err, chartdiff.ErrInvalidAPIKey, "the old key is revoked")
	assert.Equal(t, http.StatusUnauthorized, testkit.APIError(t, err).StatusCode)
	rotatedUser := newClient(t, srv.URL, chartdiff.WithAPIKey(newPlain))
	_, err = rotatedUser.Chart(t.Context(), 1)
	require.NoError(t, err)
	_, err = admin.RotateKey(t.Context(), created.Key.ID)
	require.ErrorIs(t, err, chartdiff.ErrNotFound, "a revoked key cannot be rotated")

	list, err = admin.Keys(t.Context())
	require.NoError(t, err)
	require.Len(t, list.Keys, 1)
	assert.Equal(t, rotated.Key.ID, list.Keys[0].ID)

	// Delete: revoked at once, gone from the list, usage kept.
	deleted, err := admin.DeleteKey(t.Context(), rotated.Key.ID)
	require.NoError(t, err)
	assert.Equal(t, chartdiff.KeyRevoked, deleted.Status)
	assert.NotNil(t, deleted.RevokedAt)
	assert.Equal(t, http.MethodDelete, srv.Requests()[len(srv.Requests())-1].Method)
	_, err = rotatedUser.Chart(t.Context(), 1)
	require.ErrorIs(t, err, chartdiff.ErrInvalidAPIKey)
	list, err = admin.Keys(t.Context())
	require.NoError(t, err)
	assert.Empty(t, list.Keys)
	_, err = admin.DeleteKey(t.Context(), rotated.Key.ID)
	require.ErrorIs(t, err, chartdiff.ErrNotFound)

	usage, err := admin.Usage(t.Context())
	require.NoError(t, err)
	require.Len(t, usage.Keys, 2, "revoked keys keep their usage")
	require.NotNil(t, usage.RequestsTotal)
	assert.Equal(t, 2, *usage.RequestsTotal, "one Chart call with each key")
	for _, k := range usage.Keys {
		assert.Equal(t, chartdiff.KeyRevoked, k.Status)
		require.NotNil(t, k.RequestsTotal)
		assert.Equal(t, 1, *k.RequestsTotal)
	}
}

func TestKeyExpiry(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithClock(clock)))
	admin := newClient(t, srv.URL, chartdiff.WithAccountToken(srv.AccountToken()))

	created, err := admin.CreateKey(t.Context(), &chartdiff.CreateKeyParams{Lifetime: chartdiff.Lifetime30Days})
	require.NoError(t, err)
	user := newClient(t, srv.URL, chartdiff.WithAPIKey(created.Secret.Reveal()))

	clock.Advance(30*24*time.Hour - time.Second)
	_, err = user.Chart(t.Context(), 1)
	require.NoError(t, err, "one second before expiry")

	clock.Advance(time.Second)
	_, err = user.Chart(t.Context(), 1)
	require.ErrorIs(t, err, chartdiff.ErrExpiredAPIKey)
	assert.Equal(t, http.StatusUnauthorized, testkit.APIError(t, err).StatusCode)
	assert.NotErrorIs(t, err, chartdiff.ErrInvalidAPIKey)

	list, err := admin.Keys(t.Context())
	require.NoError(t, err)
	assert.Empty(t, list.Keys, "an expired key is not active")
	_, err = admin.UpdateKey(t.Context(), created.Key.ID, &chartdiff.UpdateKeyParams{Lifetime: chartdiff.LifetimeNever})
	require.ErrorIs(t, err, chartdiff.ErrNotFound, "expiry is final")
}

func TestKeyWithoutExpiryAndExpiryChange(t *testing.T) {
	t.Parallel()
	clock := sdktest.NewClock(epoch)
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithClock(clock)))
	admin := newClient(t, srv.URL, chartdiff.WithAccountToken(srv.AccountToken()))

	created, err := admin.CreateKey(t.Context(), nil)
	require.NoError(t, err)
	assert.Nil(t, created.Key.ExpiresAt, "no lifetime means never")
	assert.ElementsMatch(t, []chartdiff.Scope{chartdiff.ScopeChartsRead, chartdiff.ScopeAnalysesWrite, chartdiff.ScopeUsageRead}, created.Key.Scopes,
		"the fake grants every scope by default")
	assert.JSONEq(t, `{}`, string(srv.Requests()[0].Body), "nothing given, nothing sent")

	user := newClient(t, srv.URL, chartdiff.WithAPIKey(created.Secret.Reveal()))
	clock.Advance(400 * 24 * time.Hour)
	_, err = user.Chart(t.Context(), 1)
	require.NoError(t, err)

	updated, err := admin.UpdateKey(t.Context(), created.Key.ID, &chartdiff.UpdateKeyParams{Lifetime: chartdiff.Lifetime365Days})
	require.NoError(t, err)
	require.NotNil(t, updated.ExpiresAt)
	assert.Equal(t, srv.Now().Add(365*24*time.Hour), *updated.ExpiresAt)
	assert.JSONEq(t, `{"expires_in_days":365}`, string(srv.Requests()[len(srv.Requests())-1].Body))

	clock.Advance(365 * 24 * time.Hour)
	_, err = user.Chart(t.Context(), 1)
	require.ErrorIs(t, err, chartdiff.ErrExpiredAPIKey)
}

func TestKeyLimitOf100Active(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	token := srv.AccountToken()
	for range chartdiff.MaxActiveKeys - 1 {
		srv.IssueKey(token)
	}
	admin := newClient(t, srv.URL, chartdiff.WithAccountToken(token))

	last, err := admin.CreateKey(t.Context(), nil)
	require.NoError(t, err, "the 100th key")
	_, err = admin.CreateKey(t.Context(), nil)
	require.ErrorIs(t, err, chartdiff.ErrKeyLimitReached)
	assert.Equal(t, http.StatusConflict, testkit.APIError(t, err).StatusCode)
	assert.Equal(t, 1, testkit.APIError(t, err).Attempts, "key creation is never retried")

	_, err = admin.RotateKey(t.Context(), last.Key.ID)
	require.NoError(t, err, "rotation keeps the count at 100")

	list, err := admin.Keys(t.Context())
	require.NoError(t, err)
	require.Len(t, list.Keys, 100)
	_, err = admin.DeleteKey(t.Context(), list.Keys[0].ID)
	require.NoError(t, err)
	_, err = admin.CreateKey(t.Context(), nil)
	require.NoError(t, err, "a revoked key frees a place")
}

func TestKeyManagementWithoutTokenSendsNothing(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL, chartdiff.WithAPIKey(srv.IssueKey(srv.AccountToken())))
	name := "n"

	calls := map[string]func(ctx context.Context) error{
		"Keys":      func(ctx context.Context) error { _, err := c.Keys(ctx); return err },
		"CreateKey": func(ctx context.Context) error { _, err := c.CreateKey(ctx, nil); return err },
		"UpdateKey": func(ctx context.Context) error {
			_, err := c.UpdateKey(ctx, "key_1", &chartdiff.UpdateKeyParams{Name: &name})
			return err
		},
		"RotateKey": func(ctx context.Context) error { _, err := c.RotateKey(ctx, "key_1"); return err },
		"DeleteKey": func(ctx context.Context) error { _, err := c.DeleteKey(ctx, "key_1"); return err },
	}
	for op, call := range calls {
		err := call(t.Context())
		require.ErrorIs(t, err, chartdiff.ErrAccountTokenRequired, op)
		var mc *sdk.MissingCredentialError
		require.ErrorAs(t, err, &mc, op)
		assert.Equal(t, op, mc.Operation)
		assert.Contains(t, err.Error(), "x-hm-token", op)
	}
	assert.Empty(t, srv.Requests(), "an sk- key is never sent for key management")
}

func TestKeyManagementWithWrongToken(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	c := newClient(t, srv.URL, chartdiff.WithAccountToken("hm_not-an-account"))

	_, err := c.Keys(t.Context())
	require.ErrorIs(t, err, chartdiff.ErrAccountTokenRequired)
	ae := testkit.APIError(t, err)
	assert.Equal(t, http.StatusUnauthorized, ae.StatusCode)
	assert.NotContains(t, ae.Error(), "hm_not-an-account")
}

func TestKeysOfAnotherAccountAreNotFound(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer(chartdifftest.WithAccount("hm_alice_token"), chartdifftest.WithAccount("hm_bob_token")))
	alice := newClient(t, srv.URL, chartdiff.WithAccountToken("hm_alice_token"))
	bob := newClient(t, srv.URL, chartdiff.WithAccountToken("hm_bob_token"))

	k, err := alice.CreateKey(t.Context(), &chartdiff.CreateKeyParams{Name: "alice"})
	require.NoError(t, err)
	_, err = bob.DeleteKey(t.Context(), k.Key.ID)
	require.ErrorIs(t, err, chartdiff.ErrNotFound)
	_, err = bob.RotateKey(t.Context(), k.Key.ID)
	require.ErrorIs(t, err, chartdiff.ErrNotFound)
	list, err := bob.Keys(t.Context())
	require.NoError(t, err)
	assert.Empty(t, list.Keys)
	list, err = alice.Keys(t.Context())
	require.NoError(t, err)
	assert.Len(t, list.Keys, 1)
}

func TestKeyScopesAreEnforced(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	token := srv.AccountToken()
	read := newClient(t, srv.URL, chartdiff.WithAPIKey(srv.IssueKey(token, "charts:read")))
	usage := newClient(t, srv.URL, chartdiff.WithAPIKey(srv.IssueKey(token, "usage:read")))

	_, err := read.Charts(t.Context(), nil)
	require.NoError(t, err)
	_, err = read.Usage(t.Context())
	require.ErrorIs(t, err, chartdiff.ErrInsufficientScope)

	for name, call := range map[string]func() error{
		"Chart":   func() error { _, err := usage.Chart(t.Context(), 1); return err },
		"Charts":  func() error { _, err := usage.Charts(t.Context(), nil); return err },
		"Stats":   func() error { _, err := usage.Stats(t.Context()); return err },
		"Charter": func() error { _, err := usage.Charter(t.Context(), 2, nil); return err },
		"Player":  func() error { _, err := usage.Player(t.Context(), 2); return err },
		"Analyze": func() error { _, err := usage.Analyze(t.Context(), 1); return err },
	} {
		err := call()
		require.ErrorIs(t, err, chartdiff.ErrInsufficientScope, name)
		assert.Equal(t, http.StatusForbidden, testkit.APIError(t, err).StatusCode, name)
	}
	u, err := usage.Usage(t.Context())
	require.NoError(t, err)
	assert.NotEmpty(t, u.AccountID)
}

func TestKeyAnswersOfAnotherShapeStillHandThePlaintext(t *testing.T) {
	t.Parallel()
	for fixture, want := range map[string]struct{ plaintext, id string }{
		"created_key_without_record.json": {"sk-0123456789abcdef0123456789abcdef", "key_flat"},
		"created_key_not_json.txt":        {"sk-fedcba9876543210fedcba9876543210", ""},
	} {
		srv := serveFixture(t, http.StatusCreated, fixture)
		c, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL), chartdiff.WithAccountToken("hm_token_1"))
		require.NoError(t, err)
		created, err := c.CreateKey(t.Context(), nil)
		require.NoError(t, err, fixture)
		assert.Equal(t, want.plaintext, created.Secret.Reveal(), fixture)
		assert.Equal(t, chartdiff.KeyID(want.id), created.Key.ID, fixture)
		for _, printed := range []string{fmt.Sprint(created), fmt.Sprintf("%+v", created), fmt.Sprintf("%#v", created), string(created.Key.Raw)} {
			assert.NotContains(t, printed, want.plaintext[3:], "%s: printing the answer never shows the key", fixture)
		}
	}

	srv := serveFixture(t, http.StatusOK, "rotated_key_other_shape.json")
	c, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL), chartdiff.WithAccountToken("hm_token_1"))
	require.NoError(t, err)
	rotated, err := c.RotateKey(t.Context(), "key_old")
	require.NoError(t, err)
	assert.Equal(t, "sk-abcdefabcdefabcdefabcdefabcdef01", rotated.Secret.Reveal(), "api_key holds the plaintext")
	assert.Equal(t, chartdiff.KeyID("key_old"), rotated.RevokedID, "without revoked_id, the rotated id is the revoked one")
	assert.Empty(t, rotated.Key.ID, "no record the client can read: the record is zero, the plaintext is kept")
}

func TestKeyAnswerWithoutPlaintextKeepsTheBodyMasked(t *testing.T) {
	t.Parallel()
	srv := serveFixture(t, http.StatusCreated, "created_key_no_plaintext.json")
	c, err := chartdiff.New(chartdiff.WithBaseURL(srv.URL), chartdiff.WithAccountToken("hm_token_1"))
	require.NoError(t, err)
	created, err := c.CreateKey(t.Context(), nil)
	assert.Nil(t, created)
	var kae *chartdiff.KeyAnswerError
	require.True(t, errors.As(err, &kae), "%T: %v", err, err)
	assert.Equal(t, "CreateKey", kae.Operation)
	assert.Equal(t, http.StatusCreated, kae.StatusCode)
	assert.Contains(t, kae.Body.Reveal(), "shown in the dashboard", "the raw answer is kept")
	for _, printed := range []string{err.Error(), fmt.Sprint(err), fmt.Sprintf("%+v", kae), fmt.Sprintf("%#v", kae)} {
		assert.NotContains(t, printed, "dashboard", "the body is masked when printed")
	}
}

func TestKeyIDDecodesFromNumber(t *testing.T) {
	t.Parallel()
	var k chartdiff.Key
	require.NoError(t, json.Unmarshal([]byte(`{"id": 42, "name": "n"}`), &k))
	assert.Equal(t, chartdiff.KeyID("42"), k.ID)
	require.NoError(t, json.Unmarshal([]byte(`{"id": "key_a"}`), &k))
	assert.Equal(t, chartdiff.KeyID("key_a"), k.ID)
	assert.Error(t, json.Unmarshal([]byte(`{"id": true}`), &k))
	err := json.Unmarshal([]byte(`{"name": "no id"}`), &k)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), `"id" is missing`))
}

func TestKeyRequestsRetryOnlyWhenSafe(t *testing.T) {
	t.Parallel()
	srv := testkit.Start(t, chartdifftest.NewServer())
	admin := newClient(t, srv.URL, chartdiff.WithAccountToken(srv.AccountToken()),
		chartdiff.WithRetry(sdk.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}))
	created, err := admin.CreateKey(t.Context(), nil)
	require.NoError(t, err)
	name := "renamed"

	// PATCH sets absolute values: repeating it is harmless, so a 503 is retried.
	srv.InjectFaults(sdktest.Fault{Method: http.MethodPatch, Status: http.StatusServiceUnavailable})
	updated, err := admin.UpdateKey(t.Context(), created.Key.ID, &chartdiff.UpdateKeyParams{Name: &name})
	require.NoError(t, err)
	assert.Equal(t, "renamed", updated.Name)
	assert.Equal(t, 2, updated.Response.Attempts)

	// DELETE is idempotent and retried.
	srv.InjectFaults(sdktest.Fault{Method: http.MethodDelete, Status: http.StatusBadGateway})
	deleted, err := admin.DeleteKey(t.Context(), created.Key.ID)
	require.NoError(t, err)
	assert.Equal(t, 2, deleted.Response.Attempts)

	// Creation and rotation answer with a plaintext shown once: never repeated.
	srv.InjectFaults(sdktest.Fault{Method: http.MethodPost, Path: "/api/v1/keys", Status: http.StatusServiceUnavailable})
	_, err = admin.CreateKey(t.Context(), nil)
	require.Error(t, err)
	assert.Equal(t, 1, testkit.APIError(t, err).Attempts)
	fresh, err := admin.CreateKey(t.Context(), nil)
	require.NoError(t, err)
	srv.InjectFaults(sdktest.Fault{Method: http.MethodPost, Status: http.StatusBadGateway})
	_, err = admin.RotateKey(t.Context(), fresh.Key.ID)
	require.Error(t, err)
	assert.Equal(t, 1, testkit.APIError(t, err).Attempts)
	assert.Equal(t, 3, srv.RequestCount(http.MethodPost, "/api/v1/keys"))
}
