package secrettest

import (
	"flag"
	"runtime"
	"strconv"
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
//
// Unless the command line sets -parallel, the suite's parallel tests run up to
// waitingParallelism at a time rather than GOMAXPROCS: most of them wait on timers, stalled
// servers and bounded calls, not on the CPU, and would otherwise wait in line behind each
// other on a small machine.
func Main(m *testing.M, s *Scanner) int {
	flag.Parse()
	raiseParallelism()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		return m.Run()
	}
	undo := httpcore.Observe(&httpcore.Observer{Logger: s.Logger(), Error: s.Record, Secret: func(v string) { s.Add(v) }})
	code := m.Run()
	undo()
	return s.report(code)
}

// waitingParallelism is how many parallel tests run at once by default: 4 per CPU, 8 at
// least.
func waitingParallelism() int { return max(8, 4*runtime.GOMAXPROCS(0)) }

// raiseParallelism sets -test.parallel to waitingParallelism unless the command line set it.
func raiseParallelism() {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(waitingParallelism()))
	}
}
