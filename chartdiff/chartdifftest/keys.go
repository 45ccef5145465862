package chartdifftest

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"
)

// keyFields are the body fields key creation and update accept.
var keyFields = map[string]bool{"name": true, "scopes": true, "expires_in_days": true}

// record returns the key's wire form, without plaintext.
func (k *apiKey) record(now time.Time) map[string]any {
	ts := func(t *time.Time) any {
		if t == nil {
			return nil
		}
		return t.UTC().Format(time.RFC3339)
	}
	return map[string]any{
		"id": k.id, "name": k.name, "scopes": k.scopes, "mask": k.mask, "status": k.status(now),
		"created_at": ts(&k.createdAt), "expires_at": ts(k.expiresAt), "last_used_at": ts(k.lastUsed),
		"revoked_at": ts(k.revokedAt),
	}
}

// keyBody reads the JSON object of a key request; an empty body is an empty object.
func keyBody(c *call) (map[string]json.RawMessage, *errorResponse) {
	body := map[string]json.RawMessage{}
	err := json.NewDecoder(http.MaxBytesReader(c.w, c.r.Body, 1<<16)).Decode(&body)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, badRequest("the body must be a JSON object")
	}
	for k := range body {
		if !keyFields[k] {
			return nil, badRequest("unknown field " + k)
		}
	}
	return body, nil
}

// keyChanges are the decoded fields of a key body; a nil pointer is an absent field.
type keyChanges struct {
	name      *string
	scopes    []string
	setExpiry bool
	expiresAt *time.Time
}

// decodeKeyChanges validates the fields of a key body. Caller holds s.mu.
func (s *Server) decodeKeyChanges(body map[string]json.RawMessage) (*keyChanges, *errorResponse) {
	ch := &keyChanges{}
	if raw, ok := body["name"]; ok {
		var name string
		if json.Unmarshal(raw, &name) != nil || len(name) > 100 {
			return nil, badRequest("name must be a string of at most 100 bytes")
		}
		ch.name = &name
	}
	if raw, ok := body["scopes"]; ok {
		var scopes []string
		if json.Unmarshal(raw, &scopes) != nil || len(scopes) == 0 {
			return nil, badRequest("scopes must be a non-empty list")
		}
		seen := map[string]bool{}
		for _, sc := range scopes {
			switch sc {
			case scopeChartsRead, scopeAnalysesWrite, scopeUsageRead:
			default:
				return nil, badRequest("scopes must be among charts:read, analyses:write, usage:read")
			}
			if !seen[sc] {
				seen[sc] = true
				ch.scopes = append(ch.scopes, sc)
			}
		}
	}
	if raw, ok := body["expires_in_days"]; ok {
		ch.setExpiry = true
		if string(raw) != "null" {
			var days int
			if json.Unmarshal(raw, &days) != nil || (days != 30 && days != 90 && days != 365) {
				return nil, badRequest("expires_in_days must be 30, 90, 365 or null for never")
			}
			t := s.Now().UTC().Truncate(time.Second).Add(time.Duration(days) * day)
			ch.expiresAt = &t
		}
	}
	return ch, nil
}

// activeKey returns the account's active key named in the path, or 404 not_found. Caller holds
// s.mu.
func (s *Server) activeKey(c *call) (*apiKey, *errorResponse) {
	k := s.keyByID[c.params[0]]
	if k == nil || k.account != c.who.account || k.status(s.Now()) != "active" {
		return nil, fail(http.StatusNotFound, "not_found", "no active key with that id")
	}
	return k, nil
}

// listKeys answers GET /keys with the account's active keys.
func (s *Server) listKeys(c *call) (int, any, *errorResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.Now()
	out := []map[string]any{}
	for _, k := range c.who.account.keys {
		if k.status(now) == "active" {
			out = append(out, k.record(now))
		}
	}
	return http.StatusOK, map[string]any{"keys": out}, nil
}

// createKey answers POST /keys with the new key and its plaintext, shown this once.
func (s *Server) createKey(c *call) (int, any, *errorResponse) {
	body, e := keyBody(c)
	if e != nil {
		return 0, nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, e := s.decodeKeyChanges(body)
	if e != nil {
		return 0, nil, e
	}
	acc, now := c.who.account, s.Now()
	if acc.activeKeys(now) >= maxActiveKeys {
		return 0, nil, fail(http.StatusConflict, "key_limit_reached", "the account already has 100 active keys")
	}
	scopes := ch.scopes
	if scopes == nil {
		scopes = allScopes
	}
	name := ""
	if ch.name != nil {
		name = *ch.name
	}
	k, plain := s.newKey(acc, name, scopes, ch.expiresAt)
	return http.StatusCreated, map[string]any{"key": k.record(now), "plaintext": plain}, nil
}

// updateKey answers PATCH /keys/{id}: rename, scopes, expiry.
func (s *Server) updateKey(c *call) (int, any, *errorResponse) {
	body, e := keyBody(c)
	if e != nil {
		return 0, nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k, e := s.activeKey(c)
	if e != nil {
		return 0, nil, e
	}
	if len(body) == 0 {
		return 0, nil, badRequest("nothing to update: give name, scopes or expires_in_days")
	}
	ch, e := s.decodeKeyChanges(body)
	if e != nil {
		return 0, nil, e
	}
	if ch.name != nil {
		k.name = *ch.name
	}
	if ch.scopes != nil {
		k.scopes = ch.scopes
	}
	if ch.setExpiry {
		k.expiresAt = ch.expiresAt
	}
	return http.StatusOK, map[string]any{"key": k.record(s.Now())}, nil
}

// rotateKey answers POST /keys/{id}/rotate: the old key is revoked at once and a new one with
// the same name, scopes and expiry is returned with its plaintext.
func (s *Server) rotateKey(c *call) (int, any, *errorResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, e := s.activeKey(c)
	if e != nil {
		return 0, nil, e
	}
	now := s.Now()
	revoked := now.UTC().Truncate(time.Second)
	old.revokedAt = &revoked
	k, plain := s.newKey(old.account, old.name, old.scopes, old.expiresAt)
	return http.StatusOK, map[string]any{"key": k.record(now), "plaintext": plain, "revoked_id": old.id}, nil
}

// deleteKey answers DELETE /keys/{id}: the key is revoked at once; its usage is kept.
func (s *Server) deleteKey(c *call) (int, any, *errorResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, e := s.activeKey(c)
	if e != nil {
		return 0, nil, e
	}
	now := s.Now()
	revoked := now.UTC().Truncate(time.Second)
	k.revokedAt = &revoked
	return http.StatusOK, map[string]any{"key": k.record(now)}, nil
}
