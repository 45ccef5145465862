package wire

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// Header names of the x402 HTTP transport. Go canonicalises header keys, so these work with
// http.Header.Get and Set as written; the server may send them in any case.
const (
	// HeaderPaymentRequired carries the v2 challenge (a PaymentRequired) on a 402 response.
	HeaderPaymentRequired = "PAYMENT-REQUIRED"
	// HeaderPaymentSignature carries the v2 PaymentPayload on the paid request.
	HeaderPaymentSignature = "PAYMENT-SIGNATURE"
	// HeaderPaymentResponse carries the v2 SettleResponse on the answer to a paid request.
	HeaderPaymentResponse = "PAYMENT-RESPONSE"
	// HeaderPaymentV1 carries the v1 PaymentPayload on the paid request.
	HeaderPaymentV1 = "X-PAYMENT"
	// HeaderPaymentResponseV1 carries the v1 SettleResponse on the answer to a paid request.
	HeaderPaymentResponseV1 = "X-PAYMENT-RESPONSE"
)

// maxHeaderValueBytes caps an x402 header value this package will decode.
const maxHeaderValueBytes = 64 << 10

// maxChallengeBodyBytes caps the 402 body read when looking for a v1 challenge.
const maxChallengeBodyBytes = 1 << 20

// encodeHeaderValue encodes compact JSON the way every reference implementation expects it:
// standard base64 with padding. An error of the encoding to JSON is returned as it is.
func encodeHeaderValue(compactJSON []byte, err error) (string, error) {
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(compactJSON), nil
}

// errHeaderEncoding is the cause reported for a header value that is neither base64 nor JSON.
var errHeaderEncoding = errors.New("neither base64 of JSON nor JSON")

// decodeHeaderValue returns the JSON inside an x402 header value. It is lenient, because
// servers in the wild differ: standard base64 with or without padding, the URL alphabet with
// or without padding, or the JSON itself. The result is not yet checked to be valid JSON.
func decodeHeaderValue(v string) ([]byte, error) {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		return nil, errors.New("empty value")
	case len(v) > maxHeaderValueBytes:
		return nil, errors.New("value too long")
	case v[0] == '{':
		return []byte(v), nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(v); err == nil {
			if b = bytes.TrimSpace(b); len(b) > 0 && b[0] == '{' {
				return b, nil
			}
			break
		}
	}
	return nil, errHeaderEncoding
}

// EncodePaymentPayload returns the value of the PAYMENT-SIGNATURE (v1: X-PAYMENT) header for
// p: standard base64, with padding, of its compact JSON.
func EncodePaymentPayload(p *PaymentPayload) (string, error) {
	return encodeHeaderValue(p.MarshalJSON())
}

// DecodePaymentPayload reads a PAYMENT-SIGNATURE or X-PAYMENT header value, as a server does.
// It accepts standard or URL-alphabet base64 with or without padding, or bare JSON; the
// scheme's payload must be a JSON object, which the scheme's package reads (evm, svm). A
// malformed value is a *FormatError.
func DecodePaymentPayload(headerValue string) (*PaymentPayload, error) {
	b, err := decodeHeaderValue(headerValue)
	if err != nil {
		return nil, &FormatError{What: HeaderPaymentSignature, Err: err}
	}
	var p PaymentPayload
	if err := p.UnmarshalJSON(b); err != nil { // not json.Unmarshal, which scans b once more
		return nil, &FormatError{What: HeaderPaymentSignature, Err: err}
	}
	return &p, nil
}

// EncodePaymentRequired returns the value of the PAYMENT-REQUIRED header for a challenge, as
// a server sends it.
func EncodePaymentRequired(p *PaymentRequired) (string, error) {
	return encodeHeaderValue(p.MarshalJSON())
}

// DecodePaymentRequired reads a PAYMENT-REQUIRED header value leniently (standard or
// URL-alphabet base64, with or without padding, or bare JSON). A malformed value is a
// *FormatError; malformed accepts entries are only marked Unusable.
func DecodePaymentRequired(headerValue string) (*PaymentRequired, error) {
	b, err := decodeHeaderValue(headerValue)
	if err != nil {
		return nil, &FormatError{What: HeaderPaymentRequired, Err: err}
	}
	var p PaymentRequired
	if err := p.UnmarshalJSON(b); err != nil { // not json.Unmarshal, which scans b once more
		return nil, &FormatError{What: HeaderPaymentRequired, Err: err}
	}
	return &p, nil
}

// EncodeSettleResponse returns the value of the PAYMENT-RESPONSE header for a settlement
// result, as a server sends it: standard base64 of the compact JSON that encoding/json writes
// for s without HTML escaping. Extensions must be valid JSON when set.
func EncodeSettleResponse(s *SettleResponse) (string, error) {
	if len(s.Extensions) > 0 && !json.Valid(s.Extensions) {
		return "", errors.New("x402: SettleResponse.Extensions is not valid JSON")
	}
	return encodeHeaderValue(MarshalCompact(s))
}

// DecodeSettleResponse reads a PAYMENT-RESPONSE or X-PAYMENT-RESPONSE header value leniently
// (like DecodePaymentRequired). The success field is required, and a successful settlement
// must name its transaction and network. A network given by its x402 v1 name is translated
// to CAIP-2 (RawNetwork keeps the name). A malformed value is a *FormatError.
func DecodeSettleResponse(headerValue string) (*SettleResponse, error) {
	b, err := decodeHeaderValue(headerValue)
	if err != nil {
		return nil, &FormatError{What: HeaderPaymentResponse, Err: err}
	}
	var w struct {
		SettleResponse
		Success *bool `json:"success"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, &FormatError{What: HeaderPaymentResponse, Err: err}
	}
	switch {
	case w.Success == nil:
		return nil, &FormatError{What: HeaderPaymentResponse, Err: errors.New("success is missing")}
	case *w.Success && (w.Transaction == "" || w.Network == ""):
		return nil, &FormatError{What: HeaderPaymentResponse, Err: errors.New("a successful settlement must name its transaction and network")}
	}
	s := w.SettleResponse
	s.Success = *w.Success
	if n, err := NormalizeNetwork(s.Network); err == nil && n != s.Network {
		s.Network, s.RawNetwork = n, s.Network
	}
	if string(s.Extensions) == "null" {
		s.Extensions = nil
	}
	return &s, nil
}
