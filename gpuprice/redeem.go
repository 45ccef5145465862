package gpuprice

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/lenient"
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
// read from api_key, apiKey, key or token, at the top or inside data. Its raw body is not
// kept: it holds the key in plain text.
type keyAnswer struct {
	key     string
	plan    Plan
	expires *time.Time
}

// keyFields are the members of a redemption answer, under their likely spellings.
type keyFields struct {
	APIKey    lenient.Opt[string]       `json:"api_key"`
	APIKeyCC  lenient.Opt[string]       `json:"apiKey"`
	Key       lenient.Opt[string]       `json:"key"`
	Token     lenient.Opt[string]       `json:"token"`
	Plan      lenient.Opt[lenient.Text] `json:"plan"`
	Tier      lenient.Opt[lenient.Text] `json:"tier"`
	ExpiresAt lenient.Opt[timestamp]    `json:"expires_at"`
	Expires   lenient.Opt[timestamp]    `json:"expires"`
	Expiry    lenient.Opt[timestamp]    `json:"expiry"`
	Until     lenient.Opt[timestamp]    `json:"valid_until"`
}

// errNoKey is the decoding error of a redemption answer that carries no key.
var errNoKey = errors.New("redemption: the answer carries no API key (looked for api_key, apiKey, key, token)")

// UnmarshalJSON reads the key, its plan and its expiry; an answer without a key is an error.
func (a *keyAnswer) UnmarshalJSON(b []byte) error {
	var w struct {
		keyFields
		Data lenient.Opt[keyFields] `json:"data"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	f := w.keyFields
	key, found := lenient.First(f.APIKey, f.APIKeyCC, f.Key, f.Token)
	if data, ok := w.Data.Get(); ok && !found {
		f = data
		key, _ = lenient.First(f.APIKey, f.APIKeyCC, f.Key, f.Token)
	}
	if strings.TrimSpace(key) == "" {
		return errNoKey
	}
	*a = keyAnswer{
		key:     key,
		plan:    Plan(strings.ToLower(texts(f.Plan, f.Tier))),
		expires: times(f.ExpiresAt, f.Expires, f.Expiry, f.Until),
	}
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
