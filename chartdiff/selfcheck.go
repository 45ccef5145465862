package chartdiff

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// SelfCheckReport is what SelfCheck found out about the path between the client and the service.
type SelfCheckReport struct {
	// KeyHeader is the header the client sends its API key in (x-phm-key).
	KeyHeader string
	// KeyArrives reports that a well-formed key that does not exist, sent in KeyHeader, was
	// refused with 401 invalid_api_key, which proves the header arrived. An answer of 200
	// means it did not: the service treated the probe as anonymous.
	KeyArrives bool
	// ProbeStatus and ProbeCode are the status and error code of the probe's answer.
	ProbeStatus int
	ProbeCode   string
	// Headers lists every authentication header the service reported in /meta?diag=1: the
	// length the client sent and the length the service received. It is empty when the service
	// sent no diagnostics.
	Headers []HeaderCheck
	// KeyNotUsed is set when the client has no API key while CHARTDIFF_API_KEY is set: it says
	// why the variable was not used (the address was given with WithBaseURL) and how to send
	// the key. The probe needs no key, but the client's other calls go out anonymously.
	KeyNotUsed string
}

// HeaderCheck is the fate of one authentication header.
type HeaderCheck struct {
	// Name is the header's name, lower-case.
	Name string
	// Sent is the length of the value the client sent, 0 when it sent none.
	Sent int
	// Received is the length the service reported receiving; 0 means it did not arrive.
	Received int
}

// Arrived reports whether the service received the header.
func (h HeaderCheck) Arrived() bool { return h.Received > 0 }

// Intact reports whether the header was sent and arrived with the length it was sent with.
func (h HeaderCheck) Intact() bool { return h.Sent > 0 && h.Received == h.Sent }

// Header returns the check of the named header (matched case-insensitively).
func (r *SelfCheckReport) Header(name string) (HeaderCheck, bool) {
	for _, h := range r.Headers {
		if strings.EqualFold(h.Name, name) {
			return h, true
		}
	}
	return HeaderCheck{}, false
}

// OK reports whether the key header arrives: the probe was refused as invalid and, when the
// service sent diagnostics for the key header, it arrived intact.
func (r *SelfCheckReport) OK() bool {
	h, reported := r.Header(r.KeyHeader)
	return r.KeyArrives && (!reported || h.Intact())
}

// String describes the report, one line per finding, naming which headers arrive.
func (r *SelfCheckReport) String() string {
	var b strings.Builder
	if r.KeyArrives {
		fmt.Fprintf(&b, "%s arrives: a nonexistent key was refused (%d %s)", r.KeyHeader, r.ProbeStatus, r.ProbeCode)
	} else {
		fmt.Fprintf(&b, "%s does NOT arrive: a nonexistent key was answered with %d, as for an anonymous caller", r.KeyHeader, r.ProbeStatus)
	}
	for _, h := range r.Headers {
		b.WriteString("\n")
		switch {
		case h.Sent == 0 && h.Arrived():
			fmt.Fprintf(&b, "%s: not sent, yet received with %d bytes", h.Name, h.Received)
		case h.Sent == 0:
			fmt.Fprintf(&b, "%s: not sent", h.Name)
		case h.Intact():
			fmt.Fprintf(&b, "%s: arrives (%d bytes)", h.Name, h.Received)
		case h.Arrived():
			fmt.Fprintf(&b, "%s: arrives altered (sent %d bytes, received %d)", h.Name, h.Sent, h.Received)
		default:
			fmt.Fprintf(&b, "%s: does NOT arrive (sent %d bytes)", h.Name, h.Sent)
		}
	}
	if r.KeyNotUsed != "" {
		b.WriteString("\nthe client sends no API key: " + r.KeyNotUsed)
	}
	return b.String()
}

// SelfCheck checks that the API key header reaches the service, as the API description
// recommends. A key that does not arrive is not an error on the wire: the caller silently gets
// anonymous limits.
//
// It sends a well-formed random key that does not exist in x-phm-key to GET /charts/1 and
// expects 401 invalid_api_key (a 200 means the header was dropped on the way), then reads
// GET /meta?diag=1 with the same probe key, plus the account token in x-hm-token when the
// client has one, and reports the length the service received for each authentication header.
// The client's own API key is never sent by SelfCheck; when it has none while
// CHARTDIFF_API_KEY is set, the report's KeyNotUsed says why and how to send it.
//
// The report is returned whenever the probe got an answer. The error is ErrKeyHeaderDropped
// (wrapped with the report's text) when the key header does not arrive intact, the failure of a
// request, or an error saying the service sent no diagnostics.
func (c *Client) SelfCheck(ctx context.Context) (*SelfCheckReport, error) {
	probe := randomKey()
	creds := []httpcore.Credential{{Header: KeyHeader, Value: probe}}
	report := &SelfCheckReport{KeyHeader: KeyHeader, KeyNotUsed: c.keyNotUsed("SelfCheck")}
	resp, err := c.do(ctx, &httpcore.Request{Method: http.MethodGet, Path: "/charts/1", Credentials: creds}, nil)
	switch {
	case err == nil:
		report.ProbeStatus = resp.StatusCode
	case errors.Is(err, ErrInvalidAPIKey):
		var ae *sdk.APIError
		errors.As(err, &ae)
		report.KeyArrives, report.ProbeStatus, report.ProbeCode = true, ae.StatusCode, ae.Code
	default:
		return nil, err
	}

	sent := map[string]int{strings.ToLower(KeyHeader): len(probe)}
	if cr := c.creds.Load(); cr.account != nil {
		creds = append(creds, cr.account...)
		sent[strings.ToLower(AccountTokenHeader)] = len(cr.token)
	}
	info, err := c.buildInfo(ctx, &BuildInfoParams{Diagnostics: true}, creds)
	if err != nil {
		return report, err
	}
	if info.Diag == nil {
		return report, fmt.Errorf("%s: self-check: GET /meta?diag=1 returned no header diagnostics", serviceName)
	}
	for name, n := range info.Diag.HeaderLengths {
		name = strings.ToLower(name)
		// The names are the server's text, which the report's and the error's text quote.
		report.Headers = append(report.Headers, HeaderCheck{Name: c.core.Redact(name), Sent: sent[name], Received: n})
	}
	sort.Slice(report.Headers, func(i, j int) bool { return report.Headers[i].Name < report.Headers[j].Name })
	if !report.OK() {
		return report, fmt.Errorf("%w:\n%s", ErrKeyHeaderDropped, report)
	}
	return report, nil
}

// randomKey draws a well-formed key, sk- and 32 hexadecimal characters, from 128 random bits:
// no existing key can match it.
func randomKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails since Go 1.24
	return "sk-" + hex.EncodeToString(b[:])
}
