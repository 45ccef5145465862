package jsonmember

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNumberReadsFiniteNumbersAndNumericStrings(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]float64{
		`12`: 12, `-0.5`: -0.5, `1e3`: 1000, `"2.75"`: 2.75, `" 4 "`: 4, `"-1E-2"`: -0.01, `0`: 0,
	} {
		var n Number
		require.NoError(t, json.Unmarshal([]byte(in), &n), in)
		assert.Equal(t, want, float64(n), in)
	}
}

func TestNumberRefusesWhatIsNotAFiniteDecimal(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`"NaN"`, `"nan"`, `"Infinity"`, `"-Inf"`, `"inf"`, `"+1"`, `"0x10"`, `"1_000"`, `"1e999"`, `1e999`,
		`".5"`, `"5."`, `"01"`, `""`, `"abc"`, `true`, `null`, `{}`, `[]`,
	} {
		var n Number
		assert.Error(t, json.Unmarshal([]byte(in), &n), in)
	}
	var o struct {
		Price Optional[Number] `json:"price"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"price":"Infinity"}`), &o))
	assert.False(t, o.Price.IsSet(), "an optional value that is not a finite number is absent")
}

// FuzzParseNumber checks that ParseNumber never returns a value that is not finite, and
// accepts exactly the finite decimals of JSON's grammar.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"1", "-0.5e3", "NaN", "Inf", "1e400", "0x1p3", "1_0", " 7 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseNumber(s)
		if err != nil {
			return
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("ParseNumber(%q) = %v", s, v)
		}
		var viaJSON float64
		if jerr := json.Unmarshal([]byte(s), &viaJSON); jerr == nil && viaJSON != v {
			t.Fatalf("ParseNumber(%q) = %v, encoding/json reads %v", s, v, viaJSON)
		}
	})
}
