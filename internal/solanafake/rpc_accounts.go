package solanafake

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gagliardetto/solana-go"
)

// getBalance answers the lamports of an account: a wallet's SOL, or the rent-exempt balance
// of a token account or a mint.
func (c *Cluster) getBalance(params []json.RawMessage, now time.Time) (any, *Error) {
	pk, e := pubkeyParam(params, 0)
	if e != nil {
		return nil, e
	}
	return withContext(c.slot(now, commitmentProcessed), c.lamportsOf(pk, c.tokens, c.lamports)), nil
}

// getTokenAccountBalance answers a token account's balance, with the errors a node gives
// for a missing account or one that is not a token account.
func (c *Cluster) getTokenAccountBalance(params []json.RawMessage, now time.Time) (any, *Error) {
	pk, e := pubkeyParam(params, 0)
	if e != nil {
		return nil, e
	}
	acc, ok := c.tokens[pk]
	if !ok {
		if _, isMint := c.mints[pk]; isMint || c.lamports[pk] > 0 {
			return nil, invalidParams("Invalid param: not a Token account")
		}
		return nil, invalidParams("Invalid param: could not find account")
	}
	return withContext(c.slot(now, commitmentProcessed), uiTokenAmount(acc.Amount, c.mints[acc.Mint].Decimals)), nil
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

// parsedProgram returns the name a node gives the token program in jsonParsed data.
func parsedProgram(program solana.PublicKey) string {
	if program == solana.Token2022ProgramID {
		return "spl-token-2022"
	}
	return "spl-token"
}

// getAccountInfo answers an account: a token account or a mint owned by its token program
// with its binary layout, a funded wallet owned by the System program, or null.
func (c *Cluster) getAccountInfo(params []json.RawMessage, now time.Time) (any, *Error) {
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
		data   []byte
		parsed any
		owner  solana.PublicKey
	)
	if acc, ok := c.tokens[pk]; ok {
		owner = c.programOf(acc.Mint)
		data = tokenAccountData(acc, owner)
		info := map[string]any{
			"isNative": false, "mint": acc.Mint.String(), "owner": acc.Owner.String(), "state": "initialized",
			"tokenAmount": uiTokenAmount(acc.Amount, c.mints[acc.Mint].Decimals),
		}
		if owner == solana.Token2022ProgramID {
			info["extensions"] = []any{map[string]any{"extension": "immutableOwner"}}
		}
		parsed = map[string]any{"type": "account", "info": info}
	} else if m, ok := c.mints[pk]; ok {
		owner = m.Program
		supply := c.supply(pk)
		data = mintData(supply, m.Decimals)
		parsed = map[string]any{"type": "mint", "info": map[string]any{
			"decimals": m.Decimals, "freezeAuthority": nil, "isInitialized": true, "mintAuthority": nil, "supply": fmt.Sprint(supply),
		}}
	} else if c.lamports[pk] > 0 {
		owner = solana.SystemProgramID
	} else {
		return withContext(c.slot(now, commitmentProcessed), nil), nil
	}
	var encoded any
	switch cfg.Encoding {
	case "jsonParsed":
		if parsed != nil {
			encoded = map[string]any{"program": parsedProgram(owner), "parsed": parsed, "space": len(data)}
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
	return withContext(c.slot(now, commitmentProcessed), map[string]any{
		"data":       encoded,
		"executable": false,
		"lamports":   c.lamportsOf(pk, c.tokens, c.lamports),
		"owner":      owner.String(),
		"rentEpoch":  uint64(1<<64 - 1),
		"space":      len(data),
	}), nil
}
