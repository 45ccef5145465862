package chartdiff

import (
	"cmp"
	"context"
	"net/url"
	"strconv"

	"github.com/agentapis/sdk/internal/httpcore"
)

// Limits of GET /charters/{uid}.
const (
	// CharterDefaultPages is the number of upstream pages the service reads when
	// CharterParams.MaxPages is not given.
	CharterDefaultPages = 3
	// CharterMaxPages is the hard cap on CharterParams.MaxPages.
	CharterMaxPages = 5
	// UpstreamPageSize is the number of charts on one upstream page.
	UpstreamPageSize = 30
)

// CharterParams are the parameters of GET /charters/{uid}, for Charter.
type CharterParams struct {
	// MaxPages is the most upstream pages of 30 charts the service reads, 1 to 5 (maxPages); 0
	// lets the service use its default of 3.
	MaxPages int
}

// Charter returns the charts uploaded by the author with the given uid, each tagged with its
// stored values. params may be nil; it is validated before any request. When the upstream
// game service is down the call fails with ErrUpstreamUnavailable; it never returns an empty
// list for it.
func (c *Client) Charter(ctx context.Context, uid int, params *CharterParams) (*CharterCharts, error) {
	if err := checkID("uid", uid); err != nil {
		return nil, err
	}
	var maxPages int
	if params != nil {
		maxPages = params.MaxPages
	}
	if maxPages < 0 || maxPages > CharterMaxPages {
		return nil, invalid("maxPages", "must be between 1 and 5 (0 for the default of 3)")
	}
	var q url.Values
	if maxPages > 0 {
		q = url.Values{"maxPages": {strconv.Itoa(maxPages)}}
	}
	var out CharterCharts
	resp, err := c.get(ctx, httpcore.Path("charters", strconv.Itoa(uid)), q, &out)
	if err != nil {
		return nil, err
	}
	out.UID = cmp.Or(out.UID, uid) // an answer that names no author is about the one asked for
	out.Raw, out.Response = resp.Body, resp.Meta()
	return &out, nil
}

// Player returns a player's public profile and statistics, without score details. A missing
// player is ErrPlayerNotFound; when the statistics cannot be fetched the call still succeeds
// with Stats nil.
func (c *Client) Player(ctx context.Context, uid int) (*Player, error) {
	if err := checkID("uid", uid); err != nil {
		return nil, err
	}
	var out Player
	resp, err := c.get(ctx, httpcore.Path("players", strconv.Itoa(uid)), nil, &out)
	if err != nil {
		return nil, err
	}
	out.ID = cmp.Or(out.ID, uid) // an answer that names no player is about the one asked for
	out.Raw, out.Response = resp.Body, resp.Meta()
	return &out, nil
}
