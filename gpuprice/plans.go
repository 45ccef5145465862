package gpuprice

import (
	"math/big"

	"github.com/gagliardetto/solana-go"
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

// The purchase terms of the API description: prices in atomic USDC units (6 decimals) and
// the memo each payment must carry, byte for byte.
const (
	// ProPrice is the price of a Pro key: 5 USDC.
	ProPrice uint64 = 5_000_000
	// UnlimitedPrice is the price of an Unlimited key: 19 USDC.
	UnlimitedPrice uint64 = 19_000_000
	// MemoPro is the memo of a Pro payment.
	MemoPro = "API-PRO"
	// MemoUnlimited is the memo of an Unlimited payment.
	MemoUnlimited = "API-ULTRA"
)

// USDCMint is the mint of USDC on Solana mainnet; key payments are transfers of it.
var USDCMint = solana.MustPublicKeyFromBase58("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")

// USDCDecimals is the number of decimals of USDC.
const USDCDecimals uint8 = 6

// Price returns the plan's price in atomic USDC units, and false for an unknown plan.
func (p Plan) Price() (uint64, bool) {
	switch p {
	case PlanPro:
		return ProPrice, true
	case PlanUnlimited:
		return UnlimitedPrice, true
	}
	return 0, false
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

// price returns the plan's price as a *big.Int, for the budget.
func price(amount uint64) *big.Int { return new(big.Int).SetUint64(amount) }
