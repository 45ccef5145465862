package evm

import (
	"encoding/hex"
	"errors"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agentapis/sdk/internal/hexstr"
)

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

// CanonicalAddress checks a 0x-prefixed 20-byte hex address and returns it in lower case,
// the form in which two EVM addresses compare: letter case carries no meaning but the EIP-55
// checksum.
func CanonicalAddress(s string) (string, error) {
	if !hexstr.IsAddress(s) {
		return "", errNotAddress
	}
	return strings.ToLower(s), nil
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
