package hostingtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
)

// jsonObject is a request body decoded into its members, each still raw JSON.
type jsonObject map[string]json.RawMessage

// parseObject decodes a request body that must be one JSON object.
func parseObject(body []byte) (jsonObject, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, errors.New("the body is empty; a JSON object is required")
	}
	var obj jsonObject
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		return nil, errors.New("the body is not a JSON object")
	}
	return obj, nil
}

// stringMember returns the string value of a member and whether it was present. A member
// that is null counts as absent; any other non-string value is an error naming the member.
func (o jsonObject) stringMember(name string) (string, bool, error) {
	raw, ok := o[name]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false, fmt.Errorf("%s must be a string", name)
	}
	return s, true, nil
}

// fields checks that the object has only the allowed members (names match exactly, as in a
// JSON parser of the web, not case-insensitively) and that each of them is a string or
// null. It returns the present string members; an empty string is returned as present.
func (o jsonObject) fields(allowed ...string) (map[string]string, error) {
	for name := range o {
		if !slices.Contains(allowed, name) {
			return nil, fmt.Errorf("unknown field %q", name)
		}
	}
	out := make(map[string]string, len(o))
	for _, name := range allowed {
		v, ok, err := o.stringMember(name)
		if err != nil {
			return nil, err
		}
		if ok {
			out[name] = v
		}
	}
	return out, nil
}

// isJSON reports whether a request's Content-Type is application/json, parameters allowed.
func isJSON(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "application/json"
}
