package gpuprice

import (
	"math/big"

	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk/x402/usdc"
)

// Plan is a paid plan of the service. Keys are bought for one month.
type Plan string

// The plans a key can be bought for.
const (
	// PlanPro costs 5 USDC a month and allows 1,000 requests a day, history and benchmarks.
	PlanPro Plan = "pro"
	// PlanUnlimited costs 19 USDC a month and has no request limit.
	PlanUnlimited Plan = "unlimited"
)

// The memo each payment must carry, byte for byte, as the API description gives it.
const (
	// MemoPro is the memo of a Pro payment.
	MemoPro = "API-PRO"
	// MemoUnlimited is the memo of an Unlimited payment.
	MemoUnlimited = "API-ULTRA"
)

// USDCMint is the mint of USDC on Solana mainnet; key payments are transfers of it.
var USDCMint = solana.MustPublicKeyFromBase58("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")

// Price returns the plan's price in atomic USDC units (package usdc): 5 USDC for Pro, 19 for
// Unlimited, as the API description gives them; false for an unknown plan.
func (p Plan) Price() (*big.Int, bool) {
	switch p {
	case PlanPro:
		return usdc.Dollars(5), true
	case PlanUnlimited:
		return usdc.Dollars(19), true
	}
	return nil, false
}

// Memo returns the memo a payment for the plan carries, and false for an unknown plan.
func (p Plan) Memo() (string, bool) {
	switch p {
	case PlanPro:
		return MemoPro, true
	case PlanUnlimited:
		return MemoUnlimited, true
	}
	return "", false
}
