package productdatatest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// params are the top-level members of a request body, looked up in any letter case.
type params map[string]json.RawMessage // lower-case name -> raw value

// paramError is a request parameter error (code 10); its text names the parameter.
type paramError struct{ msg string }

func (e *paramError) Error() string { return "Request parameters error: " + e.msg }

// badParam builds a paramError.
func badParam(format string, args ...any) *paramError {
	return &paramError{fmt.Sprintf(format, args...)}
}

// parseParams reads a request body: empty, or a JSON object whose member names are unique in
// any letter case. raw keeps the members as sent, for the call log.
func parseParams(body []byte) (p params, raw map[string]json.RawMessage, err error) {
	p, raw = params{}, map[string]json.RawMessage{}
	if len(bytes.TrimSpace(body)) == 0 {
		return p, raw, nil
	}
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return nil, nil, badParam("the body must be a JSON object")
	}
	for name, v := range raw {
		key := strings.ToLower(name)
		if _, dup := p[key]; dup {
			return nil, nil, badParam("parameter %s is given more than once", name)
		}
		p[key] = v
	}
	return p, raw, nil
}

// has reports whether the parameter is present and not null.
func (p params) has(name string) bool {
	v, ok := p[strings.ToLower(name)]
	return ok && string(v) != "null"
}

// str returns a string parameter; absent or null gives "", false.
func (p params) str(name string) (string, bool, error) {
	if !p.has(name) {
		return "", false, nil
	}
	var s string
	if err := json.Unmarshal(p[strings.ToLower(name)], &s); err != nil {
		return "", false, badParam("%s must be a string", name)
	}
	return strings.TrimSpace(s), true, nil
}

// requiredStr returns a string parameter that must be present and not blank.
func (p params) requiredStr(name string) (string, error) {
	s, ok, err := p.str(name)
	if err != nil {
		return "", err
	}
	if !ok || s == "" {
		return "", badParam("%s is required", name)
	}
	return s, nil
}

// integer returns an integer parameter (a JSON number without fraction) between lo and hi,
// or def when absent.
func (p params) integer(name string, def, lo, hi int) (int, error) {
	if !p.has(name) {
		return def, nil
	}
	var n int
	if err := json.Unmarshal(p[strings.ToLower(name)], &n); err != nil {
		return 0, badParam("%s must be an integer", name)
	}
	if n < lo || n > hi {
		return 0, badParam("%s must be between %d and %d", name, lo, hi)
	}
	return n, nil
}

// strList returns a parameter that must be a non-empty array of strings.
func (p params) strList(name string) ([]string, error) {
	if !p.has(name) {
		return nil, badParam("%s is required", name)
	}
	var list []string
	if err := json.Unmarshal(p[strings.ToLower(name)], &list); err != nil {
		return nil, badParam("%s must be an array of strings", name)
	}
	if len(list) == 0 {
		return nil, badParam("%s must not be empty", name)
	}
	return list, nil
}

// date returns a date parameter in the given Go layout, or the zero time when absent.
func (p params) date(name, layout, shown string) (time.Time, bool, error) {
	s, ok, err := p.str(name)
	if err != nil || !ok || s == "" {
		return time.Time{}, false, err
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		return time.Time{}, false, badParam("%s must be a date in the format %s", name, shown)
	}
	return t, true, nil
}

// asinPattern is the form of an ASIN: ten letters or digits.
var asinPattern = regexp.MustCompile(`^[A-Z0-9]{10}$`)

// asin returns the ASIN parameter, upper-cased and checked.
func (p params) asin() (string, error) {
	s, err := p.requiredStr("ASIN")
	if err != nil {
		return "", err
	}
	return checkASIN(s)
}

// checkASIN upper-cases an ASIN and checks its form.
func checkASIN(s string) (string, error) {
	a := strings.ToUpper(strings.TrimSpace(s))
	if !asinPattern.MatchString(a) {
		return "", badParam("ASIN %q is not 10 letters or digits", s)
	}
	return a, nil
}

// nodeIDPattern is the form of a category node id: digits.
var nodeIDPattern = regexp.MustCompile(`^[0-9]{1,20}$`)

// nodeID returns the NodeId parameter, a string of digits.
func (p params) nodeID() (string, error) {
	s, err := p.requiredStr("NodeId")
	if err != nil {
		return "", err
	}
	if !nodeIDPattern.MatchString(s) {
		return "", badParam("NodeId %q is not a string of digits", s)
	}
	return s, nil
}

// keyword returns the Keyword parameter.
func (p params) keyword() (string, error) {
	s, err := p.requiredStr("Keyword")
	if err != nil {
		return "", err
	}
	if len([]rune(s)) > 200 {
		return "", badParam("Keyword is longer than 200 characters")
	}
	return s, nil
}

// page returns the 1-based Page parameter (default 1).
func (p params) page() (int, error) { return p.integer("Page", 1, 1, 1<<20) }
