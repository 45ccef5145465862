package jsonmember

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRequired decodes a named member from whole objects: only a value of its type is
// accepted, and whatever else the answer carried is reported by name without failing the
// object.
func TestRequired(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    int
		wantErr string
	}{
		{"present", `{"a":12}`, 12, ""},
		{"zero is present", `{"a":0}`, 0, ""},
		{"absent", `{}`, 0, `field "a" is missing`},
		{"other member", `{"b":1}`, 0, `field "a" is missing`},
		{"null", `{"a":null}`, 0, `field "a" is null`},
		{"null with white space", `{"a": null }`, 0, `field "a" is null`},
		{"numeric text", `{"a":"12"}`, 0, `field "a" has the wrong type (want int)`},
		{"fraction", `{"a":1.5}`, 0, `field "a" has the wrong type`},
		{"object", `{"a":{"b":1}}`, 0, `field "a" has the wrong type`},
		{"repeated, the last value wins", `{"a":1,"a":2}`, 2, ""},
		{"repeated, a later null wins", `{"a":1,"a":null}`, 0, `field "a" is null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w struct {
				A Required[int] `json:"a"`
			}
			if err := json.Unmarshal([]byte(tt.body), &w); err != nil {
				t.Fatalf("Unmarshal(%s) failed: %v", tt.body, err)
			}
			v, err := w.A.Value("a")
			if tt.wantErr == "" {
				if err != nil || v != tt.want {
					t.Errorf("Value = %d, %v; want %d, nil", v, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Value error = %v; want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

// TestRequiredText reads a string member: a number is the wrong type, never its text.
func TestRequiredText(t *testing.T) {
	var r Required[string]
	if err := r.UnmarshalJSON([]byte(`"B0CVM8TXHP"`)); err != nil {
		t.Fatal(err)
	}
	if v, err := r.Value("ASIN"); v != "B0CVM8TXHP" || err != nil {
		t.Errorf("Value = %q, %v", v, err)
	}
	var n Required[string]
	if err := n.UnmarshalJSON([]byte(`12`)); err != nil {
		t.Fatalf("UnmarshalJSON(12) = %v; want nil", err)
	}
	if _, err := n.Value("ASIN"); err == nil || !strings.Contains(err.Error(), "wrong type (want string)") {
		t.Errorf("Value error = %v", err)
	}
}
