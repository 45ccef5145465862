// Package wire holds the messages of the x402 protocol (versions 1 and 2) and their header
// codecs, whatever the payment scheme: the challenge of a 402 answer (PaymentRequired and
// its accepts entries, PaymentRequirements), the payment a client sends (PaymentPayload,
// whose scheme-specific part stays raw JSON for the scheme's package to read), and the
// settlement receipt (SettleResponse).
//
// Headers carry standard base64, with padding, of compact JSON. This package encodes
// strictly and decodes leniently (also unpadded, URL-alphabet, or bare JSON), because servers
// in the wild differ. Each accepts entry of a challenge is read on its own: an entry that
// cannot be paid safely (a fractional or absurd amount, a network that is not CAIP-2, a
// missing member) is kept, marked Unusable with the reason, and the other entries still
// count. A challenge's entries keep the bytes the server sent, so that a payment echoes the
// chosen one byte for byte.
//
// The names of networks are normalised in one place, NormalizeNetwork: CAIP-2 ids as they
// are, x402 v1 names ("base", "solana") translated.
package wire
