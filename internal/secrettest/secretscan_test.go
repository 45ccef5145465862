package secrettest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// leaky is an error whose %#v shows a field Error does not.
type leaky struct{ token string }

func (l *leaky) Error() string { return "request failed" }

func TestFindsSecretsInLogsAndEveryErrorRenderingWhateverTheCase(t *testing.T) {
	t.Parallel()
	s := New("sk-0123456789abcdef0123456789abcdef")
	s.Add("short", "Tok-AbCdEfGh12345678")
	s.Logger().Debug("http request", "path", "/x", "echo", "SK-0123456789ABCDEF0123456789ABCDEF")
	s.Record(errors.New("all clear"))
	s.Record(&leaky{token: "tok-abcdefgh12345678"})
	findings := s.Findings()
	require.Len(t, findings, 2, "%v", findings)
	assert.Contains(t, findings[0], "in a log line")
	assert.Contains(t, findings[1], "in an error")
	for _, f := range findings {
		assert.NotContains(t, strings.ToLower(f), "0123456789abcdef0123", "a finding never quotes the secret")
		assert.NotContains(t, strings.ToLower(f), "abcdefgh1234")
	}
	n, logBytes, errs := s.Counts()
	assert.Equal(t, 2, n, "values shorter than 8 bytes are not secrets")
	assert.Positive(t, logBytes)
	assert.Equal(t, 2, errs)
}

func TestCleanScanHasNoFindings(t *testing.T) {
	t.Parallel()
	s := New("api-key-that-never-leaks")
	s.Logger().Info("http request", "status", 200)
	s.Record(fmt.Errorf("wrapped: %w", errors.New("status 401")))
	assert.Empty(t, s.Findings())
}

func TestFindsSecretsInOutputs(t *testing.T) {
	t.Parallel()
	s := New("sk-0123456789abcdef0123456789abcdef")
	s.RecordOutput(`{"key":"sk-…cdef"}`)
	require.Empty(t, s.Findings(), "a masked key is no finding")
	s.RecordOutput(`{"key":"SK-0123456789ABCDEF0123456789ABCDEF"}`)
	findings := s.Findings()
	require.Len(t, findings, 1, "%v", findings)
	assert.Contains(t, findings[0], "in an output")
	assert.NotContains(t, strings.ToLower(findings[0]), "0123456789abcdef0123", "a finding never quotes the secret")
}
