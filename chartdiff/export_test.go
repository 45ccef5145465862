package chartdiff

import "github.com/agentapis/sdk"

// SetClock makes Analyze wait on clock while the service is busy, so that the tests of its
// busy loop run on a fake clock. Call it before the client is used.
func SetClock(c *Client, clock sdk.Clock) { c.clock = clock }
