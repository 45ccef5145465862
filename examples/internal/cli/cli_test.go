package cli

import (
	"bytes"
	"fmt"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/wire"
)

// parse parses args with a program that has one flag, -n, and reads one variable.
func parse(args ...string) (p *Program, n *int, code int, done bool, stdout, stderr string) {
	p = New("demo", "Does a demo.", Var{Name: "DEMO_URL", Use: "the demo service"}, Var{Name: EnvEVMPrivateKey, Use: "the paying wallet"})
	n = p.Flags.Int("n", 3, "how many")
	var out, errOut bytes.Buffer
	code, done = p.Parse(args, &out, &errOut)
	return p, n, code, done, out.String(), errOut.String()
}

func TestParseReadsTheFlags(t *testing.T) {
	t.Parallel()
	_, n, code, done, out, errOut := parse("-n", "7")
	assert.False(t, done)
	assert.Equal(t, ExitOK, code)
	assert.Equal(t, 7, *n)
	assert.Empty(t, out)
	assert.Empty(t, errOut)
}

func TestHelpPrintsFlagsAndEnvironmentAndStops(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"-h", "-help", "--help"} {
		_, _, code, done, out, errOut := parse("-n", "1", arg)
		assert.True(t, done, arg)
		assert.Equal(t, ExitOK, code, arg)
		assert.Empty(t, errOut)
		assert.Equal(t, `Usage: go run ./examples/demo [flags]

Does a demo.

Flags:
  -n int
    	how many (default 3)

Environment:
  DEMO_URL         the demo service
  EVM_PRIVATE_KEY  the paying wallet
`, out)
	}
}

func TestHelpSaysWhenNoVariableIsRead(t *testing.T) {
	t.Parallel()
	p := New("quiet", "Reads nothing.")
	var out bytes.Buffer
	code, done := p.Parse([]string{"-h"}, &out, &bytes.Buffer{})
	assert.True(t, done)
	assert.Equal(t, ExitOK, code)
	assert.Contains(t, out.String(), "\nEnvironment: none read.\n")
}

func TestParseRefusesBadCommandLines(t *testing.T) {
	t.Parallel()
	for args, want := range map[string][]string{
		"flag provided but not defined: -x":          {"-x"},
		`invalid value "many" for flag -n`:           {"-n", "many"},
		`unexpected argument "more": every setting`:  {"-n", "2", "more"},
		`unexpected argument "-n": every setting is`: {"--", "-n"},
	} {
		_, _, code, done, out, errOut := parse(want...)
		assert.True(t, done, args)
		assert.Equal(t, ExitRefused, code, args)
		assert.Empty(t, out)
		assert.Contains(t, errOut, "demo: "+args)
		assert.Contains(t, errOut, "\nRun go run ./examples/demo -h for its flags and environment variables.\n")
	}
}

func TestExit(t *testing.T) {
	t.Parallel()
	p := New("demo", "Does a demo.")
	var errOut bytes.Buffer
	assert.Equal(t, ExitOK, p.Exit(&errOut, nil))
	assert.Empty(t, errOut.String())
	assert.Equal(t, ExitFailed, p.Exit(&errOut, fmt.Errorf("buying: %w", &x402.PolicyError{
		Rule: x402.ErrAmountOverCap, Requirements: wire.PaymentRequirements{Amount: big.NewInt(280_000)}, Limit: big.NewInt(200_000),
	})))
	assert.Equal(t, "demo: buying: x402: "+x402.ErrAmountOverCap.Error()+": amount $0.28, limit $0.20\n", errOut.String())
}

func TestParseCap(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]int64{"0.50": 500_000, "$6": 6_000_000, " 1.000001 ": 1_000_001, "0.000001": 1} {
		got, err := ParseCap("cap", text)
		require.NoError(t, err, text)
		assert.Equal(t, big.NewInt(want), got, text)
	}
	for _, text := range []string{"0", "0.00", "-1", "", "a lot", "0.0000001", "NaN", "1,5"} {
		_, err := ParseCap("cap", text)
		assert.EqualError(t, err, fmt.Sprintf("-cap %q: the cap must be a positive dollar amount with at most 6 decimals, such as 0.50", text))
	}
}

func TestLive(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }

	live, err := Live(env(nil), "DEMO_URL", "DEMO_TOKEN")
	assert.NoError(t, err)
	assert.False(t, live, "no URL: the fake")

	live, err = Live(env(map[string]string{"DEMO_TOKEN": "t"}), "DEMO_URL", "DEMO_TOKEN")
	assert.NoError(t, err)
	assert.False(t, live, "a credential alone changes nothing")

	live, err = Live(env(map[string]string{"DEMO_URL": "https://demo.example", "DEMO_TOKEN": "t"}), "DEMO_URL", "DEMO_TOKEN")
	assert.NoError(t, err)
	assert.True(t, live)

	live, err = Live(env(map[string]string{"DEMO_URL": "https://demo.example"}), "DEMO_URL")
	assert.NoError(t, err)
	assert.True(t, live, "a service that needs no credential")

	_, err = Live(env(map[string]string{"DEMO_URL": "https://demo.example", "DEMO_A": "a"}), "DEMO_URL", "DEMO_A", "DEMO_B", "DEMO_C")
	assert.EqualError(t, err, "DEMO_URL is set without DEMO_B and DEMO_C: set that too to use the service, or unset DEMO_URL to use the in-memory fake")
}
