package wire_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// shopAddress receives the payments in these tests.
const shopAddress = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

// encodingJSON returns the compact JSON encoding/json writes for v without HTML escaping.
func encodingJSON(t testing.TB, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return strings.TrimSuffix(buf.String(), "\n")
}
