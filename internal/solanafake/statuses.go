package solanafake

import "encoding/json"

// RewriteStatuses returns the result of a getSignatureStatuses answer with its list of
// statuses replaced by what change makes of it: the lie of a node, or of a proxy in front of
// one, about what landed. A result it cannot read is returned as it is.
func RewriteStatuses(result json.RawMessage, change func([]any) []any) json.RawMessage {
	var res struct {
		Context json.RawMessage `json:"context"`
		Value   []any           `json:"value"`
	}
	if json.Unmarshal(result, &res) != nil {
		return result
	}
	res.Value = change(res.Value)
	out, _ := json.Marshal(res)
	return out
}
