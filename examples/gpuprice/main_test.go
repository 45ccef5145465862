package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunOffline(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out))
	text := out.String()
	assert.Contains(t, text, "cheapest H100: 2.84 USD/h on lambda")
	assert.Contains(t, text, "futures index GCFI")
	assert.Contains(t, text, "bought a pro key gpk_…")
	assert.Contains(t, text, "budget spent $5.00 of $10.00")
	assert.Equal(t, 7, strings.Count(text, " USD/h\n"), "seven history lines")
}
