package wire

import "encoding/json"

// SettleResponse is the settlement result a server returns in PAYMENT-RESPONSE (v1:
// X-PAYMENT-RESPONSE): the receipt of a payment.
type SettleResponse struct {
	// Success reports whether the payment was settled.
	Success bool `json:"success"`
	// ErrorReason is the facilitator's code when settlement failed.
	ErrorReason string `json:"errorReason,omitempty"`
	// ErrorMessage is a human-readable explanation of a failure.
	ErrorMessage string `json:"errorMessage,omitempty"`
	// Payer is the paying address.
	Payer string `json:"payer,omitempty"`
	// Transaction identifies the settlement on its chain (empty on failure): an EVM
	// transaction hash, a Solana transaction signature.
	Transaction string `json:"transaction"`
	// Network is the network the payment settled on, in CAIP-2 form: a server speaking x402
	// v1 names its network ("base"), which DecodeSettleResponse translates (eip155:8453).
	Network string `json:"network"`
	// RawNetwork is the network as the server wrote it, when DecodeSettleResponse translated
	// it; "" otherwise.
	RawNetwork string `json:"-"`
	// Amount is the settled amount in atomic units, when the server reports it.
	Amount string `json:"amount,omitempty"`
	// Extensions is the server's extensions object.
	Extensions json.RawMessage `json:"extensions,omitempty"`
}
