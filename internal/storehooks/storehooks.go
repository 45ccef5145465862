// Package storehooks lets the SDK's own tests drive the clock of a budget store whose clock
// is not the caller's to set: x402/budgetpg decides with PostgreSQL's, so that no process of a
// fleet can free money early with a wrong clock. The test helpers of this module (the money
// tests run on every store, with fake clocks) reach it through here; no program outside the
// module can import it.
package storehooks

import sdk "github.com/agentapis/sdk"

// PostgresClock makes a *budgetpg.Store decide with clock instead of PostgreSQL's; budgetpg
// sets it when it loads.
var PostgresClock func(store any, clock sdk.Clock)
