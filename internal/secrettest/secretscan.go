// Package secrettest checks that a test suite never lets a secret reach a log line, an
// error string or an output a program hands its users (RecordOutput). A package's TestMain
// runs its suite through Main, and every client of the suite then logs at debug level into
// the scanner (the clients that have no logger of their own), every error a client returns
// is rendered with Error, %v, %+v and %#v, and every credential a client is given or sends is
// remembered as a secret, as is anything the tests add with Add (private keys, signatures,
// tokens a fake issued). After the suite, any secret found in a log line or an error
// rendering, in any letter case, fails the run.
package secrettest

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
)

// minSecretLen is the shortest value scanned for: shorter ones would match ordinary text.
const minSecretLen = 8

// Scanner collects secrets, log lines and error renderings. It is safe for concurrent use.
type Scanner struct {
	mu      sync.Mutex
	secrets map[string]bool // lower case
	logs    bytes.Buffer
	errs    []string
	outs    []string
}

// New returns a scanner that already knows secrets.
func New(secrets ...string) *Scanner {
	s := &Scanner{secrets: make(map[string]bool)}
	s.Add(secrets...)
	return s
}

// Add remembers values as secrets; values shorter than 8 bytes are ignored.
func (s *Scanner) Add(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range values {
		if len(v) >= minSecretLen {
			s.secrets[strings.ToLower(v)] = true
		}
	}
}

// Logger returns a logger writing every record, from debug level up, into the scanner, for
// clients a test configures with a logger of its own.
func (s *Scanner) Logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(writerFunc(s.writeLog), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// writeLog appends a log record.
func (s *Scanner) writeLog(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.Write(p)
}

// Record renders err every way a caller may print it.
func (s *Scanner) Record(err error) {
	if err == nil {
		return
	}
	rendered := strings.Join([]string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)}, "\n")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs = append(s.errs, rendered)
}

// RecordOutput keeps text that a program hands to its users, such as an MCP server's tool
// results, to be scanned like the errors.
func (s *Scanner) RecordOutput(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.outs = append(s.outs, text)
}

// Findings lists, for every secret found, where it was found (without quoting it).
func (s *Scanner) Findings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	logs := strings.ToLower(s.logs.String())
	// The errors, lowered once and joined by a line no secret can span.
	errs := strings.ToLower(strings.Join(s.errs, "\n\x00\n"))
	outs := strings.ToLower(strings.Join(s.outs, "\n\x00\n"))
	inLogs, inErrs, inOuts := s.find(logs), s.find(errs), s.find(outs)
	var out []string
	for secret := range s.secrets {
		masked := mask(secret)
		if i, ok := inLogs[secret]; ok {
			out = append(out, fmt.Sprintf("secret %s in a log line: %s", masked, lineAround(logs, i, secret)))
		}
		if i, ok := inErrs[secret]; ok {
			out = append(out, fmt.Sprintf("secret %s in an error: %s", masked, lineAround(errs, i, secret)))
		}
		if i, ok := inOuts[secret]; ok {
			out = append(out, fmt.Sprintf("secret %s in an output: %s", masked, lineAround(outs, i, secret)))
		}
	}
	sort.Strings(out)
	return out
}

// find returns, for every secret that occurs in text, the offset of its first occurrence. It
// reads text once: each window of minSecretLen bytes is looked up among the secrets'
// prefixes, and only the secrets with that prefix are compared further, so thousands of
// secrets (one signature per payment) cost no more than a few.
func (s *Scanner) find(text string) map[string]int {
	byPrefix := make(map[string][]string)
	for secret := range s.secrets {
		p := secret[:minSecretLen]
		byPrefix[p] = append(byPrefix[p], secret)
	}
	found := make(map[string]int)
	for i := 0; i+minSecretLen <= len(text); i++ {
		for _, secret := range byPrefix[text[i:i+minSecretLen]] {
			if _, seen := found[secret]; !seen && strings.HasPrefix(text[i:], secret) {
				found[secret] = i
			}
		}
	}
	return found
}

// Counts reports how many secrets, log bytes and errors the scanner holds, so a suite can
// check that the scan saw something.
func (s *Scanner) Counts() (secrets, logBytes, errs int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.secrets), s.logs.Len(), len(s.errs)
}

// report prints every finding and returns a failing exit code when there is one, else code.
func (s *Scanner) report(code int) int {
	if findings := s.Findings(); len(findings) > 0 {
		fmt.Fprintln(os.Stderr, "secret scan: secrets reached logs or errors:")
		for _, f := range findings {
			fmt.Fprintln(os.Stderr, "  "+f)
		}
		if code == 0 {
			code = 1
		}
	}
	return code
}

// mask shows the first and last two characters of a secret.
func mask(s string) string {
	if len(s) < 8 {
		return "[…]"
	}
	return s[:2] + "…" + s[len(s)-2:]
}

// lineAround returns up to 60 bytes around a finding at i, with the secret itself masked.
func lineAround(text string, i int, secret string) string {
	start, end := max(i-30, 0), min(i+len(secret)+30, len(text))
	return strings.ReplaceAll(text[start:end], secret, mask(secret))
}

// writerFunc adapts a function to io.Writer.
type writerFunc func([]byte) (int, error)

// Write calls f.
func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
