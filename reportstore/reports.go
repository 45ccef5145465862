package reportstore

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/wire"
)

// MaxReportBytes caps the body Report and Fetch read into memory. A larger report is paid
// for but not returned: fetch it with OpenReport, which streams any size.
const MaxReportBytes = httpcore.MaxResponseBytes

// Quote is the store's live price for one request, read from its 402 challenge without
// paying.
type Quote struct {
	// ID is the report id (for QuoteFetch, the last segment of the path).
	ID string
	// Path is the request path, such as "/report/macro-gdp".
	Path string
	// Format is the format asked for.
	Format Format
	// Amount is the price in the asset's atomic units, as the challenge states it (USDC:
	// usdc.Format shows it).
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
	Challenge *wire.PaymentRequired
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
	return c.quote(ctx, id, httpcore.Path("report", id), formatQuery(format), format.orDefault(), true)
}

// QuoteFetch asks the store for the live price of the product Fetch would buy with params,
// without paying; params are checked as Fetch checks them.
func (c *Client) QuoteFetch(ctx context.Context, params *FetchParams) (*Quote, error) {
	escaped, err := params.check()
	if err != nil {
		return nil, err
	}
	return c.quote(ctx, path.Base(params.Path), escaped, params.Query, params.format(), false)
}

// quote sends the unpaid request and reads its challenge, each attempt within the client's
// Attempt bound, body included. For a catalog report (isReport) a 400 is the store's
// unsupported-format answer.
func (c *Client) quote(ctx context.Context, id, p string, query url.Values, format Format, isReport bool) (*Quote, error) {
	req := &httpcore.Request{Method: http.MethodGet, Path: p, Query: query, Header: acceptHeader(format)}
	_, err := c.core.Do(ctx, req, nil)
	if err == nil {
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
	pr, err := wire.ReadPaymentRequired(resp)
	if err != nil {
		return nil, fmt.Errorf("reportstore: GET %s: reading the 402 challenge: %w", p, err)
	}
	var chosen *wire.PaymentRequirements
	var refusal error
	if payer != nil {
		chosen, refusal = payer.Evaluate(pr)
	}
	for i := range pr.Accepts {
		r := &pr.Accepts[i]
		if chosen == nil && r.Usable() && r.Scheme == evm.SchemeExact {
			chosen = r
		}
	}
	if chosen == nil {
		reasons := make([]string, 0, len(pr.Accepts))
		for i := range pr.Accepts {
			r := &pr.Accepts[i]
			why := cmp.Or(r.Unusable, fmt.Sprintf("scheme %q is not supported", r.Scheme))
			reasons = append(reasons, fmt.Sprintf("accepts[%d]: %s", i, why))
		}
		return nil, fmt.Errorf("reportstore: GET %s: %w", p, &x402.NoUsableRequirementsError{Reasons: reasons})
	}
	if chosen.Amount == nil || chosen.Amount.Sign() < 0 {
		return nil, fmt.Errorf("reportstore: GET %s: the quoted amount is missing or negative", p)
	}
	return &Quote{
		ID:                id,
		Path:              p,
		Format:            format,
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

// Report is a purchased report read into memory.
type Report struct {
	// ID is the report id (for Fetch, the last segment of the path).
	ID string
	// Path is the request path, such as "/report/macro-gdp".
	Path string
	// Format is the format asked for.
	Format Format
	// ContentType is the media type of the body, such as "text/csv", without parameters.
	ContentType string
	// Response describes the store's paid answer.
	Response sdk.Response `json:"-"`
	// Body is the report.
	Body []byte
	// Receipt is the settlement receipt of the payment (the PAYMENT-RESPONSE header); nil
	// when the store sent none.
	Receipt *wire.SettleResponse
	// Payment identifies the payment (nonce, payer, network, payee, amount, resource); nil
	// when the report was not paid for by this client's payer.
	Payment *x402.Payment
}

// Report buys report id in format and returns it. An empty format means FormatHTML. The
// request goes through the payer of WithPayer, which pays the amount of the store's 402
// within its policy; see the package documentation for the errors of each failure.
//
// A body larger than MaxReportBytes is a *DeliveryError after payment; use OpenReport for
// large reports.
func (c *Client) Report(ctx context.Context, id string, format Format) (*Report, error) {
	s, err := c.openReport(ctx, id, format, false)
	if err != nil {
		return nil, err
	}
	return s.readAll()
}

// FetchParams name a product of the store other than a catalog report, for Fetch and
// QuoteFetch.
type FetchParams struct {
	// Path is the product's path, such as the bespoke "/report/custom" or a bundle's: it
	// starts with "/" and carries no query or fragment of its own.
	Path string
	// Query is the product's query, such as indicators=NY.GDP.MKTP.CD&countries=US,CN; its
	// format value, FormatHTML without one, is the Report's Format.
	Query url.Values
}

// check refuses nil params and a path checkPath refuses, and returns the path escaped.
func (p *FetchParams) check() (string, error) {
	if p == nil {
		return "", invalid("path", "must not be empty: the parameters are nil")
	}
	return checkPath(p.Path)
}

// format is the format the query asks for, FormatHTML without one.
func (p *FetchParams) format() Format { return Format(p.Query.Get("format")).orDefault() }

// Fetch buys any other product of the store, named by params, and pays like Report.
func (c *Client) Fetch(ctx context.Context, params *FetchParams) (*Report, error) {
	escaped, err := params.check()
	if err != nil {
		return nil, err
	}
	s, err := c.open(ctx, path.Base(params.Path), escaped, params.Query, params.format(), false, false)
	if err != nil {
		return nil, err
	}
	return s.readAll()
}

// checkPath accepts a product path: absolute, without query, fragment, scheme, host or dot
// segments. It returns the path escaped.
func checkPath(p string) (string, error) {
	switch {
	case !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//"):
		return "", invalid("path", `must start with a single "/"`)
	case strings.ContainsAny(p, "?#"):
		return "", invalid("path", "must not contain a query or fragment; pass the query separately")
	case strings.ContainsFunc(p, func(r rune) bool { return r < 0x21 || r == 0x7f }):
		return "", invalid("path", "must not contain spaces or control characters")
	}
	segs := strings.Split(p[1:], "/")
	for _, s := range segs {
		if s == "." || s == ".." {
			return "", invalid("path", `must not contain "." or ".." segments`)
		}
	}
	return httpcore.Path(segs...), nil
}

// ReportStream is a purchased report being read from the network. It is an io.ReadCloser
// that reads the body as it arrives, without buffering it; the receipt and the headers are
// available before the first Read. The caller must Close it.
type ReportStream struct {
	// ID is the report id (for Fetch-like paths, the last path segment).
	ID string
	// Path is the request path.
	Path string
	// Format is the format asked for.
	Format Format
	// ContentType is the media type of the body, without parameters.
	ContentType string
	// ContentLength is the body's length when the store announced it, else -1.
	ContentLength int64
	// Response describes the store's paid answer.
	Response sdk.Response `json:"-"`
	// Receipt is the settlement receipt of the payment; nil when the store sent none.
	Receipt *wire.SettleResponse

	body io.ReadCloser
	// ctx is the purchase's context, under its bound; release ends both.
	ctx     context.Context
	release func()
	payment *x402.Payment // for Report.Payment
}

// Read reads the next bytes of the report. A failure other than io.EOF (the connection
// broke, the context ended) is a *DeliveryError carrying the receipt, since the report was
// paid for; errors.Is still finds its cause.
func (s *ReportStream) Read(p []byte) (int, error) {
	n, err := s.body.Read(p)
	if err != nil && err != io.EOF {
		err = &DeliveryError{Path: s.Path, Receipt: s.Receipt, Err: bounded(s.ctx, err)}
	}
	return n, err
}

// Close closes the connection; reading the rest of the report is not needed.
func (s *ReportStream) Close() error {
	err := s.body.Close()
	s.release()
	return err
}

// OpenReport buys report id in format like Report, and returns the report as a stream: the
// body is read from the network as the caller reads, so reports of any size use little
// memory. The payment has settled by the time OpenReport returns; the caller must Close the
// stream.
func (c *Client) OpenReport(ctx context.Context, id string, format Format) (*ReportStream, error) {
	return c.openReport(ctx, id, format, true)
}

// openReport buys catalog report id in format, as a stream or to be read whole (see open).
func (c *Client) openReport(ctx context.Context, id string, format Format, stream bool) (*ReportStream, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	format = format.orDefault()
	return c.open(ctx, id, httpcore.Path("report", id), formatQuery(format), format, true, stream)
}

// open sends a purchase and returns the live 2xx response as a ReportStream, within the
// client's Attempt bound; for a stream (OpenReport) the bound stops once the answer came, and
// its reads are then bounded by Idle only. For a catalog report (isReport) a 400 is the
// store's unsupported-format answer.
func (c *Client) open(ctx context.Context, id, p string, query url.Values, format Format, isReport, stream bool) (*ReportStream, error) {
	ctx, stop, release := c.bound(ctx)
	rec := &purchase{}
	ctx = context.WithValue(ctx, purchaseKey{}, rec)
	req := &httpcore.Request{Method: http.MethodGet, Path: p, Query: query, Header: acceptHeader(format), Retry: httpcore.RetryNever}
	resp, err := c.core.Stream(ctx, req)
	if err != nil {
		err = bounded(ctx, purchaseError(err, rec, id, p, format, isReport))
		release()
		return nil, err
	}
	if stream {
		stop()
	}
	receipt, _ := x402.ReceiptFrom(resp)
	payment, _ := x402.PaymentFrom(resp)
	receipt = scrubReceipt(receipt, resp.Request)
	ct := resp.Header.Get("Content-Type")
	if mt, _, perr := mime.ParseMediaType(ct); perr == nil {
		ct = mt
	}
	return &ReportStream{
		ID:            id,
		Path:          p,
		Format:        format,
		ContentType:   ct,
		ContentLength: resp.ContentLength,
		Response:      httpcore.Meta(resp),
		Receipt:       receipt,
		body:          resp.Body,
		ctx:           ctx,
		release:       release,
		payment:       payment,
	}, nil
}

// scrubReceipt returns a copy of the receipt of a paid answer with every form of the payment
// that req, the paid request, carried scrubbed from its texts: a store may echo the payment
// there, and DeliveryError prints the receipt.
func scrubReceipt(r *wire.SettleResponse, req *http.Request) *wire.SettleResponse {
	if r == nil || req == nil {
		return r
	}
	value := cmp.Or(req.Header.Get(wire.HeaderPaymentSignature), req.Header.Get(wire.HeaderPaymentV1))
	if value == "" {
		return r
	}
	secrets := []string{value}
	if p, err := wire.DecodePaymentPayload(value); err == nil {
		secrets = append(secrets, p.Secrets()...)
	}
	c := *r
	for _, f := range []*string{&c.ErrorReason, &c.ErrorMessage, &c.Payer, &c.Transaction, &c.Network, &c.RawNetwork, &c.Amount} {
		*f = httpcore.Scrub(*f, secrets...)
	}
	if len(r.Extensions) > 0 {
		c.Extensions = json.RawMessage(httpcore.Scrub(string(r.Extensions), secrets...))
	}
	return &c
}

// readAll reads the whole stream into a Report, at most MaxReportBytes.
func (s *ReportStream) readAll() (*Report, error) {
	defer s.Close()
	body, err := io.ReadAll(io.LimitReader(s, MaxReportBytes+1))
	if err != nil {
		return nil, err // a *DeliveryError from Read
	}
	if len(body) > MaxReportBytes {
		err = fmt.Errorf("report larger than %d bytes; use OpenReport to stream it", MaxReportBytes)
		return nil, &DeliveryError{Path: s.Path, Receipt: s.Receipt, Err: err}
	}
	return &Report{
		ID:          s.ID,
		Path:        s.Path,
		Format:      s.Format,
		ContentType: s.ContentType,
		Response:    s.Response,
		Body:        body,
		Receipt:     s.Receipt,
		Payment:     s.payment,
	}, nil
}

// DeliveryError reports a purchase whose payment went through (see Receipt) but whose report
// could not be read in full: the connection failed during the body, or the body was larger
// than MaxReportBytes.
type DeliveryError struct {
	// Path is the request path.
	Path string
	// Receipt is the settlement receipt of the payment; nil when the store sent none.
	Receipt *wire.SettleResponse
	// Err is the failure.
	Err error
}

// Error names the path, the transaction and the failure.
func (e *DeliveryError) Error() string {
	tx := "no receipt"
	if e.Receipt != nil {
		tx = "transaction " + e.Receipt.Transaction
	}
	return fmt.Sprintf("reportstore: GET %s: paid (%s) but reading the report failed: %v", e.Path, tx, e.Err)
}

// Unwrap returns the failure.
func (e *DeliveryError) Unwrap() error { return e.Err }

// purchaseError turns the failure of a purchase into the package's errors: a payee refusal is
// a *PayeeMismatchError, a 400 to a catalog report an *UnsupportedFormatError, a 402 that
// nobody paid a *PaymentRequiredError, and an x402 refusal (policy, rejection, unconfirmed
// payment) is returned with the request named, for errors.As.
func purchaseError(err error, rec *purchase, id, p string, format Format, isReport bool) error {
	if rec.mismatch != nil {
		if inner, ok := errorsAs[*PayeeMismatchError](err); !ok || inner != rec.mismatch {
			rec.mismatch.Err = err // refused in the answer to a payment: keep the payer's error
		}
		return rec.mismatch
	}
	if apiErr, ok := errorsAs[*sdk.APIError](err); ok {
		switch {
		case apiErr.StatusCode == http.StatusBadRequest && isReport:
			return &UnsupportedFormatError{Format: format, Err: apiErr}
		case apiErr.StatusCode == http.StatusPaymentRequired:
			q, _ := quoteFrom(apiErr, id, p, format, nil) // nil when the challenge is unreadable
			return &PaymentRequiredError{Quote: q, Err: apiErr}
		}
		return err
	}
	payErr := paymentCause(err)
	if payErr == nil && rec.err != nil {
		payErr = paymentCause(rec.err) // err says only that the context ended
	}
	if payErr != nil {
		return fmt.Errorf("reportstore: GET %s: %w", p, payErr)
	}
	return err
}

// paymentCause returns the x402 error inside err, or nil. The outcome of a payment comes
// first: a rejection may carry the policy's refusal of a re-quote inside it.
func paymentCause(err error) error {
	for _, as := range []func(error) (error, bool){
		asError[*x402.PaymentSettledError], asError[*x402.PaymentUnconfirmedError],
		asError[*x402.PaymentRejectedError], asError[*x402.PolicyError],
		asError[*x402.NoUsableRequirementsError], asError[*wire.FormatError],
	} {
		if e, ok := as(err); ok {
			return e
		}
	}
	if errors.Is(err, x402.ErrBodyNotReplayable) {
		return x402.ErrBodyNotReplayable
	}
	return nil
}

// formatQuery returns the query of a report in format; the empty format sends none, which
// the store reads as html.
func formatQuery(format Format) url.Values {
	if format == "" {
		return nil
	}
	return url.Values{"format": {string(format)}}
}

// acceptHeader returns the Accept header matching format, so that content negotiation never
// contradicts the format parameter.
func acceptHeader(format Format) http.Header {
	accept := "*/*"
	switch format.orDefault() {
	case FormatHTML:
		accept = "text/html"
	case FormatJSON:
		accept = "application/json"
	case FormatCSV, FormatSummaryCSV:
		accept = "text/csv"
	}
	return http.Header{"Accept": {accept}}
}

// errorsAs is errors.As with a type parameter.
func errorsAs[T error](err error) (T, bool) {
	var target T
	ok := errors.As(err, &target)
	return target, ok
}

// asError is errorsAs giving the error as an error.
func asError[T error](err error) (error, bool) {
	e, ok := errorsAs[T](err)
	return e, ok
}
