package main

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/chartdiff/chartdifftest"
)

func TestRunOffline(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, settings{chartID: chartdifftest.ChartNotAnalyzed}))
	text := out.String()
	for _, want := range []string{
		"offline: using the in-memory fake",
		"created key key_",
		"x-phm-key arrives",
		"chart 4 \"Golden Echo 4\": ref_const 15.9, notes 316, cached false",
		"hardest of 200 cached charts:",
		"requests left this hour: 998",
		"the old key is refused: invalid_api_key",
	} {
		assert.Contains(t, text, want)
	}
	assert.Regexp(t, regexp.MustCompile(`rotated: new key (key_\w+) \(sk-…\w{4}\), revoked key_\w+\nthe old key is refused: invalid_api_key\nrevoked key key_\w+\n$`), text)
	assert.NotRegexp(t, `sk-[0-9a-f]{32}`, text, "no plaintext key is printed")
}
