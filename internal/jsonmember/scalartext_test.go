package jsonmember

import "testing"

func TestScalarText(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]struct {
		text string
		ok   bool
	}{
		`"US"`:      {"US", true},
		`""`:        {"", true},
		` "a\"b" `:  {`a"b`, true},
		`"\u00e9"`:  {"é", true},
		`12.5`:      {"12.5", true},
		`-0`:        {"-0", true},
		`1e400`:     {"1e400", true},
		` 7 `:       {"7", true},
		`null`:      {"", false},
		` null `:    {"", false},
		`true`:      {"", false},
		`[1]`:       {"", false},
		`{"a":1}`:   {"", false},
		`01`:        {"", false},
		`"`:         {"", false},
		``:          {"", false},
		`"a" "b"`:   {"", false},
		"\"tab\t\"": {"", false},
		"\"\xff\"":  {"\ufffd", true},
	} {
		got, ok := ScalarText([]byte(raw))
		if got != want.text || ok != want.ok {
			t.Errorf("ScalarText(%q) = %q, %t; want %q, %t", raw, got, ok, want.text, want.ok)
		}
	}
}
