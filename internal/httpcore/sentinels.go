package httpcore

import "errors"

// Sentinels are a service's sentinel errors and the error codes that mean each. A package
// builds every one of its sentinels with them, with or without codes, and gives them to
// NewClient (Service.Sentinels): every *sdk.APIError whose Code is registered then matches
// the code's sentinel with errors.Is.
//
//	var sentinels = httpcore.NewSentinels(serviceName).Alias(sdk.ErrNotFound, "not_found")
//	var ErrPlayerNotFound = sentinels.Code("player_not_found")
//	var ErrBlocked = sentinels.New("request blocked by a CDN or firewall")
//
// They are built at package initialisation and only read afterwards.
type Sentinels struct {
	service string
	byCode  map[string]error
}

// NewSentinels returns an empty set for service, whose name starts every sentinel's text.
func NewSentinels(service string) *Sentinels {
	return &Sentinels{service: service, byCode: map[string]error{}}
}

// New returns a new sentinel, "<service>: <text>", matched by every *sdk.APIError whose Code
// is one of codes.
func (s *Sentinels) New(text string, codes ...string) error {
	err := errors.New(s.service + ": " + text)
	s.register(err, codes)
	return err
}

// Code returns a new sentinel named by its one code, "<service>: <code>", for a service whose
// codes say what they mean.
func (s *Sentinels) Code(code string) error { return s.New(code, code) }

// Alias makes codes match an existing sentinel, such as one of package sdk's status
// sentinels for a code that means what the status means; it returns s, so that aliases chain
// on NewSentinels.
func (s *Sentinels) Alias(sentinel error, codes ...string) *Sentinels {
	s.register(sentinel, codes)
	return s
}

// Match returns the sentinel of code, or nil when it has none (or s is nil).
func (s *Sentinels) Match(code string) error {
	if s == nil {
		return nil
	}
	return s.byCode[code]
}

// register records sentinel for each of codes. A code given two sentinels is a mistake of the
// package, found when it initialises.
func (s *Sentinels) register(sentinel error, codes []string) {
	for _, code := range codes {
		if _, dup := s.byCode[code]; dup {
			panic("httpcore: " + s.service + " gives the code " + code + " two sentinels")
		}
		s.byCode[code] = sentinel
	}
}
