package reportstore

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/usdc"
)

func TestParsePrice(t *testing.T) {
	t.Parallel()
	good := map[string]int64{
		"0.130000":             130000,
		"$0.13":                130000,
		"0.13":                 130000,
		" $0.13 ":              130000,
		"13":                   13000000,
		"0":                    0,
		"0.000001":             1,
		"0.1300000":            130000, // extra zero decimals are exact
		"1.3e-1":               130000,
		"13E-2":                130000,
		"1e2":                  100000000,
		"0.95":                 950000,
		"9223372036854.775807": 9223372036854775807,
	}
	for in, want := range good {
		p, err := ParsePrice(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, p.Atomic(), in)
	}
	for _, in := range []string{
		"", "$", ".", "-0.13", "+0.13", "0.1234567", "1e-7", "0x10", "1,000", "1 000",
		"abc", "$$1", "0.13 USD", "NaN", "Inf", "1e99", "9223372036854.775808", "1/3",
		"1.", ".5", "01", "$ 1", // not in JSON's grammar
	} {
		_, err := ParsePrice(in)
		assert.Error(t, err, in)
	}
}

func TestPriceFormatting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		atomic       int64
		str, decimal string
	}{
		{130000, "$0.13", "0.130000"},
		{1000000, "$1.00", "1.000000"},
		{95000, "$0.095", "0.095000"},
		{130001, "$0.130001", "0.130001"},
		{0, "$0.00", "0.000000"},
		{12345678901, "$12345.678901", "12345.678901"},
	}
	for _, tc := range tests {
		p, err := PriceFromAtomic(tc.atomic)
		require.NoError(t, err)
		assert.Equal(t, tc.str, p.String())
		assert.Equal(t, usdc.Format(p.Big()), p.String(), "the SDK's one way to show USDC")
		assert.Equal(t, tc.decimal, p.Decimal())
		back, err := ParsePrice(p.String())
		require.NoError(t, err)
		assert.Equal(t, p, back, "String round-trips")
		back, err = ParsePrice(p.Decimal())
		require.NoError(t, err)
		assert.Equal(t, p, back, "Decimal round-trips")
	}
}

func TestPriceConstructorsAndComparison(t *testing.T) {
	t.Parallel()
	_, err := PriceFromAtomic(-1)
	require.Error(t, err)
	_, err = PriceFromBig(nil)
	require.Error(t, err)
	_, err = PriceFromBig(big.NewInt(-5))
	require.Error(t, err)
	_, err = PriceFromBig(new(big.Int).Lsh(big.NewInt(1), 70))
	require.Error(t, err)

	p, err := PriceFromBig(big.NewInt(280000))
	require.NoError(t, err)
	q, err := ParsePrice("$0.13")
	require.NoError(t, err)
	assert.Equal(t, 1, p.Cmp(q))
	assert.Equal(t, -1, q.Cmp(p))
	assert.Equal(t, 0, p.Cmp(p))
	assert.Equal(t, "280000", p.Big().String())
	assert.True(t, Price{}.IsZero())
	assert.False(t, p.IsZero())
}

func TestPriceJSON(t *testing.T) {
	t.Parallel()
	var v struct {
		A, B, C, D Price
		E          *Price
	}
	require.NoError(t, json.Unmarshal([]byte(`{"A":"0.130000","B":0.13,"C":"$0.28","D":1.3e-1,"E":null}`), &v))
	assert.Equal(t, int64(130000), v.A.Atomic())
	assert.Equal(t, int64(130000), v.B.Atomic())
	assert.Equal(t, int64(280000), v.C.Atomic())
	assert.Equal(t, int64(130000), v.D.Atomic())
	assert.Nil(t, v.E)

	// JSON numbers are read from their text, never rounded: a float artefact is refused.
	var sum Price
	require.Error(t, json.Unmarshal([]byte(`0.30000000000000004`), &sum))
	require.NoError(t, json.Unmarshal([]byte(`0.300000000000000000`), &sum))
	assert.Equal(t, int64(300000), sum.Atomic())
	for _, bad := range []string{`0.1234567`, `"abc"`, `true`, `{}`, `[]`, `-1`} {
		var p Price
		assert.Error(t, json.Unmarshal([]byte(bad), &p), bad)
	}

	out, err := json.Marshal(v.C)
	require.NoError(t, err)
	assert.JSONEq(t, `"0.280000"`, string(out))
}
