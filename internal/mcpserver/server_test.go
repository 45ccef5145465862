package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// session is a test client connected to a test server over go-sdk's in-memory transport.
type session struct {
	t      *testing.T
	srv    *Server
	client *mcp.ClientSession
}

// start starts an offline server with o and connects a client with copts (protocol
// 2025-11-25, the TypeScript client's), closing both when the test ends.
func start(t *testing.T, o Options, copts *mcp.ClientOptions) *session {
	t.Helper()
	o.Offline = true
	if o.Logger == nil {
		o.Logger = scan.Logger()
	}
	ctx := context.Background()
	srv, err := New(ctx, o)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	// The keys the server buys or creates are secrets too, known once the test is done.
	t.Cleanup(func() {
		srv.secrets.mu.Lock()
		defer srv.secrets.mu.Unlock()
		scan.Add(srv.secrets.values...)
	})
	for _, v := range []string{EnvEVMPrivateKey, EnvSolanaPrivateKey, "HOSTING_TOKEN", "PRODUCTDATA_ACCOUNT_KEY", "CHARTDIFF_API_KEY", "CHARTDIFF_ACCOUNT_TOKEN"} {
		scan.Add(srv.env(v))
	}
	return connect(t, srv, copts)
}

// connect connects a new client to srv.
func connect(t *testing.T, srv *Server, copts *mcp.ClientOptions) *session {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(context.Background(), ct,
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return &session{t: t, srv: srv, client: cs}
}

// call calls tool with args and returns the result, recording it for the secret scan.
func (s *session) call(tool string, args any) *mcp.CallToolResult {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.client.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(s.t, err, "%s: a tool call is never a protocol error", tool)
	data, _ := json.Marshal(res)
	scan.RecordOutput(string(data))
	return res
}

// ok calls tool, requires a success and decodes its structured result into a map.
func (s *session) ok(tool string, args any) map[string]any {
	s.t.Helper()
	res := s.call(tool, args)
	require.False(s.t, res.IsError, "%s: %s", tool, text(res))
	require.NotEmpty(s.t, text(res), "%s: a short text comes with the result", tool)
	var out map[string]any
	data, err := json.Marshal(res.StructuredContent)
	require.NoError(s.t, err)
	require.NoError(s.t, json.Unmarshal(data, &out), "%s: structuredContent is an object", tool)
	return out
}

// fails calls tool, requires a tool error and returns its text.
func (s *session) fails(tool string, args any) string {
	s.t.Helper()
	res := s.call(tool, args)
	require.True(s.t, res.IsError, "%s should fail: %s", tool, text(res))
	return text(res)
}

// text returns a result's text content.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// status returns budget_status's spent and reserved, in atomic units.
func (s *session) status() (spent, reserved string) {
	s.t.Helper()
	out := s.ok("budget_status", map[string]any{})
	return out["spent"].(map[string]any)["atomic"].(string), out["reserved"].(map[string]any)["atomic"].(string)
}

// offlineTools are the tools of an offline server, in registration order.
var offlineTools = []string{
	"budget_status", "budget_outstanding", "budget_reconcile", "x402_fetch",
	"reportstore_catalog", "reportstore_preview", "reportstore_quote", "reportstore_report",
	"hosting_repositories", "hosting_create_repository", "hosting_files", "hosting_read_file", "hosting_put_file",
	"hosting_commit", "hosting_deploy", "hosting_deploy_folder",
	"productdata_product", "productdata_call", "productdata_refresh_product", "productdata_collect_reviews",
	"gpuprice_prices", "gpuprice_cheapest", "gpuprice_platforms", "gpuprice_futures", "gpuprice_order_book", "gpuprice_history", "gpuprice_buy_key",
	"chartdiff_chart", "chartdiff_charts", "chartdiff_player", "chartdiff_author", "chartdiff_analysis", "chartdiff_keys", "chartdiff_create_key",
}

func TestListsEveryToolWithBoundedSchemasAndObjectOutputs(t *testing.T) {
	s := start(t, Options{}, nil)
	res, err := s.client.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		assert.Regexp(t, `^[A-Za-z0-9._-]{1,128}$`, tool.Name)
		assert.Greater(t, len(tool.Description), 40, "%s: a description a model can act on", tool.Name)
		data, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		var in jsonschema.Schema
		require.NoError(t, json.Unmarshal(data, &in))
		_, err = in.Resolve(nil)
		require.NoError(t, err, "%s: the input schema is valid", tool.Name)
		assert.Equal(t, "object", in.Type, tool.Name)
		for _, unbounded := range unboundedLeaves(&in, tool.Name) {
			t.Errorf("unbounded input: %s", unbounded)
		}
		data, err = json.Marshal(tool.OutputSchema)
		require.NoError(t, err)
		var out jsonschema.Schema
		require.NoError(t, json.Unmarshal(data, &out))
		assert.Equal(t, "object", out.Type, "%s: outputs are objects", tool.Name)
	}
	assert.ElementsMatch(t, offlineTools, names)

	d := start(t, Options{AllowDestructive: true}, nil)
	assert.Subset(t, d.srv.Tools(), []string{"hosting_delete_file", "chartdiff_rotate_key", "chartdiff_delete_key"})
	assert.NotContains(t, s.srv.Tools(), "hosting_delete_file", "destructive tools are off by default")
}

// unboundedLeaves lists the strings, numbers and arrays of s without bounds.
func unboundedLeaves(s *jsonschema.Schema, where string) []string {
	var out []string
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	switch {
	case slices.Contains(types, "string"):
		if s.MaxLength == nil && len(s.Enum) == 0 {
			out = append(out, where)
		}
	case slices.Contains(types, "integer"), slices.Contains(types, "number"):
		if s.Minimum == nil || s.Maximum == nil {
			out = append(out, where)
		}
	case slices.Contains(types, "array"):
		if s.MaxItems == nil {
			out = append(out, where)
		}
		if s.Items != nil {
			out = append(out, unboundedLeaves(s.Items, where+"[]")...)
		}
	case slices.Contains(types, "object"):
		for name, p := range s.Properties {
			out = append(out, unboundedLeaves(p, where+"."+name)...)
		}
	}
	return out
}

func TestEveryToolWorksOffline(t *testing.T) {
	s := start(t, Options{AllowDestructive: true}, nil)

	cat := s.ok("reportstore_catalog", map[string]any{"limit": 3})
	assert.Len(t, cat["products"], 3)
	assert.Greater(t, cat["total"], 3.0)
	prev := s.ok("reportstore_preview", map[string]any{"id": "macro-gdp"})
	assert.NotEmpty(t, prev["rows"])
	quote := s.ok("reportstore_quote", map[string]any{"id": "macro-gdp", "format": "csv"})
	assert.Equal(t, true, quote["would_pay"])
	price := quote["price"].(map[string]any)["atomic"].(string)
	rep := s.ok("reportstore_report", map[string]any{"id": "macro-gdp", "format": "csv"})
	assert.Contains(t, rep["text"], "economy")
	assert.Equal(t, price, rep["paid"].(map[string]any)["amount"].(map[string]any)["atomic"], "the report's payment is its quote")
	assert.NotEmpty(t, rep["paid"].(map[string]any)["transaction"])

	fetched := s.ok("x402_fetch", map[string]any{"url": s.srv.demoURL})
	assert.Equal(t, 200.0, fetched["status"])
	assert.Contains(t, fetched["content_type"], "application/json")
	assert.NotEmpty(t, fetched["text"])
	assert.Equal(t, "10000", fetched["paid"].(map[string]any)["amount"].(map[string]any)["atomic"])

	s.ok("hosting_create_repository", map[string]any{"name": "mcp-site"})
	repos := s.ok("hosting_repositories", map[string]any{})
	assert.Contains(t, fmt.Sprint(repos["repositories"]), "mcp-site")
	put := s.ok("hosting_put_file", map[string]any{"repo": "mcp-site", "path": "index.html", "content": "<h1>hi</h1>"})
	assert.Equal(t, false, put["replaced"])
	s.ok("hosting_put_file", map[string]any{"repo": "mcp-site", "path": "index.html", "content": "<h1>hello</h1>"})
	commit := s.ok("hosting_commit", map[string]any{"repo": "mcp-site", "message": "first"})
	assert.NotEmpty(t, commit["id"])
	dep := s.ok("hosting_deploy", map[string]any{"repo": "mcp-site"})
	assert.NotEmpty(t, dep["preview_url"])
	files := s.ok("hosting_files", map[string]any{"repo": "mcp-site"})
	assert.Contains(t, fmt.Sprint(files["files"]), "index.html")
	read := s.ok("hosting_read_file", map[string]any{"repo": "mcp-site", "path": "index.html"})
	assert.Equal(t, "<h1>hello</h1>", read["text"])
	folder := s.ok("hosting_deploy_folder", map[string]any{"repo": "mcp-site", "message": "site", "files": []any{
		map[string]any{"path": "index.html", "content": "<h1>hello</h1>"},
		map[string]any{"path": "css/site.css", "content": "body{}"},
	}})
	assert.Equal(t, []any{"css/site.css"}, folder["uploaded"])
	assert.Equal(t, []any{"index.html"}, folder["unchanged"])
	s.ok("hosting_delete_file", map[string]any{"repo": "mcp-site", "path": "css/site.css"})

	p := s.ok("productdata_product", map[string]any{"asin": "B0CVM8TXHP"})
	assert.Equal(t, "B0CVM8TXHP", p["product"].(map[string]any)["asin"])
	called := s.ok("productdata_call", map[string]any{"endpoint": "ProductRequest", "domain": 1, "params": `{"ASIN":"B0CVM8TXHP"}`})
	assert.Contains(t, fmt.Sprint(called["data"]), "B0CVM8TXHP")
	refreshed := s.ok("productdata_refresh_product", map[string]any{"asin": "B0CVM8TXHP", "max_age_hours": 1})
	assert.Equal(t, "B0CVM8TXHP", refreshed["product"].(map[string]any)["asin"])
	reviews := s.ok("productdata_collect_reviews", map[string]any{"asin": "B0CVM8TXHP", "limit": 5})
	assert.NotEmpty(t, reviews["reviews"])

	assert.NotEmpty(t, s.ok("gpuprice_prices", map[string]any{"model": "H100"})["prices"])
	assert.NotEmpty(t, s.ok("gpuprice_cheapest", map[string]any{"model": "H100"})["best_platform"])
	assert.NotEmpty(t, s.ok("gpuprice_platforms", map[string]any{})["platforms"])
	assert.NotEmpty(t, s.ok("gpuprice_futures", map[string]any{})["symbol"])
	assert.NotNil(t, s.ok("gpuprice_order_book", map[string]any{"model": "H100"})["bids"])
	assert.Contains(t, s.fails("gpuprice_history", map[string]any{"model": "H100"}), "key", "history needs a key")
	key := s.ok("gpuprice_buy_key", map[string]any{"plan": "pro"})
	assert.Contains(t, key["key"], "…", "the bought key is shown masked")
	assert.Equal(t, "5000000", key["paid"].(map[string]any)["amount"].(map[string]any)["atomic"])
	assert.NotEmpty(t, s.ok("gpuprice_history", map[string]any{"model": "H100", "limit": 5})["snapshots"], "the server uses the key it bought")

	assert.Equal(t, true, s.ok("chartdiff_chart", map[string]any{"chart_id": 1})["analyzed"])
	assert.Len(t, s.ok("chartdiff_charts", map[string]any{"page_size": 5, "sort": "ref_const", "order": "desc"})["charts"], 5)
	assert.Equal(t, 1.0, s.ok("chartdiff_player", map[string]any{"uid": 1})["uid"])
	assert.NotEmpty(t, s.ok("chartdiff_author", map[string]any{"uid": 9, "max_pages": 1})["charts"])
	assert.NotNil(t, s.ok("chartdiff_analysis", map[string]any{"chart_id": 4})["chart"].(map[string]any)["ref_const"])
	created := s.ok("chartdiff_create_key", map[string]any{"name": "mcp", "scopes": []string{"charts:read", "analyses:write"}})
	assert.Contains(t, created["secret"], "…")
	keyID := created["key"].(map[string]any)["id"].(string)
	assert.Contains(t, fmt.Sprint(s.ok("chartdiff_keys", map[string]any{})["keys"]), keyID)
	assert.Equal(t, true, s.ok("chartdiff_chart", map[string]any{"chart_id": 1})["analyzed"], "the server's new key works")
	rotated := s.ok("chartdiff_rotate_key", map[string]any{"id": keyID})
	s.ok("chartdiff_delete_key", map[string]any{"id": rotated["key"].(map[string]any)["id"]})

	out := s.ok("budget_outstanding", map[string]any{})
	assert.Empty(t, out["payments"], "every payment settled")
	spent, reserved := s.status()
	assert.Equal(t, "0", reserved)
	want := new(bigInt).add(price).add("10000").add("5000000")
	assert.Equal(t, want.String(), spent, "spent is the report, the fetch and the key")
	rec := s.ok("budget_reconcile", map[string]any{})
	assert.Equal(t, 0.0, rec["pending"])
}

func TestPolicyRefusalsNameTheLimitAndWhatIsLeft(t *testing.T) {
	s := start(t, Options{Policy: Policy{MaxTotal: "5.50", MaxPerPayment: "10.00", ToolCaps: map[string]string{"reportstore_report": "0.01"}}}, nil)
	msg := s.fails("reportstore_report", map[string]any{"id": "macro-gdp"})
	assert.Contains(t, msg, "tool cap of reportstore_report")
	assert.Contains(t, msg, "$0.01 left of the $0.01 reportstore_report may pay in all")
	msg = s.fails("x402_fetch", map[string]any{"url": s.srv.demoURL, "max_amount": "0.001"})
	assert.Contains(t, msg, "max_amount of this call")
	s.ok("gpuprice_buy_key", map[string]any{"plan": "pro"})
	msg = s.fails("gpuprice_buy_key", map[string]any{"plan": "pro"})
	assert.Contains(t, msg, "total budget")
	assert.Contains(t, msg, "$0.50 left of $5.50")
	spent, reserved := s.status()
	assert.Equal(t, "5000000", spent)
	assert.Equal(t, "0", reserved)
	msg = s.fails("gpuprice_buy_key", map[string]any{"plan": "unlimited"})
	assert.Contains(t, msg, "per-payment")
	assert.Contains(t, msg, "$10.00")
}

func TestAToolCapCountsEveryCallOfTheToolAcrossRestarts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "budget.db")
	o := Options{BudgetPath: path, Policy: Policy{ToolCaps: map[string]string{"x402_fetch": "0.025"}}}
	s := start(t, o, nil)
	s.ok("x402_fetch", map[string]any{"url": s.srv.demoURL})
	s.ok("x402_fetch", map[string]any{"url": s.srv.demoURL})
	msg := s.fails("x402_fetch", map[string]any{"url": s.srv.demoURL})
	assert.Contains(t, msg, "tool cap of x402_fetch: amount $0.01, $0.005 left of the $0.025 x402_fetch may pay in all")
	status := s.ok("budget_status", map[string]any{})
	assert.Contains(t, fmt.Sprint(status["limits"]), "subject:x402_fetch")
	assert.Contains(t, fmt.Sprint(status["limits"]), "left:map[atomic:5000 dollars:$0.005]")
	assert.Contains(t, s.fails("x402_fetch", map[string]any{"url": "https://169.254.169.254/"}), "cloud metadata", "a refused fetch holds nothing")
	s.srv.Close()

	again := start(t, o, nil)
	assert.Contains(t, again.fails("x402_fetch", map[string]any{"url": again.srv.demoURL}), "$0.005 left of the $0.025", "the tool's spending survives a restart")
	again.ok("reportstore_report", map[string]any{"id": "macro-gdp"})
	spent, reserved := again.status()
	assert.NotEqual(t, "20000", spent, "other tools are not capped by x402_fetch's cap")
	assert.Equal(t, "0", reserved)
}

func TestWindowHostAndPayeeRulesRefuseBeforePaying(t *testing.T) {
	s := start(t, Options{Policy: Policy{Window: &WindowPolicy{Length: "1h", MaxPayments: 1}}}, nil)
	s.ok("x402_fetch", map[string]any{"url": s.srv.demoURL})
	msg := s.fails("x402_fetch", map[string]any{"url": s.srv.demoURL})
	assert.Contains(t, msg, "window")

	hosts := start(t, Options{Policy: Policy{AllowedHosts: []string{"api.example.com"}, AllowedPayees: []string{"0x0000000000000000000000000000000000000001"}}}, nil)
	msg = hosts.fails("reportstore_report", map[string]any{"id": "macro-gdp"})
	assert.Contains(t, msg, "allowed_payees", "the offline store is a trusted host, but its payee is not allowed")
	assert.Contains(t, hosts.fails("gpuprice_buy_key", map[string]any{"plan": "pro"}), "allowed_payees")
	spent, reserved := hosts.status()
	assert.Equal(t, []string{"0", "0"}, []string{spent, reserved})
}

func TestApprovalAboveTheThresholdAsksTheUser(t *testing.T) {
	var asked []string
	answer := "decline"
	copts := &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = append(asked, req.Params.Message)
		if answer == "accept" {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		}
		return &mcp.ElicitResult{Action: answer}, nil
	}}
	s := start(t, Options{Policy: Policy{ApproveAbove: "1.00"}}, copts)
	msg := s.fails("gpuprice_buy_key", map[string]any{"plan": "pro"})
	assert.Contains(t, msg, "did not approve")
	require.Len(t, asked, 1)
	assert.Contains(t, asked[0], "$5.00")
	spent, reserved := s.status()
	assert.Equal(t, []string{"0", "0"}, []string{spent, reserved}, "a refusal pays nothing")
	s.ok("x402_fetch", map[string]any{"url": s.srv.demoURL})
	assert.Len(t, asked, 1, "a payment below the threshold does not ask")
	answer = "accept"
	s.ok("gpuprice_buy_key", map[string]any{"plan": "pro"})
	assert.Len(t, asked, 2)

	mute := connect(t, s.srv, nil)
	msg = mute.fails("gpuprice_buy_key", map[string]any{"plan": "unlimited"})
	assert.Contains(t, msg, "cannot ask the user")
	spent, _ = mute.status()
	assert.Equal(t, "5010000", spent, "nothing more was paid")
}

func TestBudgetSurvivesARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "budget.db")
	s := start(t, Options{BudgetPath: path}, nil)
	s.ok("x402_fetch", map[string]any{"url": s.srv.demoURL})
	s.srv.Close()
	again := start(t, Options{BudgetPath: path, Policy: Policy{MaxTotal: "0.015"}}, nil)
	spent, _ := again.status()
	assert.Equal(t, "10000", spent, "the restarted server remembers what was spent")
	msg := again.fails("x402_fetch", map[string]any{"url": again.srv.demoURL})
	assert.Contains(t, msg, "$0.005 left of $0.015")
}

func TestHostileArgumentsAreToolErrorsAndTheServerGoesOn(t *testing.T) {
	s := start(t, Options{}, nil)
	huge := strings.Repeat("A", 1<<20)
	deep := any("x")
	for range 900 {
		deep = map[string]any{"a": deep}
	}
	cases := []struct {
		tool string
		args any
	}{
		{"reportstore_preview", map[string]any{"id": 42}},
		{"reportstore_preview", map[string]any{"id": huge}},
		{"reportstore_preview", map[string]any{}},
		{"reportstore_catalog", map[string]any{"limit": -1}},
		{"reportstore_catalog", map[string]any{"limit": 1e300}},
		{"x402_fetch", map[string]any{"url": "https://example.com/", "max_amount": "-5"}},
		{"x402_fetch", map[string]any{"url": "https://example.com/", "max_amount": "99999999999999999999"}},
		{"chartdiff_chart", map[string]any{"chart_id": -3}},
		{"chartdiff_chart", map[string]any{"chart_id": 1, "extra": deep}},
		{"hosting_deploy_folder", map[string]any{"repo": "r", "files": "not a list"}},
		{"gpuprice_buy_key", map[string]any{"plan": "free"}},
	}
	for _, c := range cases {
		msg := s.fails(c.tool, c.args)
		assert.LessOrEqual(t, len(msg), maxErrorText+20, "%s: the error text is bounded", c.tool)
		s.ok("budget_status", map[string]any{})
	}
	spent, reserved := s.status()
	assert.Equal(t, []string{"0", "0"}, []string{spent, reserved})
}

func TestAPanickingHandlerDoesNotEndTheServer(t *testing.T) {
	s := start(t, Options{}, nil)
	addTool(s.srv, &mcp.Tool{Name: "boom", Description: "panics"}, func(context.Context, *mcp.CallToolRequest, BudgetIn) (BudgetStatus, string, error) {
		panic("secret " + s.srv.env(EnvEVMPrivateKey))
	})
	msg := s.fails("boom", map[string]any{})
	assert.Contains(t, msg, "internal error")
	s.ok("budget_status", map[string]any{})
}

// bigInt adds decimal amounts in a test.
type bigInt struct{ n big.Int }

// add adds the decimal v.
func (b *bigInt) add(v string) *bigInt {
	var x big.Int
	x.SetString(v, 10)
	b.n.Add(&b.n, &x)
	return b
}

// String writes the sum.
func (b *bigInt) String() string { return b.n.String() }

func TestDeployFolderReadsOnlyUnderTheDeployRootAndDestructiveCallsAreOff(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "site", "css"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "site", "index.html"), []byte("<h1>from disk</h1>"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "site", "css", "a.css"), []byte("p{}"), 0o644))
	s := start(t, Options{DeployRoot: root}, nil)
	s.ok("hosting_create_repository", map[string]any{"name": "disk-site"})
	out := s.ok("hosting_deploy_folder", map[string]any{"repo": "disk-site", "dir": "site"})
	assert.ElementsMatch(t, []any{"index.html", "css/a.css"}, out["uploaded"])
	assert.Equal(t, "<h1>from disk</h1>", s.ok("hosting_read_file", map[string]any{"repo": "disk-site", "path": "index.html"})["text"])
	assert.Contains(t, s.fails("hosting_deploy_folder", map[string]any{"repo": "disk-site", "dir": "../.."}), "not a folder under the deploy root")
	assert.Contains(t, s.fails("hosting_deploy_folder", map[string]any{"repo": "disk-site", "dir": "site", "prune": true}), "-allow-destructive")
	assert.Contains(t, s.fails("hosting_put_file", map[string]any{"repo": "disk-site", "path": "index.html", "content": "x"}), "already exists")
	assert.Contains(t, s.fails("productdata_call", map[string]any{"endpoint": "BestSellerListDelete", "domain": 1}), "-allow-destructive")

	noRoot := start(t, Options{}, nil)
	assert.Contains(t, noRoot.fails("hosting_deploy_folder", map[string]any{"repo": "disk-site", "dir": "site"}), "no deploy root")
}
