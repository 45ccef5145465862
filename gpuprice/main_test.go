package gpuprice_test

import (
	"os"
	"testing"

	"github.com/agentapis/sdk/internal/secrettest"
)

// scan checks that no API key, private key or transaction signature the suite uses ever
// reaches a log line or an error string.
var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }
