package reportstore

import (
	"cmp"
	"encoding/json"
	"errors"
	"math/big"
	"strconv"
	"strings"

	"github.com/agentapis/sdk/internal/jsonmember"
	"github.com/agentapis/sdk/x402/usdc"
)

// PriceDecimals is the number of decimals of USDC, the currency of every price of the store:
// one dollar is 1,000,000 atomic units.
const PriceDecimals = 6

// atomicPerDollar is 10^PriceDecimals.
const atomicPerDollar = 1_000_000

// maxExponent bounds the exponent of a price written in exponent form ("1.3e-1"); anything
// larger cannot be a price in int64 atomic units anyway.
const maxExponent = 30

// Price is an amount of US dollars paid in USDC, held exactly as an integer number of atomic
// units (6 decimals: $0.13 is 130000). Arithmetic on prices never goes through floating point.
//
// The zero Price is $0.00. Prices compare with == and order with Cmp.
type Price struct {
	atomic int64
}

// PriceFromAtomic returns the Price of n atomic USDC units (1,000,000 per dollar). A negative
// n is refused.
func PriceFromAtomic(n int64) (Price, error) {
	if n < 0 {
		return Price{}, errors.New("reportstore: price must not be negative")
	}
	return Price{atomic: n}, nil
}

// PriceFromBig returns the Price of n atomic USDC units, as an x402 challenge carries them. A
// nil or negative n, or one beyond int64, is refused.
func PriceFromBig(n *big.Int) (Price, error) {
	switch {
	case n == nil:
		return Price{}, errors.New("reportstore: price is missing")
	case n.Sign() < 0:
		return Price{}, errors.New("reportstore: price must not be negative")
	case !n.IsInt64():
		return Price{}, errors.New("reportstore: price is too large")
	}
	return Price{atomic: n.Int64()}, nil
}

// ParsePrice reads a dollar amount as the store writes it: "0.130000" (the interface
// description's six-decimal form), "$0.13" (the payment flow's form), "0.13", "13" or an
// exponent form such as "1.3e-1". Surrounding spaces and one leading "$" are allowed; the
// rest must be a finite number in JSON's grammar, the SDK's one rule for numbers sent as
// text. The result is exact: more than six decimals are accepted only when the extra digits
// are zeros ("0.1300000"), never rounded. Signs, empty strings, separators such as "1,000",
// NaN, infinities and values beyond int64 atomic units are refused.
func ParsePrice(s string) (Price, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "$")
	if _, err := jsonmember.ParseNumber(s); err != nil {
		return Price{}, errors.New("reportstore: invalid price: " + err.Error())
	}
	n, err := parseAtomic(s)
	if err != nil {
		return Price{}, errors.New("reportstore: invalid price: " + err.Error())
	}
	return Price{atomic: n}, nil
}

// parseAtomic converts a plain decimal number (digits, an optional fraction, an optional
// exponent) into atomic units, exactly. ParsePrice has checked s against JSON's grammar.
func parseAtomic(s string) (int64, error) {
	mant, expPart, hasExp := strings.Cut(strings.ToLower(s), "e")
	exp := 0
	if hasExp {
		e, err := strconv.Atoi(expPart)
		if err != nil || e > maxExponent || e < -maxExponent {
			return 0, errors.New("bad exponent")
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, errors.New("not a plain decimal number")
		}
	}
	// value = digits * 10^(exp - len(frac)); in atomic units one more factor of 10^6.
	shift := exp - len(frac) + PriceDecimals
	digits = strings.TrimLeft(digits, "0")
	if shift < 0 {
		drop := -shift
		if drop >= len(digits) {
			if strings.Trim(digits, "0") != "" {
				return 0, errors.New("more than 6 decimals")
			}
			return 0, nil
		}
		if strings.Trim(digits[len(digits)-drop:], "0") != "" {
			return 0, errors.New("more than 6 decimals")
		}
		digits, shift = digits[:len(digits)-drop], 0
	}
	if digits == "" {
		return 0, nil
	}
	if len(digits)+shift > 19 {
		return 0, errors.New("too large")
	}
	n, err := strconv.ParseInt(digits+strings.Repeat("0", shift), 10, 64)
	if err != nil {
		return 0, errors.New("too large")
	}
	return n, nil
}

// Atomic returns the price in atomic USDC units (1,000,000 per dollar).
func (p Price) Atomic() int64 { return p.atomic }

// Big returns the price in atomic USDC units as a *big.Int, the form of x402.Policy's caps.
func (p Price) Big() *big.Int { return big.NewInt(p.atomic) }

// Cmp compares p and q and returns -1, 0 or +1.
func (p Price) Cmp(q Price) int { return cmp.Compare(p.atomic, q.atomic) }

// IsZero reports whether p is $0.
func (p Price) IsZero() bool { return p.atomic == 0 }

// String returns the price in dollars as every message of the SDK shows USDC
// (usdc.Format): "$0.13", "$1.00", "$0.095", "$0.130001".
func (p Price) String() string { return usdc.Format(p.Big()) }

// Decimal returns the price as a plain decimal with all six decimals, the form of the store's
// interface description: "0.130000".
func (p Price) Decimal() string {
	return strconv.FormatInt(p.atomic/atomicPerDollar, 10) + "." + p.fraction()
}

// fraction returns the six decimal digits of p.
func (p Price) fraction() string {
	f := strconv.FormatInt(p.atomic%atomicPerDollar, 10)
	return strings.Repeat("0", PriceDecimals-len(f)) + f
}

// MarshalJSON writes the price as a JSON string in its Decimal form ("0.130000").
func (p Price) MarshalJSON() ([]byte, error) {
	return json.Marshal(p.Decimal())
}

// UnmarshalJSON reads a price from a JSON string in any form ParsePrice accepts, or from a
// JSON number, whose text is read exactly (never through a float64). JSON null leaves p as
// it is.
func (p *Price) UnmarshalJSON(b []byte) error {
	if jsonmember.IsNull(b) {
		return nil
	}
	text, ok := jsonmember.ScalarText(b)
	if !ok {
		return errors.New("reportstore: a price must be a JSON string or number")
	}
	q, err := ParsePrice(text)
	if err != nil {
		return err
	}
	*p = q
	return nil
}
