package usdc_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/usdc"
)

func TestFormatShowsDollarsWithTheirDecimals(t *testing.T) {
	t.Parallel()
	big1e30, _ := new(big.Int).SetString("1000000000000000000000000000000", 10)
	for in, want := range map[*big.Int]string{
		big.NewInt(5_130_000):  "$5.13",
		big.NewInt(5_000_000):  "$5.00",
		big.NewInt(870_000):    "$0.87",
		big.NewInt(130_500):    "$0.1305",
		big.NewInt(1):          "$0.000001",
		big.NewInt(0):          "$0.00",
		big.NewInt(-500_000):   "-$0.50",
		big.NewInt(12_345_678): "$12.345678",
		big1e30:                "$1000000000000000000000000.00",
		nil:                    "(none)",
	} {
		assert.Equal(t, want, usdc.Format(in), "%v", in)
	}
}

func TestParseReadsDollarAmountsExactly(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{
		"$5.13": 5_130_000, "5.13": 5_130_000, "0.130000": 130_000, "13": 13_000_000, "1.3e-1": 130_000,
		" $0.000001 ": 1, "0.1300000": 130_000, "0": 0, "0.0": 0, "1E2": 100_000_000, "2.5e+1": 25_000_000,
		"0.0000001e1": 1,
	} {
		got, err := usdc.Parse(in)
		require.NoError(t, err, in)
		assert.Equal(t, big.NewInt(want), got, in)
	}
	for _, in := range []string{"", "$", "-1", "+1", "1,000", "0.0000001", "NaN", "Inf", "0x10", "1.", ".5", "01",
		"1e999999", "1e", "$$1", "1e61", "１"} {
		_, err := usdc.Parse(in)
		assert.Error(t, err, "%q", in)
	}
	_, err := usdc.Parse("1" + strings.Repeat("0", 73)) // 79 digits in atomic units
	assert.ErrorContains(t, err, "too large")
}

func TestParseAndFormatRoundTrip(t *testing.T) {
	t.Parallel()
	for _, n := range []int64{0, 1, 99, 130_000, 5_130_000, 1_000_000_000} {
		got, err := usdc.Parse(usdc.Format(big.NewInt(n)))
		require.NoError(t, err)
		assert.Equal(t, big.NewInt(n), got)
	}
	assert.Equal(t, big.NewInt(10_000_000), usdc.Dollars(10))
	assert.Equal(t, big.NewInt(250_000), usdc.Cents(25))
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"$5.13", "0.130000", "1.3e-1", "1e61", "-1", "0.0000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := usdc.Parse(s)
		if err != nil {
			return
		}
		if n.Sign() < 0 {
			t.Fatalf("Parse(%q) = %v, negative", s, n)
		}
		back, err := usdc.Parse(usdc.Format(n))
		if err != nil || back.Cmp(n) != 0 {
			t.Fatalf("Parse(Format(%v)) = %v, %v", n, back, err)
		}
	})
}
