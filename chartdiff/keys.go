package chartdiff

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/jsonmember"
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
	var t jsonmember.Text
	if err := t.UnmarshalJSON(b); err != nil {
		return errNotKeyID
	}
	*id = KeyID(t)
	return nil
}

// errNotKeyID is the decoding error of a key id that is neither a string nor a number.
var errNotKeyID = errors.New("key id must be a string or a number")

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
	Response sdk.Response `json:"-"`
}

// UnmarshalJSON decodes a key record in one pass and keeps its raw object. The id (or
// key_id) is required, as the API description names it; the other fields are optional, and a
// value of an unexpected type is left zero (Raw keeps it).
func (k *Key) UnmarshalJSON(b []byte) error {
	var w keyWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	key, ok := w.key()
	if !ok {
		return jsonmember.Missing("key", "id")
	}
	key.Raw = append(json.RawMessage(nil), b...)
	*k = key
	return nil
}

// keyWire is a key record as sent.
type keyWire struct {
	ID         jsonmember.Optional[KeyID]     `json:"id"`
	KeyID      jsonmember.Optional[KeyID]     `json:"key_id"`
	Name       jsonmember.Optional[string]    `json:"name"`
	Scopes     jsonmember.Optional[[]Scope]   `json:"scopes"`
	Mask       jsonmember.Optional[string]    `json:"mask"`
	Status     jsonmember.Optional[KeyStatus] `json:"status"`
	CreatedAt  jsonmember.Optional[time.Time] `json:"created_at"`
	ExpiresAt  jsonmember.Optional[time.Time] `json:"expires_at"`
	LastUsedAt jsonmember.Optional[time.Time] `json:"last_used_at"`
	RevokedAt  jsonmember.Optional[time.Time] `json:"revoked_at"`
}

// key returns the record, and false when it has no id.
func (w *keyWire) key() (Key, bool) {
	id := w.ID.Or(w.KeyID.Or(""))
	return Key{
		ID: id, Name: w.Name.Or(""), Scopes: w.Scopes.Or(nil), Mask: w.Mask.Or(""), Status: w.Status.Or(""),
		CreatedAt: w.CreatedAt.Ptr(), ExpiresAt: w.ExpiresAt.Ptr(), LastUsedAt: w.LastUsedAt.Ptr(), RevokedAt: w.RevokedAt.Ptr(),
	}, id != ""
}

// KeyList is the answer of Keys.
type KeyList struct {
	// Keys are the account's active keys.
	Keys []Key `json:"keys"`
	// Response describes the HTTP response.
	Response sdk.Response `json:"-"`
}

// UnmarshalJSON decodes the list in one pass. It may be called keys, items or results; an
// answer with none of them is refused, so that a renamed list never reads as an account
// without keys (null or [] is an empty list).
func (l *KeyList) UnmarshalJSON(b []byte) error {
	var w struct {
		Keys    jsonmember.Tracked[[]Key] `json:"keys"`
		Items   jsonmember.Tracked[[]Key] `json:"items"`
		Results jsonmember.Tracked[[]Key] `json:"results"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	keys, ok := jsonmember.FirstTracked(w.Keys, w.Items, w.Results)
	if !ok {
		return jsonmember.Missing("key list", "keys")
	}
	*l = KeyList{Keys: keys}
	if l.Keys == nil {
		l.Keys = []Key{}
	}
	return nil
}

// CreatedKey is the answer of CreateKey: the record and the plaintext, shown this once.
type CreatedKey struct {
	// Key is the new key's record. It is zero (ID "") when the answer carried no record the
	// client could read; Secret is set all the same.
	Key Key
	// Secret is the plaintext key. It prints as a mask; call Secret.Reveal to use it.
	Secret sdk.Secret
	// Response describes the HTTP response.
	Response sdk.Response
}

// RotatedKey is the answer of RotateKey: the new key, its plaintext (shown this once) and the
// id of the old key, revoked at once.
type RotatedKey struct {
	// Key is the new key's record; it has the old key's scopes. It is zero (ID "") when the
	// answer carried no record the client could read; Secret is set all the same.
	Key Key
	// Secret is the new plaintext key. It prints as a mask; call Secret.Reveal to use it.
	Secret sdk.Secret
	// RevokedID is the id of the old key: as the answer gives it, or else the id that was
	// rotated.
	RevokedID KeyID
	// Response describes the HTTP response.
	Response sdk.Response
}

// KeyAnswerError reports an answer of CreateKey or RotateKey in which the client found no
// plaintext key. The key may have been created nonetheless (and, for a rotation, the old key
// revoked): Body holds the whole answer, printed only as a mask; Reveal it to recover the key
// by hand, and never log it. Response keeps the answer's request id and header scrubbed of the
// client's credentials, as an *sdk.APIError keeps them.
type KeyAnswerError struct {
	// Operation is "CreateKey" or "RotateKey".
	Operation string
	// StatusCode is the answer's HTTP status (2xx).
	StatusCode int
	// Body is the raw answer, masked when printed.
	Body sdk.Secret
	// Response describes the HTTP response.
	Response sdk.Response
}

// Error says that no plaintext was found and how long the answer was; it never quotes it.
func (e *KeyAnswerError) Error() string {
	return fmt.Sprintf("%s: %s: no plaintext key found in the %d answer (%d bytes, kept in Body)",
		serviceName, e.Operation, e.StatusCode, len(e.Body.Reveal()))
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

// keyBody checks the fields of a key creation or update and returns the request body: the
// name when not nil, the scopes when not empty, and expires_in_days for a lifetime other than
// zero (LifetimeNever sends null, which removes an expiry).
func keyBody(name *string, scopes []Scope, lifetime Lifetime) (map[string]any, error) {
	body := map[string]any{}
	for i, s := range scopes {
		switch {
		case s != ScopeChartsRead && s != ScopeAnalysesWrite && s != ScopeUsageRead:
			return nil, invalid("scopes", "each must be one of charts:read, analyses:write, usage:read")
		case slices.Contains(scopes[:i], s):
			return nil, invalid("scopes", "must not repeat a scope")
		}
	}
	switch lifetime {
	case 0:
	case LifetimeNever:
		body["expires_in_days"] = nil
	case Lifetime30Days, Lifetime90Days, Lifetime365Days:
		body["expires_in_days"] = int(lifetime)
	default:
		return nil, invalid("expires_in_days", "must be 30, 90, 365 or never")
	}
	if name != nil {
		body["name"] = *name
	}
	if len(scopes) > 0 {
		body["scopes"] = scopes
	}
	return body, nil
}

// checkKeyID refuses an empty key id.
func checkKeyID(id KeyID) error {
	if id == "" {
		return invalid("id", "must not be empty")
	}
	return nil
}

// Keys returns the account's active keys, without plaintext. It needs the account token.
func (c *Client) Keys(ctx context.Context) (*KeyList, error) {
	var out KeyList
	resp, err := c.doAccount(ctx, "Keys", &httpcore.Request{Method: http.MethodGet, Path: "/keys"}, &out)
	if err != nil {
		return nil, err
	}
	out.Response = resp.Meta()
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
	var name *string
	if p.Name != "" {
		name = &p.Name
	}
	if p.Lifetime == LifetimeNever {
		p.Lifetime = 0 // a key is created without expiry when none is sent
	}
	body, err := keyBody(name, p.Scopes, p.Lifetime)
	if err != nil {
		return nil, err
	}
	req := &httpcore.Request{Method: http.MethodPost, Path: "/keys", Body: httpcore.JSON(body)}
	k, err := c.doSecret(ctx, "CreateKey", req)
	if err != nil {
		return nil, err
	}
	return &CreatedKey{Key: k.Key, Secret: k.Secret, Response: k.Response}, nil
}

// UpdateKey changes an active key's name, scopes or expiry. It needs the account token, and
// params must hold at least one change.
func (c *Client) UpdateKey(ctx context.Context, id KeyID, params *UpdateKeyParams) (*Key, error) {
	if err := checkKeyID(id); err != nil {
		return nil, err
	}
	if params == nil || params.Name == nil && len(params.Scopes) == 0 && params.Lifetime == 0 {
		return nil, invalid("body", "needs a change of name, scopes or expires_in_days")
	}
	body, err := keyBody(params.Name, params.Scopes, params.Lifetime)
	if err != nil {
		return nil, err
	}
	// The PATCH sets absolute values, so repeating it is harmless.
	return c.doKey(ctx, "UpdateKey", &httpcore.Request{Method: http.MethodPatch, Path: httpcore.Path("keys", string(id)),
		Body: httpcore.JSON(body), Retry: httpcore.RetrySafe})
}

// RotateKey replaces an active key: the service revokes it at once and returns a new key with
// the same scopes, whose plaintext is shown only this once. It needs the account token. The
// request is not retried: a repeat would fail on the revoked key and the first answer's
// plaintext would be lost.
func (c *Client) RotateKey(ctx context.Context, id KeyID) (*RotatedKey, error) {
	if err := checkKeyID(id); err != nil {
		return nil, err
	}
	req := &httpcore.Request{Method: http.MethodPost, Path: httpcore.Path("keys", string(id), "rotate")}
	k, err := c.doSecret(ctx, "RotateKey", req)
	if err != nil {
		return nil, err
	}
	k.RevokedID = cmp.Or(k.RevokedID, id)
	return k, nil
}

// DeleteKey revokes a key at once and returns its final record. It needs the account token.
// The key disappears from Keys; its past usage is kept. DELETE is retried like a read, so
// a retry after a lost answer reports ErrNotFound for a key that is already revoked.
func (c *Client) DeleteKey(ctx context.Context, id KeyID) (*Key, error) {
	if err := checkKeyID(id); err != nil {
		return nil, err
	}
	req := &httpcore.Request{Method: http.MethodDelete, Path: httpcore.Path("keys", string(id))}
	return c.doKey(ctx, "DeleteKey", req)
}

// doKey sends a key management request whose answer is one key's record.
func (c *Client) doKey(ctx context.Context, op string, req *httpcore.Request) (*Key, error) {
	var out keyAnswer
	resp, err := c.doAccount(ctx, op, req, &out)
	if err != nil {
		return nil, err
	}
	out.Key.Response = resp.Meta()
	return &out.Key, nil
}

// keyAnswer is the body of PATCH and DELETE /keys/{id}: the record under key (or record),
// or the record itself.
type keyAnswer struct {
	Key Key
}

// UnmarshalJSON decodes the answer in one pass and refuses one without a record.
func (a *keyAnswer) UnmarshalJSON(b []byte) error {
	var w struct {
		keyWire
		Key    jsonmember.Optional[Key] `json:"key"`
		Record jsonmember.Optional[Key] `json:"record"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if k, ok := jsonmember.First(w.Key, w.Record); ok {
		a.Key = k
		return nil
	}
	k, ok := w.keyWire.key()
	if !ok {
		return jsonmember.Missing("key answer", "key")
	}
	k.Raw = append(json.RawMessage(nil), b...)
	a.Key = k
	return nil
}

// plaintextPattern matches a plaintext key anywhere in an answer.
var plaintextPattern = regexp.MustCompile(`sk-[0-9a-fA-F]{32}`)

// keyOrPlaintext is the key or api_key member of an answer holding a new key: the plaintext
// key, or the key's record.
type keyOrPlaintext struct {
	plaintext string
	record    Key
}

// UnmarshalJSON reads a string as the plaintext and anything else as a record.
func (k *keyOrPlaintext) UnmarshalJSON(b []byte) error {
	if json.Unmarshal(b, &k.plaintext) == nil {
		return nil
	}
	return json.Unmarshal(b, &k.record)
}

// doSecret sends a key management request whose answer holds a plaintext key, once (a repeat
// could create a second key, or fail on a key the first attempt already revoked), and never
// loses the plaintext: it takes it from plaintext, secret, key or api_key, or else finds sk-
// and 32 hexadecimal characters anywhere in the body; an answer without one is a
// *KeyAnswerError holding the body, masked. The record is read leniently from key, api_key,
// record or the answer itself. No error quotes the body.
func (c *Client) doSecret(ctx context.Context, op string, req *httpcore.Request) (*RotatedKey, error) {
	req.Retry, req.SensitiveBody = httpcore.RetryNever, true
	resp, err := c.doAccount(ctx, op, req, nil)
	if err != nil {
		return nil, err
	}
	// A body that is not an object leaves w zero: only the search of the body applies then.
	var w struct {
		keyWire
		Plaintext jsonmember.Optional[string]         `json:"plaintext"`
		Secret    jsonmember.Optional[string]         `json:"secret"`
		Key       jsonmember.Optional[keyOrPlaintext] `json:"key"`
		APIKey    jsonmember.Optional[keyOrPlaintext] `json:"api_key"`
		Record    jsonmember.Optional[Key]            `json:"record"`
		RevokedID jsonmember.Optional[KeyID]          `json:"revoked_id"`
		Revoked   jsonmember.Optional[KeyID]          `json:"revokedId"`
		OldID     jsonmember.Optional[KeyID]          `json:"old_id"`
	}
	_ = json.Unmarshal(resp.Body, &w)
	key, apiKey := w.Key.Or(keyOrPlaintext{}), w.APIKey.Or(keyOrPlaintext{})
	plaintext, _ := jsonmember.First(w.Plaintext, w.Secret)
	plaintext = cmp.Or(plaintext, key.plaintext, apiKey.plaintext)
	if plaintext == "" {
		plaintext = string(plaintextPattern.Find(resp.Body))
	}
	if plaintext == "" {
		return nil, &KeyAnswerError{Operation: op, StatusCode: resp.StatusCode, Body: sdk.NewSecret(string(resp.Body)),
			Response: c.core.RedactResponse(resp.Meta())}
	}
	out := &RotatedKey{Secret: sdk.NewSecret(plaintext), Response: resp.Meta()}
	out.RevokedID, _ = jsonmember.First(w.RevokedID, w.Revoked, w.OldID)
	rec, ok := w.Record.Get()
	switch {
	case key.record.ID != "":
		out.Key = key.record
	case apiKey.record.ID != "":
		out.Key = apiKey.record
	case ok:
		out.Key = rec
	default:
		if k, ok := w.keyWire.key(); ok {
			k.Raw = resp.Body // the record is the answer itself
			out.Key = k
		}
	}
	// Raw may hold the plaintext: keep only its mask there.
	out.Key.Raw = bytes.ReplaceAll(out.Key.Raw, []byte(plaintext), []byte(out.Secret.String()))
	return out, nil
}
