package mcpserver

import (
	"os"
	"testing"

	"github.com/agentapis/sdk/internal/secrettest"
)

// scan checks that no credential, wallet key or bought key reaches a log line, an error or a
// tool result: every test server logs into it, and every result the tests receive is
// recorded as an output.
var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }
