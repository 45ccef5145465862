package reportstore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"path"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402"
)

// Quote is the store's live price for one request, read from its 402 challenge without
// paying.
type Quote struct {
	// ID is the report id (for QuoteFetch, the last segment of the path).
	ID string
	// Path is the request path, such as "/report/macro-gdp".
	Path string
	// Format is the format asked for.
	Format Format
	// Price is Amount read as USDC (6 decimals).
	Price Price
	// Amount is the price in the asset's atomic units, as the challenge states it.
	Amount *big.Int
	// PayTo is the recipient of the payment.
	PayTo string
	// Network is the chain, in CAIP-2 form (such as "eip155:8453", Base mainnet).
	Network string
	// Asset is the token contract (USDC).
	Asset string
	// Scheme is the payment scheme ("exact").
	Scheme string
	// MaxTimeoutSeconds is how long the store allows for a payment; always positive, since a
	// payment option without a positive maxTimeoutSeconds is not usable and never quoted.
	MaxTimeoutSeconds int
	// Challenge is the whole challenge, with every payment option the store offered. The
	// fields above describe the option the client's payer would pay; without a payer, or when
	// the payer would refuse every option, the first usable "exact" one.
	Challenge *x402.PaymentRequired
	// Refusal is why the client's payer would refuse to pay this quote (a *x402.PolicyError,
	// such as a price above MaxPerPayment, a payee not in Policy.PayTo or a network not in
	// Policy.Networks, or a *x402.NoUsableRequirementsError); nil when it would pay it, or
	// when the client has no payer. The budget is not checked: whether it has room depends on
	// the payments in flight when the report is bought.
	Refusal error
	// Response describes the store's 402 answer the quote was read from.
	Response sdk.Response `json:"-"`
}

// Quote asks the store for the live price of report id in format, without paying: it sends
// the request unpaid (never through the payer) and reads the 402 challenge. An empty format
// means FormatHTML. With WithExpectedPayee, a challenge naming another payee is a
// *PayeeMismatchError.
//
// The quote says whether the client's payer would pay it: see Quote.Refusal.
//
// A quote is information only. Purchases never pay a quoted amount: each pays the amount of
// its own most recent 402, which the store may have re-quoted since.
func (c *Client) Quote(ctx context.Context, id string, format Format) (*Quote, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	return c.quote(ctx, id, httpcore.Path("report", id), formatQuery(nil, format), format.orDefault(), true)
}

// QuoteFetch asks the store for the live price of a product path, such as "/report/custom"
// with its query, without paying; path and query are checked as Fetch checks them.
func (c *Client) QuoteFetch(ctx context.Context, p string, query url.Values) (*Quote, error) {
	escaped, err := checkPath(p)
	if err != nil {
		return nil, err
	}
	return c.quote(ctx, path.Base(p), escaped, query, Format(query.Get("format")).orDefault(), false)
}

// quote sends the unpaid request and reads its challenge. For a catalog report (isReport) a
// 400 is the store's unsupported-format answer.
func (c *Client) quote(ctx context.Context, id, p string, query url.Values, format Format, isReport bool) (*Quote, error) {
	req := &httpcore.Request{Method: http.MethodGet, Path: p, Query: query, Header: acceptHeader(format)}
	resp, err := c.core.Stream(ctx, req)
	if err == nil {
		httpcore.Drain(resp)
		return nil, fmt.Errorf("reportstore: GET %s: %w", p, ErrNoChallenge)
	}
	apiErr, ok := errorsAs[*sdk.APIError](err)
	if !ok {
		return nil, err
	}
	if apiErr.StatusCode == http.StatusBadRequest && isReport {
		return nil, &UnsupportedFormatError{Format: format, Err: apiErr}
	}
	if apiErr.StatusCode != http.StatusPaymentRequired {
		return nil, err
	}
	q, err := quoteFrom(apiErr, id, p, format, c.payer)
	if err != nil {
		return nil, err
	}
	if c.payee != "" {
		if foreign := foreignPayees(q.Challenge, c.payee); len(foreign) > 0 {
			return nil, &PayeeMismatchError{Expected: c.payee, Got: foreign}
		}
	}
	return q, nil
}

// quoteFrom reads the challenge of a 402 *sdk.APIError, and the option payer (when not nil)
// would pay.
func quoteFrom(apiErr *sdk.APIError, id, p string, format Format, payer *x402.Payer) (*Quote, error) {
	resp := &http.Response{
		StatusCode: apiErr.StatusCode,
		Header:     apiErr.Header,
		Body:       io.NopCloser(bytes.NewReader(apiErr.Body)),
	}
	pr, err := x402.ParsePaymentRequired(resp)
	if err != nil {
		return nil, fmt.Errorf("reportstore: GET %s: reading the 402 challenge: %w", p, err)
	}
	var chosen *x402.PaymentRequirements
	var refusal error
	if payer != nil {
		chosen, refusal = payer.Evaluate(pr)
	}
	for i := range pr.Accepts {
		r := &pr.Accepts[i]
		if chosen == nil && r.Usable() && r.Scheme == x402.SchemeExact {
			chosen = r
		}
	}
	if chosen == nil {
		reasons := make([]string, 0, len(pr.Accepts))
		for i := range pr.Accepts {
			r := &pr.Accepts[i]
			why := r.Unusable
			if why == "" {
				why = fmt.Sprintf("scheme %q is not supported", r.Scheme)
			}
			reasons = append(reasons, fmt.Sprintf("accepts[%d]: %s", i, why))
		}
		return nil, fmt.Errorf("reportstore: GET %s: %w", p, &x402.NoUsableRequirementsError{Reasons: reasons})
	}
	price, err := PriceFromBig(chosen.Amount)
	if err != nil {
		return nil, fmt.Errorf("reportstore: GET %s: quoted amount: %w", p, err)
	}
	return &Quote{
		ID:                id,
		Path:              p,
		Format:            format,
		Price:             price,
		Amount:            new(big.Int).Set(chosen.Amount),
		PayTo:             chosen.PayTo,
		Network:           chosen.Network,
		Asset:             chosen.Asset,
		Scheme:            chosen.Scheme,
		MaxTimeoutSeconds: chosen.MaxTimeoutSeconds,
		Challenge:         pr,
		Refusal:           refusal,
		Response: (&httpcore.Response{StatusCode: apiErr.StatusCode, Header: apiErr.Header,
			RequestID: apiErr.RequestID, Attempts: apiErr.Attempts}).Meta(),
	}, nil
}
