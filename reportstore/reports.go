package reportstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/x402"
)

// MaxReportBytes caps the body Report and Fetch read into memory. A larger report is paid
// for but not returned: fetch it with OpenReport, which streams any size.
const MaxReportBytes = httpcore.MaxResponseBytes

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
	Receipt *x402.SettleResponse
}

// Report buys report id in format and returns it. An empty format means FormatHTML. The
// request goes through the payer of WithPayer, which pays the amount of the store's 402
// within its policy; see the package documentation for the errors of each failure.
//
// A body larger than MaxReportBytes is a *DeliveryError after payment; use OpenReport for
// large reports.
func (c *Client) Report(ctx context.Context, id string, format Format) (*Report, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	format = format.orDefault()
	s, err := c.open(ctx, id, httpcore.Path("report", id), formatQuery(nil, format), format, true)
	if err != nil {
		return nil, err
	}
	return s.readAll()
}

// Fetch buys any other product of the store by its path and query, such as the bespoke
// "/report/custom" with query indicators=NY.GDP.MKTP.CD&countries=US,CN, or a bundle. The
// path must start with "/" and carry no query or fragment of its own (give those in query).
// It pays like Report; Report.Format is the query's format value, FormatHTML without one.
func (c *Client) Fetch(ctx context.Context, p string, query url.Values) (*Report, error) {
	escaped, err := checkPath(p)
	if err != nil {
		return nil, err
	}
	format := Format(query.Get("format")).orDefault()
	s, err := c.open(ctx, path.Base(p), escaped, query, format, false)
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
	Receipt *x402.SettleResponse

	body io.ReadCloser
}

// Read reads the next bytes of the report. A failure other than io.EOF (the connection
// broke, the context ended) is a *DeliveryError carrying the receipt, since the report was
// paid for; errors.Is still finds its cause.
func (s *ReportStream) Read(p []byte) (int, error) {
	n, err := s.body.Read(p)
	if err != nil && err != io.EOF {
		err = &DeliveryError{Path: s.Path, Receipt: s.Receipt, Err: err}
	}
	return n, err
}

// Close closes the connection; reading the rest of the report is not needed.
func (s *ReportStream) Close() error { return s.body.Close() }

// OpenReport buys report id in format like Report, and returns the report as a stream: the
// body is read from the network as the caller reads, so reports of any size use little
// memory. The payment has settled by the time OpenReport returns; the caller must Close the
// stream.
func (c *Client) OpenReport(ctx context.Context, id string, format Format) (*ReportStream, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	format = format.orDefault()
	return c.open(ctx, id, httpcore.Path("report", id), formatQuery(nil, format), format, true)
}

// open sends a purchase and returns the live 2xx response as a ReportStream. For a catalog
// report (isReport) a 400 is the store's unsupported-format answer.
func (c *Client) open(ctx context.Context, id, p string, query url.Values, format Format, isReport bool) (*ReportStream, error) {
	rec := &purchase{}
	ctx = context.WithValue(ctx, purchaseKey{}, rec)
	req := &httpcore.Request{Method: http.MethodGet, Path: p, Query: query, Header: acceptHeader(format), Retry: httpcore.RetryNever}
	resp, err := c.core.Stream(ctx, req)
	if err != nil {
		return nil, purchaseError(err, rec, id, p, format, isReport)
	}
	receipt, _ := x402.ReceiptFrom(resp)
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
		Response: (&httpcore.Response{StatusCode: resp.StatusCode, Header: resp.Header,
			RequestID: requestID(resp.Header), Attempts: 1}).Meta(),
		Receipt: receipt,
		body:    resp.Body,
	}, nil
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
	}, nil
}

// DeliveryError reports a purchase whose payment went through (see Receipt) but whose report
// could not be read in full: the connection failed during the body, or the body was larger
// than MaxReportBytes.
type DeliveryError struct {
	// Path is the request path.
	Path string
	// Receipt is the settlement receipt of the payment; nil when the store sent none.
	Receipt *x402.SettleResponse
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
			q, qerr := quoteFrom(apiErr, id, p, format, nil)
			if qerr != nil {
				q = nil
			}
			return &PaymentRequiredError{Quote: q, Err: apiErr}
		}
		return err
	}
	if payErr := paymentCause(err); payErr != nil {
		return fmt.Errorf("reportstore: GET %s: %w", p, payErr)
	}
	return err
}

// paymentCause returns the x402 error inside err, or nil. The outcome of a payment comes
// first: a rejection may carry the policy's refusal of a re-quote inside it.
func paymentCause(err error) error {
	if e, ok := errorsAs[*x402.PaymentSettledError](err); ok {
		return e
	}
	if e, ok := errorsAs[*x402.PaymentUnconfirmedError](err); ok {
		return e
	}
	if e, ok := errorsAs[*x402.PaymentRejectedError](err); ok {
		return e
	}
	if e, ok := errorsAs[*x402.PolicyError](err); ok {
		return e
	}
	if e, ok := errorsAs[*x402.NoUsableRequirementsError](err); ok {
		return e
	}
	if e, ok := errorsAs[*x402.FormatError](err); ok {
		return e
	}
	if errors.Is(err, x402.ErrBodyNotReplayable) {
		return x402.ErrBodyNotReplayable
	}
	return nil
}

// formatQuery adds the format parameter to q (a new one when nil); the empty format sends
// none, which the store reads as html.
func formatQuery(q url.Values, format Format) url.Values {
	if q == nil {
		q = url.Values{}
	}
	if format != "" {
		q.Set("format", string(format))
	}
	return q
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

// requestID returns the server's request identifier from the headers the core reads it
// from, for an answer the core streamed without describing it.
func requestID(h http.Header) string {
	for _, k := range []string{"X-Request-Id", "Request-Id", "X-Amzn-Requestid", "Cf-Ray"} {
		if v := h.Get(k); v != "" {
			return v
		}
	}
	return ""
}

// errorsAs is errors.As with a type parameter.
func errorsAs[T error](err error) (T, bool) {
	var target T
	ok := errors.As(err, &target)
	return target, ok
}
