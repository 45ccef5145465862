package productdata

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/jsonmember"
)

// perMinuteWait is how long the service asks a caller to wait after its per-minute limit
// (code 501, "retry in 1 minute"); the retry policy's MaxRetryAfter caps it (30 s by default).
const perMinuteWait = time.Minute

// codeRateLimited is the business code of the per-minute limit, the one failure the service
// answers without acting on the request.
const codeRateLimited = 501

// Units is what one answer said about the account's request units. Neither field is part of
// the API description, so each is nil when the answer did not carry it.
type Units struct {
	// Left is the number of request units left on the account (RequestLeft).
	Left *int
	// Consumed is the number of units this call consumed (RequestConsumed).
	Consumed *int
}

// envelope receives a successful answer: the client's Decode fills it and decodes Data into
// data.
type envelope struct {
	// data is where Data is decoded; nil keeps it only as raw.
	data any
	// raw is Data as sent, after any gzip and base64 were undone.
	raw     json.RawMessage
	message string
	units   Units
	// sent is the number of the call's latest attempt, in the order the client's attempts
	// were sent, so that RequestUnits keeps the units of the newest request whatever order the
	// answers arrive in.
	sent atomic.Int64
}

// envelopeKey is the context key of a call's *envelope.
type envelopeKey struct{}

// wireEnvelope is the envelope as sent. encoding/json matches its keys in any letter case,
// so the PascalCase of successful answers and the camelCase of some platforms' errors
// ({"code":11,"message":"No data available"}) both decode. Data is kept as sent: it is read
// only once the Code says success.
type wireEnvelope struct {
	Code            jsonmember.Required[int] `json:"Code"`
	Message         json.RawMessage          `json:"Message"`
	Data            json.RawMessage          `json:"Data"`
	RequestLeft     jsonmember.Optional[int] `json:"RequestLeft"`
	RequestConsumed jsonmember.Optional[int] `json:"RequestConsumed"`
}

// parsed is an envelope read from a body.
type parsed struct {
	code    int
	message string
	data    json.RawMessage
	units   Units
}

// parseEnvelope reads a body: a JSON envelope, or one sent as base64 of gzip (or as bare
// gzip), with Data itself possibly sent as a base64-of-gzip string. Code is required and must
// be an integer; Data is required when Code is 0, and is then decoded into target (when not
// nil); RequestLeft and RequestConsumed are read when present. Data is never read for a
// failure.
func parseEnvelope(body []byte, target any) (parsed, error) {
	body, err := unwrapBody(body)
	if err != nil {
		return parsed{}, err
	}
	var w wireEnvelope
	if err := json.Unmarshal(body, &w); err != nil {
		return parsed{}, fmt.Errorf("envelope: %w", err)
	}
	p := parsed{message: messageText(w.Message), units: Units{Left: w.RequestLeft.Ptr(), Consumed: w.RequestConsumed.Ptr()}}
	if p.code, err = w.Code.Value("Code"); err != nil {
		return p, fmt.Errorf("envelope: %w", err)
	}
	if p.code != 0 {
		return p, nil
	}
	if len(w.Data) == 0 {
		return p, errors.New(`envelope: field "Data" is missing`)
	}
	if p.data, err = unwrapData(w.Data); err != nil || target == nil {
		return p, err
	}
	return p, json.Unmarshal(p.data, target)
}

// messageText returns Message as text: a string's value, "" for null or absent, and the JSON
// text of anything else.
func messageText(raw json.RawMessage) string {
	if len(raw) == 0 || jsonmember.IsNull(raw) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// gzipMagic starts every gzip stream; gzipBase64 is how base64 writes it.
var (
	gzipMagic  = []byte{0x1f, 0x8b}
	gzipBase64 = []byte("H4sI")
)

// maxInflated caps a decompressed body, so that a small compressed one cannot exhaust memory.
const maxInflated = httpcore.MaxResponseBytes

// unwrapBody returns the JSON of a body, undoing the base64-of-gzip (optionally quoted as a
// JSON string) or bare gzip some answers arrive in.
func unwrapBody(body []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return nil, errors.New("envelope: empty body")
	case trimmed[0] == '{':
		return trimmed, nil
	case bytes.HasPrefix(trimmed, gzipMagic):
		return inflate(trimmed, maxInflated)
	case trimmed[0] == '"':
		var s string
		if err := json.Unmarshal(trimmed, &s); err != nil {
			return nil, fmt.Errorf("envelope: %w", err)
		}
		trimmed = []byte(s)
	}
	if !bytes.HasPrefix(trimmed, gzipBase64) {
		return nil, errors.New("envelope: body is neither a JSON object nor base64 of gzip")
	}
	return inflateBase64(trimmed)
}

// unwrapData returns Data as JSON: a string holding base64 of gzip is decoded, anything else
// is returned as it is.
func unwrapData(data json.RawMessage) (json.RawMessage, error) {
	if len(data) < 6 || data[0] != '"' || !bytes.HasPrefix(data[1:], gzipBase64) {
		return data, nil
	}
	out, err := unwrapBody(data)
	if err != nil {
		return nil, fmt.Errorf("envelope: Data: %w", err)
	}
	if !json.Valid(out) {
		return nil, errors.New("envelope: Data: the decompressed text is not JSON")
	}
	return out, nil
}

// inflateBase64 decodes standard base64 (padded or not, line breaks allowed) and then gzip.
func inflateBase64(b []byte) ([]byte, error) {
	b = bytes.TrimRight(bytes.Join(bytes.Fields(b), nil), "=")
	raw := make([]byte, base64.RawStdEncoding.DecodedLen(len(b)))
	n, err := base64.RawStdEncoding.Decode(raw, b)
	if err != nil {
		return nil, fmt.Errorf("base64 of gzip: %w", err)
	}
	return inflate(raw[:n], maxInflated)
}

// inflate decompresses a gzip stream, refusing one that inflates past limit bytes.
func inflate(b []byte, limit int) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	if len(out) > limit {
		return nil, fmt.Errorf("gzip: decompressed body exceeds %d bytes", limit)
	}
	return bytes.TrimSpace(out), nil
}

// decode is the client's Service.Decode: it reads the envelope of every 2xx answer, counts
// its request units, turns a non-zero Code into an *httpcore.Failure (retried only for the
// per-minute limit, which the service answers without acting) and decodes Data into the
// request's *envelope.
func (c *Client) decode(body []byte, out any) error {
	env, _ := out.(*envelope)
	if env == nil {
		env = &envelope{}
	}
	p, err := parseEnvelope(body, env.data)
	c.units.record(p.units, env.sent.Load())
	if err != nil {
		return err
	}
	if p.code != 0 {
		f := &httpcore.Failure{Code: strconv.Itoa(p.code), Message: p.message}
		if p.code == codeRateLimited {
			f.Retry, f.RetryAfter = true, perMinuteWait
		}
		return f
	}
	env.raw, env.message, env.units = p.data, p.message, p.units
	return nil
}

// decodeErrorBody reads the code and message of a non-2xx answer: the service's envelope in
// either letter case, and otherwise the common JSON error shapes.
func decodeErrorBody(body []byte) (code, message string) {
	if p, err := parseEnvelope(body, nil); err == nil || p.code != 0 {
		return strconv.Itoa(p.code), p.message
	}
	return httpcore.DecodeErrorBody(body)
}
