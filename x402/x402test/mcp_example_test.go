package x402test_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentapis/sdk/x402"
	"github.com/agentapis/sdk/x402/budget"
	"github.com/agentapis/sdk/x402/evm"
	"github.com/agentapis/sdk/x402/mcppay"
	"github.com/agentapis/sdk/x402/x402test"
)

// A paid MCP tool served by x402test, paid by an mcppay client over an in-memory session;
// then a connection dropped after the settlement, left in doubt and counted.
func ExampleNewMCPServer() {
	ctx := context.Background()
	srv := x402test.NewMCPServer(x402test.WithMCPPaywall(x402test.MCPPaywallConfig{
		Paywall: x402test.PaywallConfig{Amount: big.NewInt(25_000)},
	}))
	defer srv.Close()
	session, err := srv.Connect(ctx, nil) // srv.ConnectHTTP for streamable HTTP
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()

	signer, _ := evm.NewPrivateKeySigner("0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
	srv.Facilitator().Fund(signer.Address(), big.NewInt(1_000_000))
	scheme, _ := evm.NewExact(signer)
	payer, _ := x402.NewPayer(x402.Policy{MaxTotal: budget.Unlimited}, []x402.Scheme{scheme})
	client, _ := mcppay.New(session, payer)

	res, err := client.CallTool(ctx, &mcp.CallToolParams{Name: x402test.DefaultMCPTool, Arguments: map[string]any{"q": "gpu"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text, "paid", res.Payment.Amount, "for", res.Payment.Resource)

	srv.InjectSettlementFaults(x402test.FaultDropAfterSettle)
	_, err = client.CallTool(ctx, &mcp.CallToolParams{Name: x402test.DefaultMCPTool})
	var unconfirmed *x402.PaymentUnconfirmedError
	inDoubt := errors.As(err, &unconfirmed)
	spent, _ := payer.Spent(ctx)
	reserved, _ := payer.Reserved(ctx)
	fmt.Println("in doubt:", inDoubt, "settled:", len(srv.Facilitator().Settlements()), "spent:", spent, "reserved:", reserved)
	// Output:
	// {"q":"gpu"} paid 25000 for mcp://tool/echo
	// in doubt: true settled: 2 spent: 25000 reserved: 25000
}
