package x402_test

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/usdc"
	"github.com/agentapis/sdk/x402/wire"
)

func TestFormatUSDCShowsDollarsWithTheirDecimals(t *testing.T) {
	t.Parallel()
	big1e30, _ := new(big.Int).SetString("1000000000000000000000000000000", 10)
	for in, want := range map[*big.Int]string{
		big.NewInt(5_130_000):  "$5.13",
		big.NewInt(5_000_000):  "$5.00",
		big.NewInt(870_000):    "$0.87",
		big.NewInt(130_500):    "$0.1305",
		big.NewInt(1):          "$0.000001",
		big.NewInt(0):          "$0.00",
		big.NewInt(-500_000):   "-$0.50",
		big.NewInt(12_345_678): "$12.345678",
		big1e30:                "$1000000000000000000000000.00",
		nil:                    "(none)",
	} {
		assert.Equal(t, want, usdc.Format(in), "%v", in)
	}
}

func TestPolicyErrorsShowMoneyInDollars(t *testing.T) {
	t.Parallel()
	over := &x402.PolicyError{Rule: x402.ErrBudgetExceeded, Requirements: wire.PaymentRequirements{Amount: big.NewInt(5_000_000)}, Limit: big.NewInt(870_000)}
	assert.Equal(t, x402.ErrBudgetExceeded.Error()+": amount $5.00, limit $0.87", over.Error())
	count := &x402.PolicyError{Rule: x402.ErrPaymentCountExceeded, Requirements: wire.PaymentRequirements{Amount: big.NewInt(130_000)}, Limit: big.NewInt(0)}
	assert.Contains(t, count.Error(), "amount $0.13, payments left 0", "a count is not money")
}
