package chartdiff

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/agentapis/sdk/internal/httpcore"
)

// Scope is a permission of an API key.
type Scope string

// The scopes a key can hold.
const (
	// ScopeChartsRead allows the queries: charts, stats, authors, players.
	ScopeChartsRead Scope = "charts:read"
	// ScopeAnalysesWrite allows Analyze.
	ScopeAnalysesWrite Scope = "analyses:write"
	// ScopeUsageRead allows Usage.
	ScopeUsageRead Scope = "usage:read"
)

// Lifetime is how long a new key stays valid: 30, 90 or 365 days, or without expiry.
type Lifetime int

// The lifetimes the service offers. The zero Lifetime means "not given": CreateKey then makes
// a key without expiry, and UpdateKey leaves the expiry as it is.
const (
	Lifetime30Days  Lifetime = 30
	Lifetime90Days  Lifetime = 90
	Lifetime365Days Lifetime = 365
	// LifetimeNever makes a key that does not expire, or removes the expiry of one.
	LifetimeNever Lifetime = -1
)

// KeyStatus is the state of an API key.
type KeyStatus string

// The states of an API key.
const (
	KeyActive  KeyStatus = "active"
	KeyRevoked KeyStatus = "revoked"
	KeyExpired KeyStatus = "expired"
)

// MaxActiveKeys is the number of active keys an account may hold.
const MaxActiveKeys = 100

// KeyID identifies an API key. It decodes from a JSON string or number.
type KeyID string

// UnmarshalJSON accepts a JSON string or a JSON number.
func (id *KeyID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*id = KeyID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("key id must be a string or a number")
	}
	*id = KeyID(n.String())
	return nil
}

// Key is an API key's record, without its plaintext (the service keeps only a hash and a mask).
type Key struct {
	// ID identifies the key in UpdateKey, RotateKey and DeleteKey.
	ID KeyID `json:"id"`
	// Name is the key's label.
	Name string `json:"name"`
	// Scopes are the key's permissions.
	Scopes []Scope `json:"scopes"`
	// Mask shows the start and end of the key, such as "sk-…1a2b".
	Mask string `json:"mask"`
	// Status is the key's state.
	Status KeyStatus `json:"status"`
	// CreatedAt is when the key was created.
	CreatedAt *time.Time `json:"created_at"`
	// ExpiresAt is when the key expires; nil for a key without expiry.
	ExpiresAt *time.Time `json:"expires_at"`
	// LastUsedAt is when the key was last used; nil when never.
	LastUsedAt *time.Time `json:"last_used_at"`
	// RevokedAt is when the key was revoked; nil for a key that was not.
	RevokedAt *time.Time `json:"revoked_at"`
	// Raw is the key's JSON object as the service sent it.
	Raw json.RawMessage `json:"-"`
	// Response describes the HTTP response, for a Key returned by UpdateKey or DeleteKey.
	Response Response `json:"-"`
}

// UnmarshalJSON decodes a key record, keeps its raw object and refuses one without id.
func (k *Key) UnmarshalJSON(b []byte) error {
	type plain Key
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if err := requireFields("key", b, "id"); err != nil {
		return err
	}
	*k = Key(v)
	k.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// KeyList is the answer of ListKeys.
type KeyList struct {
	// Keys are the account's active keys.
	Keys []Key `json:"keys"`
	// Response describes the HTTP response.
	Response Response `json:"-"`
}

// UnmarshalJSON refuses an answer without keys, so that a changed field name is an error
// rather than an empty list.
func (l *KeyList) UnmarshalJSON(b []byte) error {
	type plain KeyList
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if err := requireFields("key list", b, "keys"); err != nil {
		return err
	}
	*l = KeyList(v)
	return nil
}

// CreatedKey is the answer of CreateKey: the record and the plaintext, shown this once.
type CreatedKey struct {
	// Key is the new key's record.
	Key Key
	// Secret is the plaintext key. It prints as a mask; call Secret.Reveal to use it.
	Secret APIKey
	// Response describes the HTTP response.
	Response Response
}

// RotatedKey is the answer of RotateKey: the new key, its plaintext (shown this once) and the
// id of the old key, revoked at once.
type RotatedKey struct {
	// Key is the new key's record; it has the old key's scopes.
	Key Key
	// Secret is the new plaintext key. It prints as a mask; call Secret.Reveal to use it.
	Secret APIKey
	// RevokedID is the id of the old key.
	RevokedID KeyID
	// Response describes the HTTP response.
	Response Response
}

// CreateKeyParams are the parameters of CreateKey. Every field is optional.
type CreateKeyParams struct {
	// Name labels the key.
	Name string
	// Scopes are the key's permissions; empty lets the service grant its default.
	Scopes []Scope
	// Lifetime is 30, 90 or 365 days; zero or LifetimeNever makes a key without expiry.
	Lifetime Lifetime
}

// UpdateKeyParams are the changes of UpdateKey; a zero field is left as it is, and at least one
// change is needed.
type UpdateKeyParams struct {
	// Name, when not nil, renames the key.
	Name *string
	// Scopes, when not empty, replace the key's scopes.
	Scopes []Scope
	// Lifetime, when not zero, sets the expiry from now (30, 90 or 365 days), or removes it
	// with LifetimeNever.
	Lifetime Lifetime
}

// checkScopes refuses an unknown or repeated scope.
func checkScopes(scopes []Scope) error {
	seen := make(map[Scope]bool, len(scopes))
	for _, s := range scopes {
		switch s {
		case ScopeChartsRead, ScopeAnalysesWrite, ScopeUsageRead:
		default:
			return invalid("scopes", "each must be one of charts:read, analyses:write, usage:read")
		}
		if seen[s] {
			return invalid("scopes", "must not repeat a scope")
		}
		seen[s] = true
	}
	return nil
}

// checkLifetime refuses a lifetime the service does not offer.
func checkLifetime(l Lifetime) error {
	switch l {
	case 0, LifetimeNever, Lifetime30Days, Lifetime90Days, Lifetime365Days:
		return nil
	}
	return invalid("expires_in_days", "must be 30, 90, 365 or never")
}

// checkKeyID refuses an empty key id.
func checkKeyID(id KeyID) error {
	if id == "" {
		return invalid("id", "must not be empty")
	}
	return nil
}

// ListKeys returns the account's active keys, without plaintext. It needs the account token.
func (c *Client) ListKeys(ctx context.Context) (*KeyList, error) {
	creds, err := c.accountCredentials("ListKeys")
	if err != nil {
		return nil, err
	}
	var out KeyList
	resp, err := c.do(ctx, &httpcore.Request{Method: http.MethodGet, Path: "/keys", Credentials: creds}, &out)
	if err != nil {
		return nil, err
	}
	out.Response = newResponse(resp)
	return &out, nil
}

// CreateKey creates an API key and returns its plaintext, which the service shows only this
// once. It needs the account token; an account holds at most 100 active keys
// (ErrKeyLimitReached). params may be nil. The request is not retried, so that a lost answer
// cannot create a second key.
func (c *Client) CreateKey(ctx context.Context, params *CreateKeyParams) (*CreatedKey, error) {
	var p CreateKeyParams
	if params != nil {
		p = *params
	}
	if err := checkScopes(p.Scopes); err != nil {
		return nil, err
	}
	if err := checkLifetime(p.Lifetime); err != nil {
		return nil, err
	}
	creds, err := c.accountCredentials("CreateKey")
	if err != nil {
		return nil, err
	}
	body := map[string]any{}
	if p.Name != "" {
		body["name"] = p.Name
	}
	if len(p.Scopes) > 0 {
		body["scopes"] = p.Scopes
	}
	if p.Lifetime > 0 {
		body["expires_in_days"] = int(p.Lifetime)
	}
	req := &httpcore.Request{Method: http.MethodPost, Path: "/keys", Body: body, Credentials: creds}
	var out secretAnswer
	resp, err := c.doSecret(ctx, req, &out, nil)
	if err != nil {
		return nil, err
	}
	return &CreatedKey{Key: out.Key, Secret: APIKey{plaintext: out.Plaintext}, Response: newResponse(resp)}, nil
}

// UpdateKey changes an active key's name, scopes or expiry. It needs the account token.
func (c *Client) UpdateKey(ctx context.Context, id KeyID, params UpdateKeyParams) (*Key, error) {
	if err := checkKeyID(id); err != nil {
		return nil, err
	}
	if params.Name == nil && len(params.Scopes) == 0 && params.Lifetime == 0 {
		return nil, invalid("body", "needs a change of name, scopes or expires_in_days")
	}
	if err := checkScopes(params.Scopes); err != nil {
		return nil, err
	}
	if err := checkLifetime(params.Lifetime); err != nil {
		return nil, err
	}
	creds, err := c.accountCredentials("UpdateKey")
	if err != nil {
		return nil, err
	}
	body := map[string]any{}
	if params.Name != nil {
		body["name"] = *params.Name
	}
	if len(params.Scopes) > 0 {
		body["scopes"] = params.Scopes
	}
	switch {
	case params.Lifetime == LifetimeNever:
		body["expires_in_days"] = nil
	case params.Lifetime > 0:
		body["expires_in_days"] = int(params.Lifetime)
	}
	// The PATCH sets absolute values, so repeating it is harmless.
	req := &httpcore.Request{Method: http.MethodPatch, Path: httpcore.Path("keys", string(id)), Body: body, Credentials: creds, SafeToRetry: true}
	var out keyAnswer
	resp, err := c.do(ctx, req, &out)
	if err != nil {
		return nil, err
	}
	out.Key.Response = newResponse(resp)
	return &out.Key, nil
}

// RotateKey replaces an active key: the service revokes it at once and returns a new key with
// the same scopes, whose plaintext is shown only this once. It needs the account token. The
// request is not retried: a repeat would fail on the revoked key and the first answer's
// plaintext would be lost.
func (c *Client) RotateKey(ctx context.Context, id KeyID) (*RotatedKey, error) {
	if err := checkKeyID(id); err != nil {
		return nil, err
	}
	creds, err := c.accountCredentials("RotateKey")
	if err != nil {
		return nil, err
	}
	req := &httpcore.Request{Method: http.MethodPost, Path: httpcore.Path("keys", string(id), "rotate"), Credentials: creds}
	var out secretAnswer
	resp, err := c.doSecret(ctx, req, &out, func() error {
		if out.RevokedID == "" {
			return errors.New(`rotation answer: field "revoked_id" is missing`)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &RotatedKey{Key: out.Key, Secret: APIKey{plaintext: out.Plaintext}, RevokedID: out.RevokedID, Response: newResponse(resp)}, nil
}

// DeleteKey revokes a key at once and returns its final record. It needs the account token.
// The key disappears from ListKeys; its past usage is kept. DELETE is retried like a read, so
// a retry after a lost answer reports ErrNotFound for a key that is already revoked.
func (c *Client) DeleteKey(ctx context.Context, id KeyID) (*Key, error) {
	if err := checkKeyID(id); err != nil {
		return nil, err
	}
	creds, err := c.accountCredentials("DeleteKey")
	if err != nil {
		return nil, err
	}
	var out keyAnswer
	resp, err := c.do(ctx, &httpcore.Request{Method: http.MethodDelete, Path: httpcore.Path("keys", string(id)), Credentials: creds}, &out)
	if err != nil {
		return nil, err
	}
	out.Key.Response = newResponse(resp)
	return &out.Key, nil
}

// keyAnswer is the body of PATCH and DELETE /keys/{id}.
type keyAnswer struct {
	Key Key `json:"key"`
}

// UnmarshalJSON refuses an answer without key.
func (a *keyAnswer) UnmarshalJSON(b []byte) error {
	type plain keyAnswer
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if err := requireFields("key answer", b, "key"); err != nil {
		return err
	}
	*a = keyAnswer(v)
	return nil
}

// secretAnswer is the body of POST /keys and POST /keys/{id}/rotate.
type secretAnswer struct {
	Key       Key    `json:"key"`
	Plaintext string `json:"plaintext"`
	RevokedID KeyID  `json:"revoked_id"`
}

// doSecret sends a request whose answer holds a plaintext key, without retries, and decodes
// the answer into out, then runs check (when not nil) on it. A body that does not decode, or
// that check refuses, becomes a *DecodeError that quotes none of the body, so that the
// plaintext cannot reach an error message.
func (c *Client) doSecret(ctx context.Context, req *httpcore.Request, out *secretAnswer, check func() error) (*httpcore.Response, error) {
	req.NoRetry, req.SensitiveBody = true, true
	resp, err := c.do(ctx, req, nil)
	if err != nil {
		return nil, err
	}
	err = c.core.Decode(req, resp, func(body []byte) error {
		if err := json.Unmarshal(bytes.TrimSpace(body), out); err != nil {
			return errors.New("the answer is not the expected JSON object")
		}
		if err := requireFields("key answer", body, "key", "plaintext"); err != nil {
			return err
		}
		if out.Plaintext == "" {
			return errors.New(`key answer: field "plaintext" is empty`)
		}
		if check != nil {
			return check()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}
