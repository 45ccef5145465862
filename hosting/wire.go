package hosting

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"

	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/jsonmember"
)

// The API description names only the envelope (ok, error), preview_url and the members of
// a repository's information; every other member is read leniently (see package jsonmember).
// Each body is decoded once, into a wire type that embeds the envelope.

// envelope is the {ok, error} part of every answer. Its check accepts any payload; the answers
// whose payload has members the API description names replace it with their own.
type envelope struct {
	// OK is the envelope's ok, unset when absent, null or not a boolean (such as "true"), so
	// that such a value is never taken for a failure or a success.
	OK jsonmember.Optional[bool] `json:"ok"`
	// Error is the envelope's error: a text, or an object with a code and a message.
	Error json.RawMessage `json:"error"`
	// Code is a top-level code some services send beside the error text.
	Code jsonmember.Optional[jsonmember.Text] `json:"code"`
}

// env returns e; answer types get it by embedding envelope.
func (e *envelope) env() *envelope { return e }

// check accepts any payload.
func (*envelope) check() error { return nil }

// answer is the wire type of one kind of answer: the envelope plus the payload, whose members
// the API description names checked by check.
type answer interface {
	env() *envelope
	check() error
}

// failure returns the code and the text of an envelope's error: a text is the message, an
// object gives its code and message (or error, or detail).
func (e *envelope) failure() (code, message string) {
	code = string(e.Code.Or(""))
	if len(e.Error) == 0 || jsonmember.IsNull(e.Error) {
		return code, ""
	}
	var text string
	if json.Unmarshal(e.Error, &text) == nil {
		return code, text
	}
	var obj struct {
		Code    jsonmember.Optional[jsonmember.Text] `json:"code"`
		Message jsonmember.Optional[string]          `json:"message"`
		Error   jsonmember.Optional[string]          `json:"error"`
		Detail  jsonmember.Optional[string]          `json:"detail"`
	}
	if json.Unmarshal(e.Error, &obj) == nil {
		message, _ = jsonmember.First(obj.Message, obj.Error, obj.Detail)
		return cmp.Or(string(obj.Code.Or("")), code), message
	}
	return code, string(bytes.TrimSpace(e.Error))
}

// errMissingOK is the decoding error of a 2xx body without a boolean ok.
var errMissingOK = errors.New(`envelope: field "ok" is missing or not a boolean`)

// decodeAnswer is the service's Decode: it reads every 2xx body, once, into out (an answer,
// or nil for an envelope alone). ok false is a failure, whatever the payload holds; a body
// without ok, or whose payload lacks a member the API description names, does not decode.
func decodeAnswer(body []byte, out any) error {
	a, ok := out.(answer) // out comes from Client.do: an answer, or nil
	if !ok {
		a = &envelope{}
	}
	err := json.Unmarshal(body, a)
	env := a.env()
	if ok, set := env.OK.Get(); set && !ok {
		code, msg := env.failure()
		return &httpcore.Failure{Code: code, Message: msg}
	}
	if err != nil {
		return err
	}
	if !env.OK.IsSet() {
		return errMissingOK
	}
	return a.check()
}

// decodeErrorBody is the service's ErrorBody: it reads a non-2xx body's envelope, and
// otherwise the common JSON error shapes. A body that is not JSON (an HTML page) gives
// nothing: the error then quotes the body.
func decodeErrorBody(body []byte) (code, message string) {
	var env envelope
	if json.Unmarshal(body, &env) == nil && (env.OK.IsSet() || len(env.Error) > 0) {
		return env.failure()
	}
	return httpcore.DecodeErrorBody(body)
}
