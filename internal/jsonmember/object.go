package jsonmember

import (
	"encoding/json"
	"reflect"
	"strings"
)

// Object decodes the JSON object b into the struct v points to, every field leniently, as
// an Optional would: each member goes into the field whose json tag names it, exactly or else in
// another letter case (as encoding/json matches names; among several such members the
// greatest name wins, so the choice never depends on map order); a member that is absent,
// null, or of a value that does not decode into the field's type leaves the field as it was
// (a nil pointer stays nil, never a pointer to 0). A repeated member counts by its last
// value. Fields without a json name are left alone. It is for the answers whose every
// member the API description leaves "not shown"; b that is not a JSON object (or null) is an
// error.
//
// A type with its own UnmarshalJSON calls it on a type without the method:
//
//	type plainStats Stats
//	func (s *Stats) UnmarshalJSON(b []byte) error { return jsonmember.Object(b, (*plainStats)(s)) }
func Object(b []byte, v any) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return err
	}
	rv := reflect.ValueOf(v).Elem()
	for i := range rv.NumField() {
		f := rv.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		raw, ok := member(members, name)
		if !ok || IsNull(raw) {
			continue
		}
		p := reflect.New(f.Type)
		if json.Unmarshal(raw, p.Interface()) == nil {
			rv.Field(i).Set(p.Elem())
		}
	}
	return nil
}

// member returns the member called name, or else the greatest one whose name equals it in
// another letter case.
func member(members map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	if raw, ok := members[name]; ok {
		return raw, true
	}
	best, found := "", false
	for k := range members {
		if strings.EqualFold(k, name) && (!found || k > best) {
			best, found = k, true
		}
	}
	return members[best], found
}
