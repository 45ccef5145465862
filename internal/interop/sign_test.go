package interop_test

import (
	"crypto/rand"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/wire"
)

// transferTypes are the EIP-712 types of an EIP-3009 TransferWithAuthorization.
var transferTypes = apitypes.Types{
	"EIP712Domain": {
		{Name: "name", Type: "string"},
		{Name: "version", Type: "string"},
		{Name: "chainId", Type: "uint256"},
		{Name: "verifyingContract", Type: "address"},
	},
	"TransferWithAuthorization": {
		{Name: "from", Type: "address"},
		{Name: "to", Type: "address"},
		{Name: "value", Type: "uint256"},
		{Name: "validAfter", Type: "uint256"},
		{Name: "validBefore", Type: "uint256"},
		{Name: "nonce", Type: "bytes32"},
	},
}

// tokenDomain returns the EIP-712 domain an accepts entry implies: {extra.name,
// extra.version, the network's chain id, the asset}.
func tokenDomain(t *testing.T, req wire.PaymentRequirements) apitypes.TypedDataDomain {
	t.Helper()
	name, version, ok := evm.TokenDomain(&req)
	require.True(t, ok, "the accepted entry has no EIP-712 name and version")
	chainID, ok := new(big.Int).SetString(strings.TrimPrefix(req.Network, "eip155:"), 10)
	require.True(t, ok, "network %q is not an EVM chain", req.Network)
	return apitypes.TypedDataDomain{
		Name:              name,
		Version:           version,
		ChainId:           (*math.HexOrDecimal256)(chainID),
		VerifyingContract: req.Asset,
	}
}

// typedDataDigest returns the EIP-712 digest of an EIP-3009
// TransferWithAuthorization under the domain of an accepts entry, computed
// with go-ethereum's generic typed-data encoder rather than the x402 package's
// own, so that forged payments do not depend on the code under test.
func typedDataDigest(t *testing.T, req wire.PaymentRequirements, a evm.Authorization) [32]byte {
	t.Helper()
	typed := apitypes.TypedData{
		Types:       transferTypes,
		PrimaryType: "TransferWithAuthorization",
		Domain:      tokenDomain(t, req),
		Message: apitypes.TypedDataMessage{
			"from":        a.From,
			"to":          a.To,
			"value":       a.Value.String(),
			"validAfter":  a.ValidAfter.String(),
			"validBefore": a.ValidBefore.String(),
			"nonce":       hexutil.Encode(a.Nonce[:]),
		},
	}
	hash, _, err := apitypes.TypedDataAndHash(typed)
	require.NoError(t, err)
	return [32]byte(hash)
}

// domainSeparator returns the EIP-712 domain separator of the domain an accepts
// entry implies, computed as typedDataDigest computes it.
func domainSeparator(t *testing.T, req wire.PaymentRequirements) [32]byte {
	t.Helper()
	typed := apitypes.TypedData{Types: transferTypes, Domain: tokenDomain(t, req)}
	hash, err := typed.HashStruct("EIP712Domain", typed.Domain.Map())
	require.NoError(t, err)
	return [32]byte(hash)
}

// randomNonce returns a fresh EIP-3009 nonce.
func randomNonce(t *testing.T) [32]byte {
	t.Helper()
	var n [32]byte
	_, err := rand.Read(n[:])
	require.NoError(t, err)
	return n
}
