package svm

import (
	"errors"

	"github.com/gagliardetto/solana-go"
)

// errNotAddress is the reason given for a malformed Solana address.
var errNotAddress = errors.New("must be a base58 Solana address of 32 bytes")

// ParseAddress reads a Solana address: base58 text of 32 bytes, case-sensitive. It is the
// one check every part of the package makes of an address it is given.
func ParseAddress(s string) (solana.PublicKey, error) {
	if len(s) < 32 || len(s) > 44 {
		return solana.PublicKey{}, errNotAddress
	}
	pk, err := solana.PublicKeyFromBase58(s)
	if err != nil {
		return solana.PublicKey{}, errNotAddress
	}
	return pk, nil
}

// CanonicalAddress checks a Solana address and returns it as it is: base58 is
// case-sensitive, so two addresses are the same account only when they are the same text.
func CanonicalAddress(s string) (string, error) {
	pk, err := ParseAddress(s)
	if err != nil {
		return "", err
	}
	if pk.String() != s {
		return "", errNotAddress // a non-canonical spelling, such as leading "1"s beyond its bytes
	}
	return s, nil
}
