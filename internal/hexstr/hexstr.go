// Package hexstr checks hexadecimal text the SDK reads or is given: EVM addresses, API keys
// of hexadecimal digits, nonces. One definition, so that every package accepts the same.
package hexstr

// IsHex reports whether s is a non-empty run of hexadecimal digits, in any letter case.
func IsHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if _, ok := Digit(s[i]); !ok {
			return false
		}
	}
	return true
}

// Has0x reports whether s starts with 0x or 0X.
func Has0x(s string) bool {
	return len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
}

// IsAddress reports whether s is an EVM address written as 0x and 40 hexadecimal digits, in
// any letter case (the EIP-55 checksum case is not checked, as the x402 reference
// implementations do not check it either).
func IsAddress(s string) bool {
	return len(s) == 42 && Has0x(s) && IsHex(s[2:])
}

// Digit returns the value of the hexadecimal digit c.
func Digit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
