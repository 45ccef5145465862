package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testKey is a well-known public test key (the second Hardhat development account).
const testKey = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"

func TestRunOffline(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out, settings{key: testKey, reportID: "macro-gdp", cap: "0.50", rows: 3}))
	text := out.String()
	for _, want := range []string{
		"offline: using the in-memory fake store",
		"quote for macro-gdp: $0.13 to 0x7E57000000000000000000000000000000005707 on eip155:8453 (cap $0.50)",
		"bought macro-gdp: ",
		"of text/csv, 220 rows\n  US 2015 NY.GDP.MKTP.CD ",
		"receipt: success true, transaction 0x",
		"payer 0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
		"total spent: $0.13\n",
	} {
		assert.Contains(t, text, want)
	}
	assert.Regexp(t, regexp.MustCompile(`(?m)^  US 2017 NY\.GDP\.MKTP\.CD [0-9]+\.?[0-9]*$`), text)
	assert.NotContains(t, strings.ToLower(text), testKey, "the key is never printed")
}

func TestRunRefusesAReportOverTheCap(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	err := run(t.Context(), &out, settings{reportID: "macro-fdi", cap: "0.20", rows: 3})
	require.ErrorContains(t, err, "amount above the per-payment cap")
	assert.Contains(t, out.String(), "quote for macro-fdi: $0.28")
	assert.NotContains(t, out.String(), "bought")
}
