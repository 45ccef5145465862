package gpuprice

import "github.com/agentapis/sdk"

// WithClock makes the client time its retries and BuyKey's waits for confirmation and
// redemption on clock, so that tests run a timeout of seconds on a polltest.Fake in no time.
func WithClock(clock sdk.Clock) Option {
	return func(c *config) error {
		c.clock = clock
		return nil
	}
}
