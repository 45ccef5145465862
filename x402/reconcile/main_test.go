package reconcile_test

import (
	"os"
	"testing"

	"github.com/agentapis/sdk/internal/secrettest"
)

// scan checks that no private key, signature or payment header the suite uses ever reaches
// an error string or a log line.
var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }
