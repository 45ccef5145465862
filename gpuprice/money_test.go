package gpuprice_test

import (
	"errors"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/x402/usdc"
)

func TestMessagesShowUSDCAsDollars(t *testing.T) {
	t.Parallel()
	short := &gpuprice.InsufficientFundsError{Have: big.NewInt(4_999_999), Need: usdc.Dollars(5)}
	assert.Equal(t, "gpuprice: the payer's USDC balance is $4.999999, the plan costs $5.00", short.Error())
	none := &gpuprice.InsufficientFundsError{Have: new(big.Int), Need: usdc.Dollars(19)}
	assert.Equal(t, "gpuprice: the payer's USDC balance is $0.00, the plan costs $19.00", none.Error())

	pe := &gpuprice.PaymentError{Outcome: gpuprice.PaymentInDoubt, Plan: gpuprice.PlanUnlimited, Err: errors.New("no answer")}
	assert.Equal(t, "gpuprice: buying a key of plan unlimited for $19.00: payment in doubt: no answer", pe.Error())
	pe = &gpuprice.PaymentError{Outcome: gpuprice.PaymentRejected, Plan: gpuprice.PlanPro}
	assert.Equal(t, "gpuprice: buying a key of plan pro for $5.00: payment rejected by the node", pe.Error())
	pe = &gpuprice.PaymentError{Outcome: gpuprice.PaymentFailed, Plan: "gold"}
	assert.Equal(t, "gpuprice: buying a key of plan gold: payment failed on chain", pe.Error(), "an unknown plan has no price to show")
}
