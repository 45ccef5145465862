package gpuprice

import "github.com/agentapis/sdk/x402/svm"

// PurchaseLookup returns the lookup of key purchases on the client's Solana node (WithRPCURL,
// WithRPCClient or SOLANA_RPC_URL), so that a reconcile.Reconciler resolves the purchases a
// budget holds in doubt (reconcile.WithLookup): svm.Lookup, the one lookup of every Solana
// payment of the SDK. opts configure it as svm.NewLookup's do: svm.WithNodes adds nodes of
// other providers, which must then all agree before a purchase is given back, and
// svm.ForNetworks makes the same lookup find x402 payments too.
//
//	lookup, err := client.PurchaseLookup(svm.WithNodes(otherNode))
//	if err != nil {
//		return err
//	}
//	reconciler, err := reconcile.New(spend, reconcile.WithLookup(lookup))
//
// Without a node it is a *sdk.ValidationError.
func (c *Client) PurchaseLookup(opts ...svm.LookupOption) (*svm.Lookup, error) {
	if c.node == nil {
		return nil, invalid("RPC URL", "not set: use WithRPCURL, WithRPCClient or the "+EnvRPCURL+" environment variable")
	}
	return svm.NewLookup(c.node, opts...)
}
