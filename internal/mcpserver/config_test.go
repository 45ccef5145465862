package mcpserver

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPolicyFileAndFlags(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"max_total":"10.00","max_per_payment":"$0.50",
		"window":{"length":"24h","max_amount":"2.00","max_payments":20},
		"payee_limits":{"0xabc":"1.00"},"tool_caps":{"x402_fetch":"0.10"},"allowed_hosts":["api.example.com"],"approve_above":"0.25"}`), 0o600))
	p, err := LoadPolicy(path)
	require.NoError(t, err)
	p = p.Merge(Policy{MaxTotal: "20.00"})
	l, err := DefaultPolicy.Merge(p).parse()
	require.NoError(t, err)
	assert.Equal(t, "20000000", l.total.String(), "a flag overrides the file")
	assert.Equal(t, "500000", l.perPayment.String())
	assert.Equal(t, "2000000", l.windowAmount.String())
	assert.Equal(t, 20, l.windowPayments)
	assert.Equal(t, "100000", l.toolCaps["x402_fetch"].String())
	assert.Equal(t, "250000", l.approveAbove.String())
	assert.Equal(t, []string{"api.example.com"}, l.allowedHosts)

	require.NoError(t, os.WriteFile(path, []byte(`{"max_totl":"10.00"}`), 0o600))
	_, err = LoadPolicy(path)
	assert.ErrorContains(t, err, "max_totl", "a misspelt limit is refused")

	_, err = Policy{MaxPerPayment: "1", MaxTotal: "-1", Window: &WindowPolicy{Length: "soon"}, ToolCaps: map[string]string{"x": "lots"}}.parse()
	for _, want := range []string{"max_total", "window.length", "tool_caps.x"} {
		assert.ErrorContains(t, err, want)
	}
}
