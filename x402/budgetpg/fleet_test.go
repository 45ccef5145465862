package budgetpg_test

import (
	"context"
	"errors"
)

// fleetChild pays through the fleet's server until the shared budget refuses.
func fleetChild(ctx context.Context) error { return errors.New("not yet") }
