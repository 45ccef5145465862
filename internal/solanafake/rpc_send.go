package solanafake

import (
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/gagliardetto/solana-go"
)

// wireParam decodes the wire transaction of parameter 0 in the encoding (base58 by default,
// or base64) and sanitizes it.
func wireParam(params []json.RawMessage, encoding string) (*wireTransaction, *Error) {
	var text string
	if e := param(params, 0, true, &text); e != nil {
		return nil, e
	}
	var raw []byte
	switch encoding {
	case "", "base58":
		encoding = "base58"
		var b58 solana.Base58
		if err := json.Unmarshal(params[0], &b58); err != nil {
			return nil, invalidParams("invalid base58 encoding: " + err.Error())
		}
		raw = b58
	case "base64":
		var err error
		if raw, err = base64.StdEncoding.DecodeString(text); err != nil {
			return nil, invalidParams("invalid base64 encoding: " + err.Error())
		}
	default:
		return nil, invalidParams("Invalid params: unsupported encoding " + encoding)
	}
	return decodeWire(raw, encoding)
}

// sendConfig is the configuration object of sendTransaction.
type sendConfig struct {
	Encoding      string `json:"encoding"`
	SkipPreflight bool   `json:"skipPreflight"`
}

// sendTransaction decodes a wire transaction and does with it what Submit does.
func (c *Cluster) sendTransaction(params []json.RawMessage, now time.Time) (any, *Error) {
	var text string
	if e := param(params, 0, true, &text); e != nil {
		return nil, e
	}
	var cfg sendConfig
	if e := param(params, 1, false, &cfg); e != nil {
		return nil, e
	}
	rec := Received{SkipPreflight: cfg.SkipPreflight, Outcome: OutcomeRejected}
	defer func() { c.received = append(c.received, rec) }()
	w, e := wireParam(params, cfg.Encoding)
	if e != nil {
		rec.Error = e.Message
		return nil, e
	}
	sig, e := c.send(w, SendOptions{SkipPreflight: cfg.SkipPreflight}, now, &rec)
	if e != nil {
		return nil, e
	}
	return sig.String(), nil
}

// simulateConfig is the configuration object of simulateTransaction.
type simulateConfig struct {
	Encoding               string `json:"encoding"`
	SigVerify              bool   `json:"sigVerify"`
	ReplaceRecentBlockhash bool   `json:"replaceRecentBlockhash"`
}

// simulateTransaction runs a wire transaction against the ledger without changing it and
// answers {err, logs, accounts, unitsConsumed, returnData, innerInstructions,
// replacementBlockhash}: err is null when it would succeed, else why it would fail or could
// not land. With sigVerify its signatures must verify (-32003 otherwise); without, a
// signature may be anything, a fee payer's 64 zero bytes included. With
// replaceRecentBlockhash it runs on the newest blockhash instead of its own.
func (c *Cluster) simulateTransaction(params []json.RawMessage, now time.Time) (any, *Error) {
	var cfg simulateConfig
	if e := param(params, 1, false, &cfg); e != nil {
		return nil, e
	}
	if cfg.SigVerify && cfg.ReplaceRecentBlockhash {
		return nil, invalidParams("sigVerify may not be used with replaceRecentBlockhash")
	}
	w, e := wireParam(params, cfg.Encoding)
	if e != nil {
		return nil, e
	}
	if cfg.SigVerify && !signaturesValid(w.tx, w.message) {
		return nil, errSignatureVerification
	}
	var replacement any
	if cfg.ReplaceRecentBlockhash {
		hash, lastValid := c.issueBlockhash(c.height(now, commitmentProcessed))
		if w, e = replaceBlockhash(w, hash); e != nil {
			return nil, e
		}
		replacement = map[string]any{"blockhash": hash.String(), "lastValidBlockHeight": lastValid}
	}
	value := map[string]any{
		"accounts": nil, "err": nil, "innerInstructions": nil, "logs": []string{},
		"replacementBlockhash": replacement, "returnData": nil, "unitsConsumed": uint64(0),
	}
	x, failure := c.simulate(w, now)
	switch {
	case failure != nil:
		value["err"] = failure.Value
	case x.failure != nil:
		value["err"], value["logs"], value["unitsConsumed"] = x.failure.Value, nonNil(x.logs), x.units
	default:
		value["logs"], value["unitsConsumed"] = nonNil(x.logs), x.units
	}
	return withContext(c.slot(now, commitmentProcessed), value), nil
}

// replaceBlockhash returns w with its message's blockhash replaced by hash, its signatures
// kept (they no longer match).
func replaceBlockhash(w *wireTransaction, hash solana.Hash) (*wireTransaction, *Error) {
	tx := *w.tx
	tx.Message.RecentBlockhash = hash
	return encodeWire(&tx)
}
