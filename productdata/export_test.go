package productdata

import "github.com/agentapis/sdk"

// WithClock makes the client pace its requests and time its polling on clock, so that tests
// run minutes of schedule on a polltest.Fake in no time.
func WithClock(clock sdk.Clock) Option {
	return func(c *config) error {
		c.clock = clock
		return nil
	}
}
