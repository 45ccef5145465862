//go:build !secretscan

package secrettest

import "testing"

// Main runs the suite. The HTTP core has no observer in builds without the secretscan tag,
// so only what the tests hand to s themselves (Record) is scanned; run the suite with
// -tags secretscan, as CI does, for the whole scan.
func Main(m *testing.M, s *Scanner) int {
	return s.report(m.Run())
}
