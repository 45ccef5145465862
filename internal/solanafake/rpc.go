package solanafake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/gagliardetto/solana-go"
)

// rpcAPIVersion is the node version the fake reports in every answer's context.
const rpcAPIVersion = "2.2.7"

// rpcRequest is a JSON-RPC 2.0 request.
type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// rpcResponse is a JSON-RPC 2.0 answer.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
	ID      json.RawMessage `json:"id"`
}

// rpcError is the error member of a JSON-RPC 2.0 answer.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// rpcMethod is a JSON-RPC method; it runs under the cluster's lock at the time now.
type rpcMethod func(c *Cluster, params []json.RawMessage, now time.Time) (any, *Error)

// rpcMethods are the methods the node serves.
var rpcMethods = map[string]rpcMethod{
	"getLatestBlockhash":                (*Cluster).getLatestBlockhash,
	"getBlockHeight":                    (*Cluster).getBlockHeight,
	"getSlot":                           (*Cluster).getSlot,
	"getGenesisHash":                    (*Cluster).getGenesisHash,
	"getBalance":                        (*Cluster).getBalance,
	"getAccountInfo":                    (*Cluster).getAccountInfo,
	"getTokenAccountBalance":            (*Cluster).getTokenAccountBalance,
	"getFeeForMessage":                  (*Cluster).getFeeForMessage,
	"getMinimumBalanceForRentExemption": (*Cluster).getMinimumBalanceForRentExemption,
	"sendTransaction":                   (*Cluster).sendTransaction,
	"simulateTransaction":               (*Cluster).simulateTransaction,
	"getSignatureStatuses":              (*Cluster).getSignatureStatuses,
	"getSignaturesForAddress":           (*Cluster).getSignaturesForAddress,
	"getTransaction":                    (*Cluster).getTransaction,
}

// ServeHTTP answers JSON-RPC 2.0 requests, single or batched, at any path, as a Solana node
// does: errors travel in the body of a 200, and a method other than POST is a 405.
func (c *Cluster) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "Used HTTP Method is not allowed. POST or OPTIONS is required", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return
	}
	body = bytes.TrimSpace(body)
	var out any
	if len(body) > 0 && body[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(body, &batch); err != nil {
			out = rpcFailure(nil, &Error{Code: CodeParseError, Message: "Parse error"})
		} else if len(batch) == 0 {
			out = rpcFailure(nil, &Error{Code: CodeInvalidRequest, Message: "Invalid request"})
		} else {
			answers := make([]rpcResponse, len(batch))
			for i, raw := range batch {
				answers[i] = c.call(raw)
			}
			out = answers
		}
	} else {
		out = c.call(body)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// call answers one JSON-RPC request: it counts the method, then answers an injected fault
// or runs the method.
func (c *Cluster) call(raw json.RawMessage) rpcResponse {
	var req rpcRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return rpcFailure(nil, &Error{Code: CodeParseError, Message: "Parse error"})
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		return rpcFailure(req.ID, &Error{Code: CodeInvalidRequest, Message: "Invalid request"})
	}
	var params []json.RawMessage
	if len(req.Params) > 0 && string(req.Params) != "null" {
		if err := json.Unmarshal(req.Params, &params); err != nil {
			return rpcFailure(req.ID, invalidParams("Invalid params: expected an array of parameters"))
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[req.Method]++
	if f := c.takeFault(req.Method); f != nil {
		return rpcFailure(req.ID, f)
	}
	method, ok := rpcMethods[req.Method]
	if !ok {
		return rpcFailure(req.ID, &Error{Code: CodeMethodNotFound, Message: "Method not found"})
	}
	result, rerr := method(c, params, c.clock())
	if rerr != nil {
		return rpcFailure(req.ID, rerr)
	}
	encoded, err := json.Marshal(result)
	if err != nil {
		panic("solanafake: an RPC result does not encode: " + err.Error())
	}
	return rpcResponse{JSONRPC: "2.0", Result: encoded, ID: idOrNull(req.ID)}
}

// rpcFailure returns an error answer.
func rpcFailure(id json.RawMessage, e *Error) rpcResponse {
	return rpcResponse{JSONRPC: "2.0", Error: e.wire(), ID: idOrNull(id)}
}

// idOrNull returns id, or JSON null when the request had none.
func idOrNull(id json.RawMessage) json.RawMessage {
	if len(id) == 0 {
		return json.RawMessage("null")
	}
	return id
}

// rpcContext is the context of an answer that carries one.
type rpcContext struct {
	APIVersion string `json:"apiVersion"`
	Slot       uint64 `json:"slot"`
}

// withContext wraps value in {"context":{...},"value":value}, as a node does, at slot.
func withContext(slot uint64, value any) map[string]any {
	return map[string]any{"context": rpcContext{rpcAPIVersion, slot}, "value": value}
}

// param decodes the i-th parameter into v; an absent optional parameter leaves v alone.
func param(params []json.RawMessage, i int, required bool, v any) *Error {
	if i >= len(params) || string(params[i]) == "null" {
		if required {
			return invalidParams(fmt.Sprintf("Invalid params: missing parameter %d", i))
		}
		return nil
	}
	if err := json.Unmarshal(params[i], v); err != nil {
		return invalidParams("Invalid params: " + err.Error())
	}
	return nil
}

// pubkeyParam decodes the i-th parameter as a base58 address.
func pubkeyParam(params []json.RawMessage, i int) (solana.PublicKey, *Error) {
	var text string
	if e := param(params, i, true, &text); e != nil {
		return solana.PublicKey{}, e
	}
	pk, err := solana.PublicKeyFromBase58(text)
	if err != nil {
		return solana.PublicKey{}, invalidParams("Invalid param: Invalid")
	}
	return pk, nil
}

// signatureParam decodes a base58 transaction signature.
func signatureParam(text string) (solana.Signature, *Error) {
	sig, err := solana.SignatureFromBase58(text)
	if err != nil {
		return solana.Signature{}, invalidParams("Invalid param: Invalid")
	}
	return sig, nil
}

// commitmentConfig is the configuration object of the methods that take only a commitment.
type commitmentConfig struct {
	Commitment commitment `json:"commitment"`
}

// commitment returns cfg's commitment, finalized by default as on a node; an unknown one is
// a malformed parameter.
func (cfg commitmentConfig) commitment() (commitment, *Error) {
	switch cfg.Commitment {
	case "":
		return commitmentFinalized, nil
	case commitmentProcessed, commitmentConfirmed, commitmentFinalized:
		return cfg.Commitment, nil
	}
	return "", invalidParams("Invalid params: unknown commitment " + string(cfg.Commitment))
}

// commitmentParam returns the commitment of the configuration object at parameter i.
func commitmentParam(params []json.RawMessage, i int) (commitment, *Error) {
	var cfg commitmentConfig
	if e := param(params, i, false, &cfg); e != nil {
		return "", e
	}
	return cfg.commitment()
}

// atLeastConfirmed refuses the processed commitment, as the methods that read confirmed
// blocks do.
func atLeastConfirmed(cm commitment) *Error {
	if cm == commitmentProcessed {
		return invalidParams("Method does not support commitment below `confirmed`")
	}
	return nil
}
