package gpuprice

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentapis/sdk/internal/lenient"
)

// The API description shows one body, the cheapest price; every other shape is "not shown".
// The wire types of this package read those shapes leniently: each member is optional, the
// likely spellings are accepted (price_usd_hr, usd_per_hour, price...), a value of an
// unexpected type is left unset rather than failing the answer, and the raw JSON is kept
// beside the decoded values. A list the client cannot find at all is an error, never an
// empty result.

// floats returns the first set of opts as a *float64. Every number the service may send as
// text is a lenient.Number: finite, so NaN and infinities, whatever their spelling, leave it
// unset.
func floats(opts ...lenient.Opt[lenient.Number]) *float64 {
	if v, ok := lenient.First(opts...); ok {
		f := float64(v)
		return &f
	}
	return nil
}

// integer is a whole number, also accepted as a numeric string.
type integer int

// UnmarshalJSON reads a whole number or a string holding one, as a lenient.Number.
func (n *integer) UnmarshalJSON(b []byte) error {
	var f lenient.Number
	if err := f.UnmarshalJSON(b); err != nil {
		return err
	}
	if f != lenient.Number(int(f)) {
		return errNotInteger
	}
	*n = integer(f)
	return nil
}

// errNotInteger is the decoding error of a number that should be whole.
var errNotInteger = errors.New("expected a whole number")

// ints returns the first set of opts as an *int.
func ints(opts ...lenient.Opt[integer]) *int {
	if v, ok := lenient.First(opts...); ok {
		i := int(v)
		return &i
	}
	return nil
}

// texts returns the first set of opts as a string, "" when none is.
func texts(opts ...lenient.Opt[lenient.Text]) string {
	t, _ := lenient.First(opts...)
	return string(t)
}

// timestamp is a time sent as RFC 3339 text, a date (2026-01-31), or Unix seconds or
// milliseconds.
type timestamp time.Time

// UnmarshalJSON reads the forms above.
func (t *timestamp) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		for _, layout := range []string{time.RFC3339Nano, time.DateOnly, "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05"} {
			if v, err := time.Parse(layout, s); err == nil {
				*t = timestamp(v.UTC())
				return nil
			}
		}
		return fmt.Errorf("not a time: %q", s)
	}
	var n lenient.Number
	if err := n.UnmarshalJSON(b); err != nil {
		return err
	}
	secs := float64(n)
	if secs > 1e12 { // milliseconds
		secs /= 1000
	}
	*t = timestamp(time.Unix(0, int64(secs*float64(time.Second))).UTC())
	return nil
}

// times returns the first set of opts as a *time.Time.
func times(opts ...lenient.Opt[timestamp]) *time.Time {
	if v, ok := lenient.First(opts...); ok {
		tm := time.Time(v)
		return &tm
	}
	return nil
}

// fold returns name without letter case and without the separators "_", "-", "." and
// spaces, so that the spellings of one name compare equal: best_price_usd_hr,
// bestPriceUsdHr and Best-Price-USD-Hr all fold to bestpriceusdhr.
func fold(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			return -1
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return r
	}, name)
}

// bareArray reports whether b is a JSON array (a list sent without an object around it).
func bareArray(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '['
}
