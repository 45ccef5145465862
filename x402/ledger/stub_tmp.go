package ledger

import sdk "github.com/agentapis/sdk"

// Memory is a placeholder until the store contract's implementation lands.
type Memory struct{ Store }

// NewMemory is a placeholder until the store contract's implementation lands.
func NewMemory(clock sdk.Clock) *Memory { panic("ledger: not yet") }
