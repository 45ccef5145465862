package wire

import (
	"bytes"
	"errors"
	"io"
	"net/http"
)

// ReadPaymentRequired reads the x402 challenge of a 402 response: the PAYMENT-REQUIRED
// header when present (v2, decoded leniently: standard or URL-alphabet base64 with or without
// padding, or bare JSON), and otherwise the JSON body (v1, or a v2 server that uses the body).
//
// When it reads the body, it puts back what it read, so the caller can still read the body.
// A challenge that cannot be read is a *FormatError. Each accepts entry is read on its own:
// an entry with an unusable amount, network, address or token domain is kept, marked
// Unusable with its reason, and the other entries still count.
func ReadPaymentRequired(resp *http.Response) (*PaymentRequired, error) {
	if resp == nil {
		return nil, errors.New("x402: nil response")
	}
	if v := resp.Header.Get(HeaderPaymentRequired); v != "" {
		return DecodePaymentRequired(v)
	}
	const what = "402 body"
	if resp.Body == nil || resp.Body == http.NoBody {
		return nil, &FormatError{What: what, Err: errors.New("no PAYMENT-REQUIRED header and no body")}
	}
	orig := resp.Body
	b, err := io.ReadAll(io.LimitReader(orig, maxChallengeBodyBytes+1))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), orig), orig}
	switch {
	case err != nil:
		return nil, &FormatError{What: what, Err: err}
	case len(b) > maxChallengeBodyBytes:
		return nil, &FormatError{What: what, Err: errors.New("body too large for a challenge")}
	}
	var pr PaymentRequired
	if err := pr.UnmarshalJSON(b); err != nil { // not json.Unmarshal, which scans b once more
		return nil, &FormatError{What: what, Err: errors.New("no PAYMENT-REQUIRED header, and the body is not an x402 challenge: " + err.Error())}
	}
	return &pr, nil
}
