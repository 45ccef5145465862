package evm_test

import (
	"math/big"
	mrand "math/rand/v2"
	"strconv"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/wire"
)

// randomUint256 draws a value of a random bit length up to 256, so that zero, small values and
// the full width all occur.
func randomUint256(r *mrand.Rand) *big.Int {
	bits := r.IntN(257)
	v := new(big.Int)
	for i := 0; i < bits; i++ {
		if r.IntN(2) == 1 {
			v.SetBit(v, i, 1)
		}
	}
	return v
}

// randomAddress returns a random 20-byte address, written in lower case or EIP-55 case.
func randomAddress(r *mrand.Rand) string {
	var a common.Address
	for i := range a {
		a[i] = byte(r.IntN(256))
	}
	if r.IntN(2) == 0 {
		return a.Hex()
	}
	return "0x" + common.Bytes2Hex(a[:])
}

// randomText returns a short non-empty string (the domain's name and version are required),
// sometimes beyond ASCII.
func randomText(r *mrand.Rand) string {
	const alphabet = "abcXYZ 019-_.é€"
	runes := []rune(alphabet)
	n := 1 + r.IntN(12)
	out := make([]rune, n)
	for i := range out {
		out[i] = runes[r.IntN(len(runes))]
	}
	return string(out)
}

// TestDigestMatchesApitypesOnRandomInputs checks the hand-written EIP-712 digest against
// go-ethereum's generic typed-data encoder on random domains and authorizations: token name
// and version, chain id, contract, payer, payee, the three uint256 numbers (up to 2^256-1)
// and the nonce.
func TestDigestMatchesApitypesOnRandomInputs(t *testing.T) {
	t.Parallel()
	r := mrand.New(mrand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		chainID := 1 + r.Uint64N(1<<62)
		req := wire.PaymentRequirements{
			Scheme:  "exact",
			Network: "eip155:" + strconv.FormatUint(chainID, 10),
			Asset:   randomAddress(r),
			Extra:   map[string]any{"name": randomText(r), "version": randomText(r)},
		}
		auth := evm.Authorization{
			From: randomAddress(r), To: randomAddress(r),
			Value: randomUint256(r), ValidAfter: randomUint256(r), ValidBefore: randomUint256(r),
		}
		for j := range auth.Nonce {
			auth.Nonce[j] = byte(r.IntN(256))
		}

		got, err := evm.DigestFor(&req, &auth)
		require.NoError(t, err, "case %d", i)

		td := apitypes.TypedData{
			Types: apitypes.Types{
				"EIP712Domain": {
					{Name: "name", Type: "string"}, {Name: "version", Type: "string"},
					{Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"},
				},
				"TransferWithAuthorization": {
					{Name: "from", Type: "address"}, {Name: "to", Type: "address"}, {Name: "value", Type: "uint256"},
					{Name: "validAfter", Type: "uint256"}, {Name: "validBefore", Type: "uint256"}, {Name: "nonce", Type: "bytes32"},
				},
			},
			PrimaryType: "TransferWithAuthorization",
			Domain: apitypes.TypedDataDomain{
				Name: req.Extra["name"].(string), Version: req.Extra["version"].(string),
				ChainId:           (*math.HexOrDecimal256)(new(big.Int).SetUint64(chainID)),
				VerifyingContract: req.Asset,
			},
			Message: apitypes.TypedDataMessage{
				"from": auth.From, "to": auth.To, "value": auth.Value.String(),
				"validAfter": auth.ValidAfter.String(), "validBefore": auth.ValidBefore.String(),
				"nonce": auth.Nonce[:],
			},
		}
		want, _, err := apitypes.TypedDataAndHash(td)
		require.NoError(t, err, "case %d", i)
		require.Equal(t, want, got[:], "case %d: %+v %+v", i, req, auth)
	}
}
