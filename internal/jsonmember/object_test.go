package jsonmember

import (
	"encoding/json"
	"testing"
)

// objectTarget has a field of each kind the services' lenient answers hold.
type objectTarget struct {
	Count   *int          `json:"count"`
	Ratio   *float64      `json:"ratio,omitempty"`
	Name    string        `json:"name"`
	Tags    []string      `json:"tags"`
	Nested  *objectTarget `json:"nested"`
	Text    Text          `json:"text"`
	Skipped string        `json:"-"`
	Untag   string
	Raw     json.RawMessage `json:"raw"`
}

func TestObject(t *testing.T) {
	var o objectTarget
	body := `{"count": 0, "ratio": "high", "name": "n", "tags": ["a", 1], "nested": {"count": 3, "name": "m"},
		"text": 12, "-": "x", "Skipped": "x", "Untag": "x", "raw": {"k": [1]}, "other": true}`
	if err := Object([]byte(body), &o); err != nil {
		t.Fatal(err)
	}
	if o.Count == nil || *o.Count != 0 {
		t.Errorf("count: a computed 0 is a value, got %v", o.Count)
	}
	if o.Ratio != nil {
		t.Errorf("ratio: a value of another type leaves a nil pointer, got %v", *o.Ratio)
	}
	if o.Name != "n" || o.Text != "12" || string(o.Raw) != `{"k": [1]}` {
		t.Errorf("name %q, text %q, raw %s", o.Name, o.Text, o.Raw)
	}
	if o.Tags != nil {
		t.Errorf("tags: a list with an item of another type is left unset, got %v", o.Tags)
	}
	if o.Nested == nil || o.Nested.Count == nil || *o.Nested.Count != 3 || o.Nested.Name != "m" {
		t.Errorf("nested: %+v", o.Nested)
	}
	if o.Skipped != "" || o.Untag != "" {
		t.Errorf("fields without a json name are left alone: %+v", o)
	}

	keep := objectTarget{Name: "before"}
	if err := Object([]byte(`{"name": null, "count": null, "ratio": 1.5, "ratio": true, "nested": {"name": 4}}`), &keep); err != nil {
		t.Fatal(err)
	}
	if keep.Name != "before" || keep.Count != nil || keep.Ratio != nil || keep.Nested != nil {
		t.Errorf("null leaves a field as it was, a repeated member counts by its last value, and a nested "+
			"object decodes by its own type's rules (strictly, without an UnmarshalJSON of its own): %+v", keep)
	}
	if err := Object([]byte(`null`), &keep); err != nil || keep.Name != "before" {
		t.Errorf("null is an object without members: %v %+v", err, keep)
	}
	for _, bad := range []string{`[1]`, `"x"`, `{"count":`, ``} {
		if err := Object([]byte(bad), &keep); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestObjectMatchesNamesInAnyLetterCase(t *testing.T) {
	var o objectTarget
	if err := Object([]byte(`{"Count": 4, "NAME": "upper", "Name": "title", "name": "exact"}`), &o); err != nil {
		t.Fatal(err)
	}
	if o.Count == nil || *o.Count != 4 {
		t.Errorf("Count in another letter case is read as count, got %v", o.Count)
	}
	if o.Name != "exact" {
		t.Errorf("the exact name wins, got %q", o.Name)
	}
	var p objectTarget
	if err := Object([]byte(`{"NAME": "upper", "Name": "title"}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.Name != "title" {
		t.Errorf("without the exact name the greatest spelling wins, whatever the map order, got %q", p.Name)
	}
}
