package main

import (
	"os"
	"testing"

	"github.com/agentapis/sdk/internal/secretscan"
)

// scan checks that no credential a client of this suite sends ever reaches a log line or an
// error string.
var scan = secretscan.New()

func TestMain(m *testing.M) { os.Exit(secretscan.Main(m, scan)) }
