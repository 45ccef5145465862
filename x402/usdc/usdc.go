// Package usdc is the one representation of money in the SDK: amounts of USDC as big
// integers of atomic units (6 decimals: 1,000,000 units are one dollar), never floats, with
// the one formatter every message uses ("$5.13") and the one parser of dollar amounts.
//
// Every payment rail of the SDK pays in USDC (on EVM chains and on Solana alike, with 6
// decimals), and every limit of a budget is in the same unit, so an amount from one rail and
// a limit from another add up exactly.
package usdc

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Decimals is the number of decimals of USDC on every network the SDK pays on: an amount of
// 1,000,000 atomic units is one dollar.
const Decimals = 6

// unit is 10^Decimals, one dollar in atomic units.
var unit = big.NewInt(1_000_000)

// Format writes an amount of atomic units as dollars with their decimals, the way every
// message of the SDK shows money: "$5.13" for 5130000, "$0.000001" for 1, "$12.00" for
// 12000000; "-$0.50" for a negative amount, "(none)" for nil. At least two decimals are
// shown, and every non-zero one.
func Format(amount *big.Int) string {
	if amount == nil {
		return "(none)"
	}
	sign := ""
	abs := new(big.Int).Set(amount)
	if abs.Sign() < 0 {
		sign, abs = "-", abs.Neg(abs)
	}
	whole, frac := new(big.Int).QuoRem(abs, unit, new(big.Int))
	decimals := strings.TrimRight(fmt.Sprintf("%0*d", Decimals, frac), "0")
	decimals += strings.Repeat("0", max(2-len(decimals), 0))
	return sign + "$" + whole.String() + "." + decimals
}

// Dollars returns n whole dollars in atomic units, for limits written in code:
// usdc.Dollars(10) is 10,000,000.
func Dollars(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), unit) }

// Cents returns n cents in atomic units: usdc.Cents(25) is 250,000.
func Cents(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(10_000)) }

// maxExponent bounds the exponent of an amount written in exponent form ("1.3e-1"), so that a
// hostile "1e999999999" costs nothing.
const maxExponent = 60

// maxDigits bounds the digits of an amount: 2^256 has 78, and no token holds more.
const maxDigits = 78

// Parse reads a dollar amount, exactly, into atomic units: "$5.13", "5.13", "0.130000",
// "13", "1.3e-1" (one leading "$" and surrounding spaces allowed; the rest a non-negative
// number in JSON's grammar). More than six decimals are accepted only when the extra digits
// are zeros ("0.1300000"), never rounded. A sign, an empty string, separators such as
// "1,000", NaN, infinities, hexadecimal and amounts of more than 78 digits are refused.
func Parse(s string) (*big.Int, error) {
	text := strings.TrimPrefix(strings.TrimSpace(s), "$")
	n, err := parse(text)
	if err != nil {
		return nil, fmt.Errorf("usdc: %q is not a dollar amount: %w", s, err)
	}
	return n, nil
}

// parse converts a plain decimal number (digits, an optional fraction, an optional exponent)
// into atomic units.
func parse(s string) (*big.Int, error) {
	mant, expPart, hasExp := strings.Cut(strings.ToLower(s), "e")
	exp := 0
	if hasExp {
		expPart = strings.TrimPrefix(expPart, "+")
		e, err := strconv.Atoi(expPart)
		if err != nil || e > maxExponent || e < -maxExponent || expPart == "" || expPart[0] == '+' {
			return nil, errors.New("bad exponent")
		}
		exp = e
	}
	intPart, frac, hasPoint := strings.Cut(mant, ".")
	switch {
	case intPart == "":
		return nil, errors.New("no digits before the point")
	case hasPoint && frac == "":
		return nil, errors.New("no digits after the point")
	case len(intPart) > 1 && intPart[0] == '0':
		return nil, errors.New("a leading zero")
	}
	digits := intPart + frac
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return nil, errors.New("not a plain decimal number")
		}
	}
	// value = digits × 10^(exp − len(frac)); in atomic units one more factor of 10^Decimals.
	shift := exp - len(frac) + Decimals
	digits = strings.TrimLeft(digits, "0")
	if shift < 0 {
		drop := -shift
		if drop >= len(digits) {
			if strings.Trim(digits, "0") != "" {
				return nil, errors.New("more than 6 decimals")
			}
			return new(big.Int), nil
		}
		if strings.Trim(digits[len(digits)-drop:], "0") != "" {
			return nil, errors.New("more than 6 decimals")
		}
		digits, shift = digits[:len(digits)-drop], 0
	}
	if digits == "" {
		return new(big.Int), nil
	}
	if len(digits)+shift > maxDigits {
		return nil, errors.New("too large")
	}
	n, _ := new(big.Int).SetString(digits+strings.Repeat("0", shift), 10) // digits only
	return n, nil
}
