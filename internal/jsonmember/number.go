package jsonmember

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
)

// ErrNotNumber is the decoding error of a Number that is neither a finite JSON number nor a
// string holding one.
var ErrNotNumber = errors.New("expected a finite number, as a JSON number or a numeric string")

// Number is a quantity that services send as a JSON number or as a string holding one
// ("12.5"): the one rule by which every package reads numbers sent as text. It is always
// finite: NaN, infinities, hexadecimal or out-of-range values fail, whatever their spelling.
// A required Number that fails fails the answer; an Optional[Number] that fails is left unset.
type Number float64

// UnmarshalJSON reads a JSON number or a string holding a decimal number in JSON's grammar.
func (n *Number) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) != nil {
		s = string(b)
	}
	v, err := ParseNumber(s)
	if err != nil {
		return err
	}
	*n = Number(v)
	return nil
}

// ParseNumber reads s (white space around it allowed) as a decimal number in JSON's grammar
// (-12, 0.5, 1e3) that is finite as a float64.
func ParseNumber(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if !isJSONNumber(s) {
		return 0, ErrNotNumber
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, ErrNotNumber
	}
	return v, nil
}

// isJSONNumber reports whether s, without white space around it, is one JSON number: a
// JSON value that starts as only a number can.
func isJSONNumber(s string) bool {
	return s != "" && (s[0] == '-' || '0' <= s[0] && s[0] <= '9') && json.Valid([]byte(s))
}
