package secrettest

import (
	"flag"
	"testing"

	"github.com/agentapis/sdk/internal/httpcore"
)

// Main runs the suite with s installed as the HTTP core's observer, then reports every
// finding and returns a failing exit code when there is one. Use it from TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(secrettest.Main(m, scan)) }
//
// A run that measures benchmarks (-test.bench) runs without the observer, whose logging
// would be measured with them.
func Main(m *testing.M, s *Scanner) int {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		return m.Run()
	}
	undo := httpcore.Observe(&httpcore.Observer{Logger: s.Logger(), Error: s.Record, Secret: func(v string) { s.Add(v) }})
	code := m.Run()
	undo()
	return s.report(code)
}
