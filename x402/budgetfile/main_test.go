package budgetfile_test

import (
	"os"
	"testing"

	"github.com/agentapis/sdk/internal/secrettest"
)

// scan checks that no signature or payment header the payers of this suite send ever
// reaches a log line or an error string.
var scan = secrettest.New()

func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }
