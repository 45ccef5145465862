package chartdiff

import (
	"context"
	"net/http"
	"net/url"

	"github.com/agentapis/sdk/internal/httpcore"
)

// Stats returns the database-wide statistics: charts stored, coverage and active users.
func (c *Client) Stats(ctx context.Context) (*Stats, error) {
	var out Stats
	resp, err := c.get(ctx, "/stats", nil, &out)
	if err != nil {
		return nil, err
	}
	out.Raw, out.Response = resp.Body, resp.Meta()
	return &out, nil
}

// Usage returns the usage of the account that owns the client's API key, or, for a client with
// only an account token, of the token's account (Usage.KeyNotUsed then says so when
// CHARTDIFF_API_KEY is set but was not used). A client with neither gets an
// *sdk.MissingCredentialError (matching ErrAccountTokenRequired), saying how to give each and
// which variable was set but not used, and nothing is sent.
func (c *Client) Usage(ctx context.Context) (*Usage, error) {
	req := &httpcore.Request{Method: http.MethodGet, Path: "/usage"}
	switch cr := c.creds.Load(); {
	case cr.key != "":
		req.Credentials = cr.keyed
	case cr.account != nil:
		req.Credentials = cr.account
	default:
		err := c.settings.MissingCredential(serviceName, "Usage", "API key or account token", "WithAPIKey", EnvAPIKey, ErrAccountTokenRequired)
		err.Reason += "; or " + c.settings.MissingCredential(serviceName, "Usage", "account token", "WithAccountToken", EnvAccountToken).Reason
		return nil, err
	}
	var out Usage
	resp, err := c.do(ctx, req, &out)
	if err != nil {
		return nil, err
	}
	out.Raw, out.Response, out.KeyNotUsed = resp.Body, resp.Meta(), c.keyNotUsed("Usage")
	return &out, nil
}

// BuildInfoParams are the parameters of GET /meta, for BuildInfo.
type BuildInfoParams struct {
	// Diagnostics asks the service to report the length of each authentication header it
	// received (diag=1), as SelfCheck does.
	Diagnostics bool
}

// BuildInfo returns the service's build information, from GET /meta. params may be nil.
func (c *Client) BuildInfo(ctx context.Context, params *BuildInfoParams) (*BuildInfo, error) {
	return c.buildInfo(ctx, params, nil)
}

// buildInfo sends GET /meta, with creds in place of the client's credentials when not nil.
func (c *Client) buildInfo(ctx context.Context, params *BuildInfoParams, creds []httpcore.Credential) (*BuildInfo, error) {
	req := &httpcore.Request{Method: http.MethodGet, Path: "/meta", Credentials: creds}
	if params != nil && params.Diagnostics {
		req.Query = url.Values{"diag": {"1"}}
	}
	var out BuildInfo
	resp, err := c.do(ctx, req, &out)
	if err != nil {
		return nil, err
	}
	out.Raw, out.Response = resp.Body, resp.Meta()
	return &out, nil
}

// OpenAPI returns the service's single contract, /api/v1/openapi.json, as served.
func (c *Client) OpenAPI(ctx context.Context) (*OpenAPIDocument, error) {
	var out OpenAPIDocument
	resp, err := c.get(ctx, "/openapi.json", nil, &out)
	if err != nil {
		return nil, err
	}
	out.Response = resp.Meta()
	return &out, nil
}
