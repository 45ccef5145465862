package httpcore

import "errors"

// Codes maps a service's error codes to its package's sentinel errors. A service gives it to
// NewClient (Service.Codes): every *sdk.APIError whose Code is listed then matches the
// sentinel with errors.Is.
//
// Deprecated: use Sentinels; removed once every client moved.
type Codes map[string]error

// Sentinel returns a new sentinel error, "<service>: <text>", and records it for each of
// codes. Packages declare their sentinels with it:
//
//	var codes = httpcore.Codes{}
//	var ErrPlayerNotFound = codes.Sentinel("chartdiff", "player_not_found", "player_not_found")
func (c Codes) Sentinel(service, text string, codes ...string) error {
	err := errors.New(service + ": " + text)
	for _, code := range codes {
		c[code] = err
	}
	return err
}

// Match returns the sentinel of code, or nil when it has none.
func (c Codes) Match(code string) error { return c[code] }
