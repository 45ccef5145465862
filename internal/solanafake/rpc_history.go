package solanafake

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
)

// maxStatusSignatures is the most signatures one getSignatureStatuses call may ask for.
const maxStatusSignatures = 256

// maxSignaturesForAddress is the most signatures getSignaturesForAddress answers, and its
// default limit.
const maxSignaturesForAddress = 1000

// getSignatureStatuses answers the status of each signature: null when unknown (or older
// than the status cache without searchTransactionHistory), else its slot, err and stage by
// the cluster's StageRule; confirmations is 0 while processed, the blocks since it landed
// (at least 1) once confirmed, and null once finalized.
func (c *Cluster) getSignatureStatuses(params []json.RawMessage, now time.Time) (any, *Error) {
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
		sig, e := signatureParam(t)
		if e != nil {
			return nil, e
		}
		sigs[i] = sig
	}
	height := c.height(now, commitmentProcessed)
	values := make([]any, len(sigs))
	for i, sig := range sigs {
		tx := c.landed[sig]
		if tx == nil || !cfg.SearchTransactionHistory && height > tx.height+statusCacheBlocks {
			continue
		}
		tx.asked++
		stage := c.stageOf(tx, now)
		var confirmations any
		switch stage {
		case StageProcessed:
			confirmations = 0
		case StageConfirmed:
			confirmations = min(max(c.age(tx, now), 1), FinalityDepth-1)
		}
		var errValue, status any = nil, map[string]any{"Ok": nil}
		if tx.err != nil {
			errValue, status = tx.err.Value, map[string]any{"Err": tx.err.Value}
		}
		values[i] = map[string]any{
			"slot": tx.slot, "confirmations": confirmations, "err": errValue, "status": status, "confirmationStatus": stage,
		}
	}
	return withContext(c.slot(now, commitmentProcessed), values), nil
}

// signaturesConfig is the configuration object of getSignaturesForAddress.
type signaturesConfig struct {
	commitmentConfig
	Limit  *int   `json:"limit"`
	Before string `json:"before"`
	Until  string `json:"until"`
}

// getSignaturesForAddress answers the transactions whose account keys include an address,
// newest first, that reached the commitment (finalized by default, processed refused): at
// most limit (1 to 1,000, default 1,000), starting after before and stopping at until
// (neither included); an unknown before gives none. Each is {signature, slot, err, memo,
// blockTime, confirmationStatus}, its memo formatted as a node does (see memoText).
func (c *Cluster) getSignaturesForAddress(params []json.RawMessage, now time.Time) (any, *Error) {
	address, e := pubkeyParam(params, 0)
	if e != nil {
		return nil, e
	}
	var cfg signaturesConfig
	if e := param(params, 1, false, &cfg); e != nil {
		return nil, e
	}
	cm, e := cfg.commitment()
	if e != nil {
		return nil, e
	}
	if e := atLeastConfirmed(cm); e != nil {
		return nil, e
	}
	limit := maxSignaturesForAddress
	if cfg.Limit != nil {
		limit = *cfg.Limit
	}
	if limit < 1 || limit > maxSignaturesForAddress {
		return nil, invalidParams(fmt.Sprintf("Invalid limit; max %d", maxSignaturesForAddress))
	}
	var before, until solana.Signature
	for _, p := range []struct {
		text string
		sig  *solana.Signature
	}{{cfg.Before, &before}, {cfg.Until, &until}} {
		if p.text != "" {
			if *p.sig, e = signatureParam(p.text); e != nil {
				return nil, e
			}
		}
	}
	start := len(c.history) - 1
	if !before.IsZero() {
		start = -1
		for i, tx := range c.history {
			if tx.wire.tx.Signatures[0] == before {
				start = i - 1
			}
		}
	}
	out := []any{}
	for i := start; i >= 0 && len(out) < limit; i-- {
		tx := c.history[i]
		sig := tx.wire.tx.Signatures[0]
		if sig == until {
			break
		}
		stage := c.stageOf(tx, now)
		if !stage.reaches(cm) || !mentions(&tx.wire.tx.Message, address) {
			continue
		}
		var errValue any
		if tx.err != nil {
			errValue = tx.err.Value
		}
		out = append(out, map[string]any{
			"signature": sig.String(), "slot": tx.slot, "err": errValue, "memo": memoText(&tx.wire.tx.Message),
			"blockTime": tx.time.Unix(), "confirmationStatus": stage,
		})
	}
	return out, nil
}

// mentions says whether address is one of m's account keys.
func mentions(m *solana.Message, address solana.PublicKey) bool {
	for _, k := range m.AccountKeys {
		if k == address {
			return true
		}
	}
	return false
}

// transactionConfig is the configuration object of getTransaction.
type transactionConfig struct {
	commitmentConfig
	Encoding                       string `json:"encoding"`
	MaxSupportedTransactionVersion *int   `json:"maxSupportedTransactionVersion"`
}

// getTransaction answers a landed transaction that reached the commitment (finalized by
// default, processed refused), else null: {slot, blockTime, version (when
// maxSupportedTransactionVersion is given, which a v0 transaction needs), meta,
// transaction}. The transaction is JSON (the default) or [data, encoding] in base64 or
// base58; meta holds err, status, fee, the lamports of every account key before and after
// (preBalances, postBalances), the token accounts among them (preTokenBalances,
// postTokenBalances), logMessages and computeUnitsConsumed; the fake records no inner
// instructions.
func (c *Cluster) getTransaction(params []json.RawMessage, now time.Time) (any, *Error) {
	var text string
	if e := param(params, 0, true, &text); e != nil {
		return nil, e
	}
	sig, e := signatureParam(text)
	if e != nil {
		return nil, e
	}
	var cfg transactionConfig
	if e := param(params, 1, false, &cfg); e != nil {
		return nil, e
	}
	cm, e := cfg.commitment()
	if e != nil {
		return nil, e
	}
	if e := atLeastConfirmed(cm); e != nil {
		return nil, e
	}
	if cfg.Encoding == "" {
		cfg.Encoding = "json"
	}
	if cfg.Encoding != "json" && cfg.Encoding != "base64" && cfg.Encoding != "base58" {
		return nil, invalidParams("Invalid params: unsupported encoding " + cfg.Encoding + "; the fake node supports json, base64 and base58")
	}
	tx := c.landed[sig]
	if tx == nil || !c.stageOf(tx, now).reaches(cm) {
		return nil, nil
	}
	m := &tx.wire.tx.Message
	out := map[string]any{"slot": tx.slot, "blockTime": tx.time.Unix(), "meta": c.meta(tx)}
	if m.IsVersioned() {
		if cfg.MaxSupportedTransactionVersion == nil {
			return nil, &Error{Code: CodeUnsupportedTransactionVersion, Message: "Transaction version (0) is not supported by the requesting client. " +
				`Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0`}
		}
		out["version"] = 0
	} else if cfg.MaxSupportedTransactionVersion != nil {
		out["version"] = "legacy"
	}
	switch cfg.Encoding {
	case "json":
		out["transaction"] = transactionJSON(tx.wire.tx)
	default:
		out["transaction"] = solana.Data{Content: tx.wire.raw, Encoding: solana.EncodingType(cfg.Encoding)}
	}
	return out, nil
}

// meta returns the meta of a landed transaction as getTransaction shows it.
func (c *Cluster) meta(tx *landedTx) map[string]any {
	var errValue, status any = nil, map[string]any{"Ok": nil}
	if tx.err != nil {
		errValue, status = tx.err.Value, map[string]any{"Err": tx.err.Value}
	}
	return map[string]any{
		"err": errValue, "status": status, "fee": tx.fee,
		"preBalances": tx.pre.lamports, "postBalances": tx.post.lamports,
		"preTokenBalances": c.tokenBalances(tx.pre), "postTokenBalances": c.tokenBalances(tx.post),
		"innerInstructions": []any{}, "logMessages": nonNil(tx.logs), "rewards": []any{},
		"loadedAddresses":      map[string][]string{"writable": {}, "readonly": {}},
		"computeUnitsConsumed": tx.units,
	}
}

// tokenBalances returns the token accounts of a view as a meta's token balances show them.
func (c *Cluster) tokenBalances(v ledgerView) []any {
	out := []any{}
	for _, t := range v.tokens {
		m := c.mints[t.account.Mint]
		out = append(out, map[string]any{
			"accountIndex": t.index, "mint": t.account.Mint.String(), "owner": t.account.Owner.String(),
			"programId": m.Program.String(), "uiTokenAmount": uiTokenAmount(t.account.Amount, m.Decimals),
		})
	}
	return out
}

// transactionJSON returns tx in getTransaction's json encoding: {signatures, message}, the
// message with its accountKeys, header, recentBlockhash and instructions (data in base58),
// and addressTableLookups when it is a v0 message.
func transactionJSON(tx *solana.Transaction) map[string]any {
	m := &tx.Message
	keys := make([]string, len(m.AccountKeys))
	for i, k := range m.AccountKeys {
		keys[i] = k.String()
	}
	instructions := make([]any, len(m.Instructions))
	for i, ci := range m.Instructions {
		instructions[i] = map[string]any{
			"programIdIndex": ci.ProgramIDIndex, "accounts": nonNil(ci.Accounts), "data": ci.Data.String(), "stackHeight": nil,
		}
	}
	message := map[string]any{"accountKeys": keys, "header": m.Header, "recentBlockhash": m.RecentBlockhash.String(), "instructions": instructions}
	if m.IsVersioned() {
		message["addressTableLookups"] = []any{}
	}
	sigs := make([]string, len(tx.Signatures))
	for i, s := range tx.Signatures {
		sigs[i] = s.String()
	}
	return map[string]any{"signatures": sigs, "message": message}
}
