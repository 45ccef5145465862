package evm

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
)

// maxAnswerBytes bounds the JSON-RPC answer the lookup's transport reads to check its ids:
// far more than a batch of authorizationState calls or the AuthorizationUsed events of a
// range take.
const maxAnswerBytes = 64 << 20

// BatchError reports a JSON-RPC answer whose ids are not exactly those sent: an answer
// missing, repeated, or under an id that was never sent. go-ethereum matches the answers of
// a batch to its calls by id, keeps the first of a repeated one and drops the unknown ones
// unseen, so a node could answer one call with another's result; the lookup's transport
// refuses such an answer whole, and nothing of it is used.
type BatchError struct {
	// Sent is how many calls the request carried.
	Sent int
	// Missing, Repeated and Unknown count the ids sent and not answered, answered more than
	// once, and answered without having been sent.
	Missing, Repeated, Unknown int
}

// Error says what was wrong with the answer's ids.
func (e *BatchError) Error() string {
	return "x402: a JSON-RPC request of " + strconv.Itoa(e.Sent) + " call(s) was answered under other ids (" +
		strconv.Itoa(e.Missing) + " missing, " + strconv.Itoa(e.Repeated) + " repeated, " + strconv.Itoa(e.Unknown) +
		" unknown): nothing of it is used"
}

// idCheck is the HTTP transport of the endpoints a Lookup dials: it sends each JSON-RPC
// request through next and refuses (with a *BatchError) a successful answer to a batch that
// does not carry exactly one answer for each id sent. A single call needs no check: its
// answer is the body of its own HTTP exchange.
type idCheck struct{ next http.RoundTripper }

// rpcID is the id of a JSON-RPC message.
type rpcID struct {
	ID json.RawMessage `json:"id"`
}

// RoundTrip sends req and checks the ids of its answer.
func (c idCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	sent, err := requestIDs(req)
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	resp, err := c.next.RoundTrip(req)
	if err != nil || sent == nil || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(body) > maxAnswerBytes {
		return nil, errors.New("x402: the node's answer is larger than " + strconv.Itoa(maxAnswerBytes>>20) + " MiB")
	}
	if err := checkIDs(sent, body); err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// requestIDs returns the ids of the calls of the batch req carries; nil when it carries a
// single call or no JSON-RPC, which then goes unchecked.
func requestIDs(req *http.Request) ([]string, error) {
	if req.GetBody == nil {
		return nil, nil
	}
	r, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	body, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	ids, _ := batchIDs(body)
	return ids, nil
}

// batchIDs returns the ids, in compact form, of the JSON-RPC batch in body (a JSON array
// of messages); ok is false when body is not one.
func batchIDs(body []byte) (ids []string, ok bool) {
	body = bytes.TrimSpace(body)
	var msgs []rpcID
	if len(body) == 0 || body[0] != '[' || json.Unmarshal(body, &msgs) != nil {
		return nil, false
	}
	ids = make([]string, len(msgs))
	for i, m := range msgs {
		var compact bytes.Buffer
		if json.Compact(&compact, m.ID) == nil {
			ids[i] = compact.String()
		}
	}
	return ids, true
}

// checkIDs checks that the answer body to a batch carries exactly one answer for each of
// the ids sent. An answer that is no JSON-RPC message, or a single message (a node's
// refusal of the whole batch), is left to the client, which refuses it.
func checkIDs(sent []string, body []byte) error {
	got, ok := batchIDs(body)
	if !ok {
		return nil
	}
	want := make(map[string]int, len(sent))
	for _, id := range sent {
		want[id]++
	}
	e := &BatchError{Sent: len(sent)}
	for _, id := range got {
		switch n, known := want[id]; {
		case !known:
			e.Unknown++
		case n == 0:
			e.Repeated++
		default:
			want[id] = n - 1
		}
	}
	for _, n := range want {
		e.Missing += n
	}
	if e.Missing+e.Repeated+e.Unknown > 0 {
		return e
	}
	return nil
}
