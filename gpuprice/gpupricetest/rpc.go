package gpupricetest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/gagliardetto/solana-go"
)

// rpcAPIVersion is the node version the fake reports in every answer's context.
const rpcAPIVersion = "2.2.7"

// The JSON-RPC error codes of a Solana node.
const (
	codeParseError            = -32700
	codeInvalidRequest        = -32600
	codeMethodNotFound        = -32601
	codeInvalidParams         = -32602
	codePreflightFailure      = -32002
	codeSignatureVerification = -32003
)

// maxTransactionSize is the largest wire transaction a node accepts, in bytes.
const maxTransactionSize = 1232

// Outcome is what the fake node did with a transaction it received.
type Outcome string

// The outcomes.
const (
	// OutcomeApplied: it landed and succeeded; its instructions changed the ledger.
	OutcomeApplied Outcome = "applied"
	// OutcomeFailed: sent with skipPreflight, it landed with an error; the ledger did not
	// change, and getSignatureStatuses reports the error.
	OutcomeFailed Outcome = "failed"
	// OutcomeRejected: the node answered with a JSON-RPC error; it never landed.
	OutcomeRejected Outcome = "rejected"
	// OutcomeDropped: sent with skipPreflight, its signature was answered but it never
	// lands (a bad signature or an unknown or expired blockhash).
	OutcomeDropped Outcome = "dropped"
	// OutcomeDuplicate: sent with skipPreflight, its signature had already landed; it was
	// not applied again.
	OutcomeDuplicate Outcome = "duplicate"
)

// ReceivedTransaction is a transaction sendTransaction received.
type ReceivedTransaction struct {
	// Signature is its first signature; zero when it could not be decoded.
	Signature     solana.Signature
	SkipPreflight bool
	Outcome       Outcome
	// Error is the node's error text, empty when the transaction was applied.
	Error string
}

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

// rpcError is a JSON-RPC 2.0 error.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// invalidParams returns the node's answer to a malformed parameter.
func invalidParams(message string) *rpcError {
	return &rpcError{Code: codeInvalidParams, Message: message}
}

// rpcMethod is a JSON-RPC method; it runs under the server's lock.
type rpcMethod func(s *Server, params []json.RawMessage, now time.Time) (any, *rpcError)

// rpcMethods are the methods the fake node implements.
var rpcMethods = map[string]rpcMethod{
	"getLatestBlockhash":                (*Server).getLatestBlockhash,
	"getBlockHeight":                    (*Server).getBlockHeight,
	"getBalance":                        (*Server).getBalance,
	"getAccountInfo":                    (*Server).getAccountInfo,
	"getTokenAccountBalance":            (*Server).getTokenAccountBalance,
	"getFeeForMessage":                  (*Server).getFeeForMessage,
	"getMinimumBalanceForRentExemption": (*Server).getMinimumBalanceForRentExemption,
	"sendTransaction":                   (*Server).sendTransaction,
	"getSignatureStatuses":              (*Server).getSignatureStatuses,
}

// serveRPC answers JSON-RPC 2.0 requests, single or batched, as a Solana node does: errors
// travel in the body of a 200.
func (s *Server) serveRPC(w http.ResponseWriter, r *http.Request) {
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
			out = rpcFailure(nil, &rpcError{Code: codeParseError, Message: "Parse error"})
		} else if len(batch) == 0 {
			out = rpcFailure(nil, &rpcError{Code: codeInvalidRequest, Message: "Invalid request"})
		} else {
			answers := make([]rpcResponse, len(batch))
			for i, raw := range batch {
				answers[i] = s.call(raw)
			}
			out = answers
		}
	} else {
		out = s.call(body)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// call answers one JSON-RPC request.
func (s *Server) call(raw json.RawMessage) rpcResponse {
	var req rpcRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return rpcFailure(nil, &rpcError{Code: codeParseError, Message: "Parse error"})
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		return rpcFailure(req.ID, &rpcError{Code: codeInvalidRequest, Message: "Invalid request"})
	}
	var params []json.RawMessage
	if len(req.Params) > 0 && string(req.Params) != "null" {
		if err := json.Unmarshal(req.Params, &params); err != nil {
			return rpcFailure(req.ID, invalidParams("Invalid params: expected an array of parameters"))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rpcCalls[req.Method]++
	method, ok := rpcMethods[req.Method]
	if !ok {
		return rpcFailure(req.ID, &rpcError{Code: codeMethodNotFound, Message: "Method not found"})
	}
	result, rerr := method(s, params, s.now())
	if rerr != nil {
		return rpcFailure(req.ID, rerr)
	}
	encoded, err := json.Marshal(result)
	if err != nil {
		panic("gpupricetest: an RPC result does not encode: " + err.Error())
	}
	return rpcResponse{JSONRPC: "2.0", Result: encoded, ID: idOrNull(req.ID)}
}

// rpcFailure returns an error answer.
func rpcFailure(id json.RawMessage, e *rpcError) rpcResponse {
	return rpcResponse{JSONRPC: "2.0", Error: e, ID: idOrNull(id)}
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

// withContext wraps value in {"context":{...},"value":value}, as a node does.
func (s *Server) withContext(now time.Time, value any) map[string]any {
	return map[string]any{"context": rpcContext{rpcAPIVersion, s.chain.slot(now)}, "value": value}
}

// param decodes the i-th parameter into v; an absent optional parameter leaves v alone.
func param(params []json.RawMessage, i int, required bool, v any) *rpcError {
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
func pubkeyParam(params []json.RawMessage, i int) (solana.PublicKey, *rpcError) {
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

// getLatestBlockhash produces a block and answers its blockhash.
func (s *Server) getLatestBlockhash(_ []json.RawMessage, now time.Time) (any, *rpcError) {
	hash, lastValid := s.chain.latestBlockhash(now)
	return s.withContext(now, map[string]any{"blockhash": hash.String(), "lastValidBlockHeight": lastValid}), nil
}

// getBlockHeight answers the current block height.
func (s *Server) getBlockHeight(_ []json.RawMessage, now time.Time) (any, *rpcError) {
	return s.chain.height(now), nil
}

// getBalance answers the lamports of an account: a wallet's FundSOL balance, or the
// rent-exempt balance of a token account or mint.
func (s *Server) getBalance(params []json.RawMessage, now time.Time) (any, *rpcError) {
	pk, e := pubkeyParam(params, 0)
	if e != nil {
		return nil, e
	}
	lamports := s.chain.lamports[pk]
	if _, ok := s.chain.tokens[pk]; ok {
		lamports = tokenAccountLamports
	} else if _, ok := s.chain.mints[pk]; ok {
		lamports = mintLamports
	}
	return s.withContext(now, lamports), nil
}

// getFeeForMessage answers the fee of a base64 transaction message: 5,000 lamports per
// signature, or null when its blockhash was not issued or has expired.
func (s *Server) getFeeForMessage(params []json.RawMessage, now time.Time) (any, *rpcError) {
	var text string
	if e := param(params, 0, true, &text); e != nil {
		return nil, e
	}
	var m solana.Message
	if err := m.UnmarshalBase64(text); err != nil {
		return nil, invalidParams("failed to deserialize the message: " + err.Error())
	}
	if !s.chain.blockhashValid(m.RecentBlockhash, now) {
		return s.withContext(now, nil), nil
	}
	return s.withContext(now, lamportsPerSignature*uint64(m.Header.NumRequiredSignatures)), nil
}

// getMinimumBalanceForRentExemption answers the rent-exempt minimum balance of an account of
// the given data size.
func (s *Server) getMinimumBalanceForRentExemption(params []json.RawMessage, _ time.Time) (any, *rpcError) {
	var size uint64
	if e := param(params, 0, true, &size); e != nil {
		return nil, e
	}
	return rentExempt(size), nil
}

// getTokenAccountBalance answers a token account's balance, with the errors a node gives
// for a missing account or one that is not a token account.
func (s *Server) getTokenAccountBalance(params []json.RawMessage, now time.Time) (any, *rpcError) {
	pk, e := pubkeyParam(params, 0)
	if e != nil {
		return nil, e
	}
	acc, ok := s.chain.tokens[pk]
	if !ok {
		if _, isMint := s.chain.mints[pk]; isMint || s.chain.lamports[pk] > 0 {
			return nil, invalidParams("Invalid param: not a Token account")
		}
		return nil, invalidParams("Invalid param: could not find account")
	}
	return s.withContext(now, uiTokenAmount(acc.amount, s.chain.mints[acc.mint])), nil
}

// uiTokenAmount is a token amount as a node shows it.
func uiTokenAmount(amount uint64, decimals uint8) map[string]any {
	text := uiAmountString(amount, decimals)
	var ui float64
	_, _ = fmt.Sscan(text, &ui)
	return map[string]any{"amount": fmt.Sprint(amount), "decimals": decimals, "uiAmount": ui, "uiAmountString": text}
}

// uiAmountString writes amount with the decimal point placed and trailing zeros removed.
func uiAmountString(amount uint64, decimals uint8) string {
	p := uint64(1)
	for range decimals {
		p *= 10
	}
	whole, frac := amount/p, amount%p
	if frac == 0 {
		return fmt.Sprint(whole)
	}
	text := fmt.Sprintf("%d.%0*d", whole, int(decimals), frac)
	for text[len(text)-1] == '0' {
		text = text[:len(text)-1]
	}
	return text
}

// accountInfoConfig is the configuration object of getAccountInfo.
type accountInfoConfig struct {
	Encoding  string `json:"encoding"`
	DataSlice *struct {
		Offset int `json:"offset"`
		Length int `json:"length"`
	} `json:"dataSlice"`
}

// getAccountInfo answers an account: a token account or mint owned by the Token program
// with its binary layout, a funded wallet owned by the System program, or null.
func (s *Server) getAccountInfo(params []json.RawMessage, now time.Time) (any, *rpcError) {
	pk, e := pubkeyParam(params, 0)
	if e != nil {
		return nil, e
	}
	var cfg accountInfoConfig
	if e := param(params, 1, false, &cfg); e != nil {
		return nil, e
	}
	if cfg.Encoding == "" {
		cfg.Encoding = "base64"
	}
	var (
		data     []byte
		parsed   any
		owner    = solana.TokenProgramID
		lamports uint64
	)
	if acc, ok := s.chain.tokens[pk]; ok {
		data, lamports = tokenAccountData(acc), tokenAccountLamports
		parsed = map[string]any{"type": "account", "info": map[string]any{
			"isNative": false, "mint": acc.mint.String(), "owner": acc.owner.String(), "state": "initialized",
			"tokenAmount": uiTokenAmount(acc.amount, s.chain.mints[acc.mint]),
		}}
	} else if decimals, ok := s.chain.mints[pk]; ok {
		supply := s.chain.supply(pk)
		data, lamports = mintData(supply, decimals), mintLamports
		parsed = map[string]any{"type": "mint", "info": map[string]any{
			"decimals": decimals, "freezeAuthority": nil, "isInitialized": true, "mintAuthority": nil, "supply": fmt.Sprint(supply),
		}}
	} else if s.chain.lamports[pk] > 0 {
		owner, lamports = solana.SystemProgramID, s.chain.lamports[pk]
	} else {
		return s.withContext(now, nil), nil
	}
	var encoded any
	switch cfg.Encoding {
	case "jsonParsed":
		if parsed != nil {
			encoded = map[string]any{"program": "spl-token", "parsed": parsed, "space": len(data)}
			break
		}
		encoded = solana.Data{Content: data, Encoding: solana.EncodingBase64}
	case "base64", "base58":
		slice := data
		if ds := cfg.DataSlice; ds != nil {
			from := min(max(ds.Offset, 0), len(data))
			slice = data[from:min(from+max(ds.Length, 0), len(data))]
		}
		encoded = solana.Data{Content: slice, Encoding: solana.EncodingType(cfg.Encoding)}
	default:
		return nil, invalidParams("Invalid params: unsupported encoding " + cfg.Encoding + "; the fake node supports base64, base58 and jsonParsed")
	}
	return s.withContext(now, map[string]any{
		"data":       encoded,
		"executable": false,
		"lamports":   lamports,
		"owner":      owner.String(),
		"rentEpoch":  uint64(1<<64 - 1),
		"space":      len(data),
	}), nil
}

// sendOptions is the configuration object of sendTransaction.
type sendOptions struct {
	Encoding      string `json:"encoding"`
	SkipPreflight bool   `json:"skipPreflight"`
}

// sendTransaction decodes, checks and runs a wire transaction. With preflight (the
// default) a transaction that would fail is answered with the node's error and never
// lands; with skipPreflight it lands as failed, or is dropped when its signatures or
// blockhash are bad.
func (s *Server) sendTransaction(params []json.RawMessage, now time.Time) (any, *rpcError) {
	var text string
	if e := param(params, 0, true, &text); e != nil {
		return nil, e
	}
	opts := sendOptions{Encoding: "base58"}
	if e := param(params, 1, false, &opts); e != nil {
		return nil, e
	}
	rec := ReceivedTransaction{SkipPreflight: opts.SkipPreflight, Outcome: OutcomeRejected}
	defer func() { s.chain.received = append(s.chain.received, rec) }()
	reject := func(e *rpcError) (any, *rpcError) {
		rec.Error = e.Message
		return nil, e
	}

	var raw []byte
	switch opts.Encoding {
	case "base64":
		var err error
		if raw, err = base64.StdEncoding.DecodeString(text); err != nil {
			return reject(invalidParams("invalid base64 encoding: " + err.Error()))
		}
	case "base58":
		var b58 solana.Base58
		if err := json.Unmarshal(params[0], &b58); err != nil {
			return reject(invalidParams("invalid base58 encoding: " + err.Error()))
		}
		raw = b58
	default:
		return reject(invalidParams("Invalid params: unsupported encoding " + opts.Encoding))
	}
	if len(raw) > maxTransactionSize {
		return reject(invalidParams(fmt.Sprintf("%s encoded solana_sdk::transaction::versioned::VersionedTransaction too large: %d bytes (max: %d bytes)", opts.Encoding, len(raw), maxTransactionSize)))
	}
	tx, err := solana.TransactionFromBytes(raw)
	if err != nil {
		return reject(invalidParams("failed to deserialize solana_sdk::transaction::versioned::VersionedTransaction: " + err.Error()))
	}
	if err := sanitize(tx); err != nil {
		return reject(invalidParams(err.Error()))
	}
	sig := tx.Signatures[0]
	rec.Signature = sig
	message := raw[compactLength(len(tx.Signatures))+len(tx.Signatures)*solana.SignatureLength:]

	if !signaturesValid(tx, message) {
		if opts.SkipPreflight {
			rec.Outcome, rec.Error = OutcomeDropped, "Transaction signature verification failure"
			return sig.String(), nil
		}
		return reject(&rpcError{Code: codeSignatureVerification, Message: "Transaction signature verification failure"})
	}
	var failure *txError
	switch {
	case s.chain.landed[sig] != nil:
		if opts.SkipPreflight {
			rec.Outcome = OutcomeDuplicate
			return sig.String(), nil
		}
		failure = &txError{value: "AlreadyProcessed", text: "This transaction has already been processed"}
	case !s.chain.blockhashValid(tx.Message.RecentBlockhash, now):
		if opts.SkipPreflight {
			rec.Outcome, rec.Error = OutcomeDropped, "Blockhash not found"
			return sig.String(), nil
		}
		failure = &txError{value: "BlockhashNotFound", text: "Blockhash not found"}
	}
	if failure == nil {
		if failure = s.chain.payable(tx); failure != nil && opts.SkipPreflight {
			rec.Outcome, rec.Error = OutcomeDropped, failure.text
			return sig.String(), nil
		}
	}
	var x *execution
	if failure == nil {
		x, failure = s.chain.execute(tx)
	}
	if failure != nil && !opts.SkipPreflight {
		return reject(&rpcError{
			Code:    codePreflightFailure,
			Message: "Transaction simulation failed: " + failure.text,
			Data: map[string]any{
				"accounts": nil, "err": failure.value, "innerInstructions": nil, "logs": append([]string{}, failure.logs...),
				"replacementBlockhash": nil, "returnData": nil, "unitsConsumed": 0,
			},
		})
	}
	landed := &landedTx{slot: s.chain.slot(now), height: s.chain.height(now), err: failure, confirmed: s.cfg.confirmAfter == 0}
	if failure != nil {
		rec.Outcome, rec.Error = OutcomeFailed, failure.text
		s.chain.chargeFee(tx)
	} else {
		s.chain.commit(x)
		rec.Outcome = OutcomeApplied
		landed.transfers = x.transfers
		for _, m := range x.memos {
			landed.memos = append(landed.memos, m.Data)
		}
	}
	s.chain.landed[sig] = landed
	return sig.String(), nil
}

// compactLength returns the size of n in Solana's compact-u16 encoding.
func compactLength(n int) int {
	switch {
	case n < 1<<7:
		return 1
	case n < 1<<14:
		return 2
	default:
		return 3
	}
}

// maxStatusSignatures is the most signatures one getSignatureStatuses call may ask for.
const maxStatusSignatures = 256

// getSignatureStatuses answers the status of each signature: null when unknown (or older
// than the status cache without searchTransactionHistory), else processed, confirmed from
// the configured call on, and finalized after that.
func (s *Server) getSignatureStatuses(params []json.RawMessage, now time.Time) (any, *rpcError) {
	var texts []string
	if e := param(params, 0, true, &texts); e != nil {
		return nil, e
	}
	if len(texts) > maxStatusSignatures {
		return nil, invalidParams(fmt.Sprintf("Too many inputs provided; max %d", maxStatusSignatures))
	}
	var cfg struct {
		SearchTransactionHistory bool `json:"searchTransactionHistory"`
	}
	if e := param(params, 1, false, &cfg); e != nil {
		return nil, e
	}
	sigs := make([]solana.Signature, len(texts))
	for i, t := range texts {
		sig, err := solana.SignatureFromBase58(t)
		if err != nil {
			return nil, invalidParams("Invalid param: Invalid")
		}
		sigs[i] = sig
	}
	height := s.chain.height(now)
	values := make([]any, len(sigs))
	for i, sig := range sigs {
		tx := s.chain.landed[sig]
		if tx == nil || !cfg.SearchTransactionHistory && height > tx.height+statusCacheBlocks {
			continue
		}
		tx.queries++
		var confirmations any
		stage := "finalized"
		switch n := s.cfg.confirmAfter; {
		case tx.queries < n:
			stage, confirmations = "processed", 0
		case tx.queries == n:
			stage, confirmations = "confirmed", 1
		}
		if stage != "processed" {
			tx.confirmed = true
		}
		var errValue, status any = nil, map[string]any{"Ok": nil}
		if tx.err != nil {
			errValue, status = tx.err.value, map[string]any{"Err": tx.err.value}
		}
		values[i] = map[string]any{
			"slot": tx.slot, "confirmations": confirmations, "err": errValue, "status": status, "confirmationStatus": stage,
		}
	}
	return s.withContext(now, values), nil
}
