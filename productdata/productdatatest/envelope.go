package productdatatest

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"net/http"
)

// The business codes the fake answers with (the service's Amazon code table).
const (
	codeFailed         = -1
	codeOK             = 0
	codeBadParams      = 10
	codeNoData         = 11
	codeExists         = 12
	codeNoReviews      = 13
	codeTooManyASINs   = 15
	codeUnsupported    = 16
	codeCalculating    = 20
	codeTooOld         = 23
	codeNoProduct      = 97
	codeCollectFailed  = 98
	codeCollecting     = 99
	codeIPNotAllowed   = 400
	codeNotOpen        = 401
	codePerMinuteLimit = 501
	codeNoRequestsLeft = 694
)

// The fixed messages, in the wording of the service's code table.
const (
	msgFailed         = "Execution failed, please try again later"
	msgNoData         = "No data available"
	msgExists         = "Data already exists"
	msgNoReviews      = "First-page review data does not exist, collect the reviews first"
	msgTooManyASINs   = "ASIN query count exceeded: a single request supports up to 10 ASINs"
	msgUnsupported    = "Endpoint not supported: this site does not support this endpoint"
	msgCalculating    = "Real-time data is being calculated, please retry later"
	msgTooOld         = "Data beyond two years is not supported"
	msgNoProduct      = "ASIN does not exist"
	msgCollectFailed  = "Collection failed, please retry later"
	msgCollecting     = "Collecting: real-time fetching in progress, please retry later"
	msgIPNotAllowed   = "Unverified IP: the current IP is not in the whitelist"
	msgBadKey         = "Endpoint not open: invalid Account-SK"
	msgNotOpen        = "Endpoint not open: check the endpoint name and whether your plan includes it"
	msgPerMinuteLimit = "Per-minute request limit reached, please retry in 1 minute"
	msgNoRequestsLeft = "Insufficient request remaining, or this API is not activated on your account"
)

// codeMessages are the fixed messages of the codes, for faults injected without a message.
var codeMessages = map[int]string{
	codeFailed: msgFailed, codeNoData: msgNoData, codeExists: msgExists, codeNoReviews: msgNoReviews,
	codeTooManyASINs: msgTooManyASINs, codeUnsupported: msgUnsupported, codeCalculating: msgCalculating,
	codeTooOld: msgTooOld, codeNoProduct: msgNoProduct, codeCollectFailed: msgCollectFailed,
	codeCollecting: msgCollecting, codeIPNotAllowed: msgIPNotAllowed, codeNotOpen: msgNotOpen,
	codePerMinuteLimit: msgPerMinuteLimit, codeNoRequestsLeft: msgNoRequestsLeft,
}

// envelope is the service's answer on every platform's success and on the failures of the
// Amazon, Shopee and Walmart sites, with its members in the service's order.
type envelope struct {
	RequestLeft     int             `json:"RequestLeft"`
	RequestConsumed int             `json:"RequestConsumed"`
	Code            int             `json:"Code"`
	Message         *string         `json:"Message"`
	Data            json.RawMessage `json:"Data"`
	// RequestCount is sent by the Walmart site only, always 0.
	RequestCount *int `json:"RequestCount,omitempty"`
}

// lowercaseEnvelope is the failure answer of the 1688, Temu and TikTok sites.
type lowercaseEnvelope struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// answer is what the pipeline sends back for one call.
type answer struct {
	status    int
	code      int
	message   string
	data      any
	left      int
	consumed  int
	lowercase bool // send lowercaseEnvelope when code is not 0
	gzipData  bool // send Data as base64 of gzip
	gzipBody  bool // send the whole body as base64 of gzip
	walmart   bool // add RequestCount
}

// encode renders the answer's body and content type.
func (a answer) encode() ([]byte, string, error) {
	var v any
	if a.code != codeOK && a.lowercase {
		v = lowercaseEnvelope{Code: a.code, Message: a.message}
	} else {
		data, err := marshal(a.data)
		if err != nil {
			return nil, "", err
		}
		if a.code == codeOK && a.gzipData {
			if data, err = marshal(gzipBase64(data)); err != nil {
				return nil, "", err
			}
		}
		env := envelope{RequestLeft: a.left, RequestConsumed: a.consumed, Code: a.code, Data: data}
		if a.message != "" {
			env.Message = &a.message
		}
		if a.walmart {
			env.RequestCount = new(int)
		}
		v = env
	}
	body, err := marshal(v)
	if err != nil {
		return nil, "", err
	}
	if a.gzipBody {
		return []byte(gzipBase64(body)), "text/plain; charset=utf-8", nil
	}
	return body, "application/json; charset=utf-8", nil
}

// send writes the answer.
func (a answer) send(w http.ResponseWriter) {
	body, contentType, err := a.encode()
	if err != nil {
		http.Error(w, "internal error: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(a.status)
	_, _ = w.Write(body)
}

// marshal encodes v as compact JSON without HTML escaping, as the service sends it.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// gzipBase64 returns the standard base64 (with padding) of the gzip of b.
func gzipBase64(b []byte) string {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(b) // writes to a bytes.Buffer do not fail
	_ = zw.Close()
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}
