package chartdiff

import "github.com/agentapis/sdk/internal/poll"

// SetClock makes Analyze wait on clock while the service is busy, so that the tests of its
// busy loop run on a fake clock. Call it before the client is used.
func SetClock(c *Client, clock poll.Clock) { c.clock = clock }
