package testkit

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Raw is an answer read without an SDK client, for a test of a fake's wire behaviour.
type Raw struct {
	Status int
	Header http.Header
	Body   []byte
	// JSON is the body decoded, when it is a JSON object; nil otherwise.
	JSON map[string]any
}

// Do sends a request with the given headers and body ("" for none) through hc, without
// following redirects, and reads the answer whole; any failure to send or read fails t.
func Do(t testing.TB, hc *http.Client, method, url, body string, header map[string]string) Raw {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, rd)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	client := *hc // a copy: a fake's client is shared
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, url, err)
	}
	r := Raw{Status: resp.StatusCode, Header: resp.Header, Body: raw}
	if json.Unmarshal(raw, &r.JSON) != nil {
		r.JSON = nil
	}
	return r
}

// ErrorCode returns the code of an error body, {"error":{"code"}} or {"code"}; "" when it
// has none.
func (r Raw) ErrorCode() string { return r.errorMember("code") }

// ErrorMessage returns the message of an error body, {"error":{"message"}} or {"message"};
// "" when it has none.
func (r Raw) ErrorMessage() string { return r.errorMember("message") }

// errorMember returns the string member name of the body's error object, or of the body.
func (r Raw) errorMember(name string) string {
	obj := r.JSON
	if nested, ok := r.JSON["error"].(map[string]any); ok {
		obj = nested
	}
	s, _ := obj[name].(string)
	return s
}

// Object returns the member name of the body as a JSON object, failing t when it is not one.
func (r Raw) Object(t testing.TB, name string) map[string]any {
	t.Helper()
	m, ok := r.JSON[name].(map[string]any)
	if !ok {
		t.Fatalf("%s is not an object in %s", name, r.Body)
	}
	return m
}

// List returns the member name of the body as a JSON array of objects, failing t when it is
// not one.
func (r Raw) List(t testing.TB, name string) []map[string]any {
	t.Helper()
	items, ok := r.JSON[name].([]any)
	if !ok {
		t.Fatalf("%s is not an array in %s", name, r.Body)
	}
	out := make([]map[string]any, len(items))
	for i, it := range items {
		if out[i], ok = it.(map[string]any); !ok {
			t.Fatalf("%s[%d] is not an object in %s", name, i, r.Body)
		}
	}
	return out
}
