package gpuprice

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// Key is an API key issued for a payment, by RedeemKey or BuyKey.
type Key struct {
	// Key is the API key, printed as a mask; Reveal gives it, to store it right away.
	Key sdk.Secret
	// Plan is the key's plan, when the service said.
	Plan Plan
	// ExpiresAt is when the key stops working (a month after it was issued), when the
	// service said.
	ExpiresAt *time.Time
	// TxSignature is the signature of the payment the key was issued for, printed as a mask.
	TxSignature sdk.Secret
	// Response describes the HTTP response of the redemption.
	Response sdk.Response
}

// keyAnswer is the redemption's answer. The API description does not show it: the key is
// read under the spellings of fieldAPIKey (api_key, apiKey, key, token...), at the top or inside
// data. Its raw body is not kept: it holds the key in plain text.
type keyAnswer struct {
	key     string
	plan    Plan
	expires *time.Time
}

// errNoKey is the decoding error of a redemption answer that carries no key.
var errNoKey = errors.New("redemption: the answer carries no API key (looked for " + strings.Join(fieldNames[fieldAPIKey], ", ") + ")")

// UnmarshalJSON reads the key, its plan and its expiry; an answer without a key is an error.
func (a *keyAnswer) UnmarshalJSON(b []byte) error {
	m, err := readMembers(b)
	if err != nil {
		return err
	}
	key, found := first[string](m, fieldAPIKey)
	if data, ok := m.object(fieldData); ok && !found {
		m = data
		key, _ = first[string](m, fieldAPIKey)
	}
	if strings.TrimSpace(key) == "" {
		return errNoKey
	}
	*a = keyAnswer{key: key, plan: Plan(strings.ToLower(m.text(fieldPlan))), expires: m.time(fieldExpires)}
	return nil
}

// redeemRequest is the body of the redemption.
type redeemRequest struct {
	TxSignature string `json:"tx_signature"`
}

// RedeemKey exchanges the signature of a confirmed payment for an API key (by default POST
// /v1/keys/redeem with {"tx_signature": ...}; see WithRedeemPath) and makes the client send
// that key from now on. The operation is public: the client's own key is not sent.
//
// A signature that is not the base58 text of 64 bytes is an *sdk.ValidationError before any
// request. The request is sent once: a redemption whose answer was lost could have issued
// the key, and repeating it would be refused as already redeemed. Refusals match the
// sentinels ErrTxNotFound, ErrTxNotConfirmed (redeem again later), ErrAlreadyRedeemed,
// ErrTxFailed, ErrWrongMemo, ErrInsufficientAmount, ErrWrongDestination, ErrWrongMint and
// ErrNoTransfer by what the service's code means (signature_already_redeemed, already_used
// and AlreadyRedeemed are ErrAlreadyRedeemed), and a 409 is ErrAlreadyRedeemed whatever its
// code unless the code says not confirmed. The signature never appears in an error or a log line, whatever form a
// server echoes it in (a redirect's path, a header, base64 or URL-escaped text).
func (c *Client) RedeemKey(ctx context.Context, txSignature string) (*Key, error) {
	if _, err := solana.SignatureFromBase58(txSignature); err != nil {
		return nil, invalid("tx_signature", "must be the base58 text of a 64-byte transaction signature")
	}
	var ans keyAnswer
	resp, err := c.core.Do(ctx, &httpcore.Request{
		Method:        http.MethodPost,
		Path:          c.redeemPath,
		Body:          httpcore.JSON(redeemRequest{TxSignature: txSignature}),
		Retry:         httpcore.RetryNever,
		SensitiveBody: true,
		Credentials:   anonymous,
		Secrets:       []string{txSignature},
	}, &ans)
	if err != nil {
		return nil, refusedRedemption(err)
	}
	key := &Key{Key: sdk.NewSecret(ans.key), Plan: ans.plan, ExpiresAt: ans.expires,
		TxSignature: sdk.NewSecret(txSignature), Response: resp.Meta()}
	if err := c.SetAPIKey(ans.key); err != nil {
		return key, errors.New(serviceName + ": the issued key was returned but cannot be sent in a header: " + err.Error())
	}
	return key, nil
}
