package gpuprice_test

import (
	"os"
	"testing"

	"github.com/agentapis/sdk/internal/secretscan"
)

// scan checks that no API key, private key or transaction signature the suite uses ever
// reaches a log line or an error string.
var scan = secretscan.New()

func TestMain(m *testing.M) { os.Exit(secretscan.Main(m, scan)) }
