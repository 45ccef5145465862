package x402

import (
	"encoding/hex"
	"errors"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentapis/sdk/internal/hexstr"
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

// parseUint256 parses an atomic-unit amount or timestamp as the wire carries it: a non-empty
// string of ASCII digits that fits in a uint256. Signs, fractions, exponents, spaces and hex
// are refused.
func parseUint256(s string) (*big.Int, error) {
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

// fitsUint256 reports whether n is non-nil, non-negative and at most 2^256-1.
func fitsUint256(n *big.Int) bool {
	return n != nil && n.Sign() >= 0 && n.BitLen() <= 256
}

// errNotAddress is the reason given for a malformed address.
var errNotAddress = errors.New("must be a 0x-prefixed 20-byte hex address")

// parseAddress decodes a 0x-prefixed 20-byte hex address without allocating; the EIP-55
// letter case is not checked, as the reference implementations do not check it either.
func parseAddress(s string) (common.Address, error) {
	var a common.Address
	if len(s) != 42 || !hexstr.Has0x(s) {
		return a, errNotAddress
	}
	for i := range a {
		hi, ok1 := hexstr.Digit(s[2+2*i])
		lo, ok2 := hexstr.Digit(s[3+2*i])
		if !ok1 || !ok2 {
			return common.Address{}, errNotAddress
		}
		a[i] = hi<<4 | lo
	}
	return a, nil
}

// sameAddress reports whether a and b are the same hex address, ignoring letter case.
func sameAddress(a, b string) bool {
	return hexstr.IsAddress(a) && hexstr.IsAddress(b) && strings.EqualFold(a, b)
}

// decodeHex32 decodes a 0x-prefixed 32-byte hex value such as an EIP-3009 nonce.
func decodeHex32(s string) ([32]byte, error) {
	var out [32]byte
	if len(s) != 66 || !hexstr.Has0x(s) || !hexstr.IsHex(s[2:]) {
		return out, errors.New("must be a 0x-prefixed 32-byte hex string")
	}
	_, _ = hex.Decode(out[:], []byte(s[2:]))
	return out, nil
}

// appendHex appends 0x and the lower-case hex of b to dst.
func appendHex(dst, b []byte) []byte {
	dst = append(dst, '0', 'x')
	return hex.AppendEncode(dst, b)
}
