package gpuprice_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/internal/testkit"
)

// aSignature is the base58 text of a 64-byte signature, for redemptions against a mock.
const aSignature = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"

// redemptionSentinels are the sentinels of the redemption's refusals.
var redemptionSentinels = []error{gpuprice.ErrTxNotFound, gpuprice.ErrTxNotConfirmed, gpuprice.ErrAlreadyRedeemed,
	gpuprice.ErrTxFailed, gpuprice.ErrNoTransfer, gpuprice.ErrWrongMint, gpuprice.ErrWrongDestination, gpuprice.ErrWrongMemo,
	gpuprice.ErrInsufficientAmount}

func TestRedemptionRefusalsMatchByWhatTheCodeMeans(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		body   string
		want   []error
	}{
		{409, `{"error":{"code":"already_redeemed"}}`, []error{gpuprice.ErrAlreadyRedeemed}},
		{409, `{"error":{"code":"signature_already_redeemed"}}`, []error{gpuprice.ErrAlreadyRedeemed}},
		{409, `{"code":"tx_already_redeemed","message":"used"}`, []error{gpuprice.ErrAlreadyRedeemed}},
		{400, `{"error":"already_used"}`, []error{gpuprice.ErrAlreadyRedeemed}},
		{422, `{"error":{"code":"ALREADY-REDEEMED"}}`, []error{gpuprice.ErrAlreadyRedeemed}},
		{409, `{"error":{"code":"AlreadyRedeemed"}}`, []error{gpuprice.ErrAlreadyRedeemed}},
		{409, `{"error":{"code":"conflict"}}`, []error{gpuprice.ErrAlreadyRedeemed}},
		{409, `{"message":"this key was issued before"}`, []error{gpuprice.ErrAlreadyRedeemed}},
		{409, `<html>Conflict</html>`, []error{gpuprice.ErrAlreadyRedeemed}},
		{409, `{"error":{"code":"tx_not_confirmed"}}`, []error{gpuprice.ErrTxNotConfirmed}},
		{409, `{"error":{"code":"transaction_not_confirmed"}}`, []error{gpuprice.ErrTxNotConfirmed}},
		{409, `{"error":"pending"}`, []error{gpuprice.ErrTxNotConfirmed}},
		{425, `{"error":{"code":"not_finalized"}}`, []error{gpuprice.ErrTxNotConfirmed}},
		{404, `{"error":{"code":"tx_not_found"}}`, []error{gpuprice.ErrTxNotFound}},
		{404, `{"error":{"code":"transaction_not_found"}}`, []error{gpuprice.ErrTxNotFound}},
		{404, `{"error":{"code":"signature_not_found"}}`, []error{gpuprice.ErrTxNotFound}},
		{400, `{"error":{"code":"unknown_transaction"}}`, []error{gpuprice.ErrTxNotFound}},
		{404, `{"error":{"code":"route_not_found"}}`, nil},
		{422, `{"error":{"code":"transaction_failed"}}`, []error{gpuprice.ErrTxFailed}},
		{422, `{"error":{"code":"no_usdc_transfer"}}`, []error{gpuprice.ErrNoTransfer}},
		{422, `{"error":{"code":"invalid_mint"}}`, []error{gpuprice.ErrWrongMint}},
		{422, `{"error":{"code":"wrong_recipient"}}`, []error{gpuprice.ErrWrongDestination}},
		{422, `{"error":{"code":"invalid_memo"}}`, []error{gpuprice.ErrWrongMemo}},
		{402, `{"error":{"code":"underpaid"}}`, []error{gpuprice.ErrInsufficientAmount}},
		{422, `{"error":{"code":"insufficient_amount"}}`, []error{gpuprice.ErrInsufficientAmount}},
		{422, `{"error":{"code":"unprocessable"}}`, nil},
	} {
		srv := serving(t, http.MethodPost, gpuprice.DefaultRedeemPath, tc.status, nil, tc.body)
		c := testkit.New(t, gpuprice.New, gpuprice.WithBaseURL(srv.URL))

		_, err := c.RedeemKey(t.Context(), aSignature)
		require.Error(t, err)
		for _, s := range redemptionSentinels {
			want := false
			for _, w := range tc.want {
				want = want || w == s
			}
			assert.Equal(t, want, errorsIs(err, s), "%d %s: errors.Is(%v)", tc.status, tc.body, s)
		}
	}
}

func TestACodeOfTheRedemptionMeansNothingOnAnotherEndpoint(t *testing.T) {
	t.Parallel()
	c := answering(t, "/v1/gpus", http.StatusConflict, `{"error":{"code":"already_used"}}`)
	_, err := c.GPUs(t.Context(), nil)
	require.Error(t, err)
	for _, s := range redemptionSentinels {
		assert.False(t, errorsIs(err, s), "%v", s)
	}
}
