package budgetpg

import (
	sdk "github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/storehooks"
)

// init lets this module's tests drive a Store's clock (internal/storehooks): every operation
// then passes the time clock reads to the database's functions.
func init() {
	storehooks.PostgresClock = func(s any, clock sdk.Clock) { s.(*Store).clock = clock }
}
