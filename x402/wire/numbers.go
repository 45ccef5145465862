package wire

import (
	"errors"
	"math/big"
	"strings"
)

// maxUint256Digits is the number of decimal digits of 2^256-1; longer strings (leading zeros
// included) are refused before any arithmetic.
const maxUint256Digits = 78

// maxUint256 is the largest value a uint256 holds.
var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

var (
	errNotDecimal = errors.New("must be a non-negative decimal integer string")
	errTooLarge   = errors.New("does not fit in a uint256 (more than 78 digits or above 2^256-1)")
)

// ParseUint256 parses an atomic-unit amount or a timestamp as the wire carries it: a
// non-empty string of ASCII digits that fits in a uint256. Signs, fractions, exponents,
// spaces and hex are refused.
func ParseUint256(s string) (*big.Int, error) {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r < '0' || r > '9' }) {
		return nil, errNotDecimal
	}
	if len(s) > maxUint256Digits {
		return nil, errTooLarge
	}
	n, _ := new(big.Int).SetString(s, 10) // digits only: it cannot fail
	if n.Cmp(maxUint256) > 0 {
		return nil, errTooLarge
	}
	return n, nil
}

// FitsUint256 reports whether n is non-nil, non-negative and at most 2^256-1.
func FitsUint256(n *big.Int) bool {
	return n != nil && n.Sign() >= 0 && n.BitLen() <= 256
}
