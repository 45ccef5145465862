// Command chartdiff walks through the chart difficulty API: it creates an API key with the
// account token, checks that the key header reaches the service, analyses a chart, lists the
// hardest analysed charts, rotates the key, and finally revokes the key it made.
//
// It runs offline against the in-memory fake by default:
//
//	go run ./examples/chartdiff
//
// With CHARTDIFF_URL and CHARTDIFF_ACCOUNT_TOKEN set it talks to that service instead (the key
// it creates is revoked at the end); CHARTDIFF_URL without CHARTDIFF_ACCOUNT_TOKEN is refused:
//
//	CHARTDIFF_URL=https://charts.example CHARTDIFF_ACCOUNT_TOKEN=... go run ./examples/chartdiff -chart 12345
package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/chartdiff/chartdifftest"
	"github.com/agentapis/sdk/examples/internal/cli"
)

// about is what -h says the program does.
const about = `Creates an API key with the account token, checks that the key header arrives, analyses
a chart, lists the hardest charts, rotates the key and revokes it. Offline against the
in-memory fake by default; with ` + chartdiff.EnvURL + ` and ` + chartdiff.EnvAccountToken + ` set, against
that service.`

// settings say which service to use and which chart to analyse.
type settings struct {
	baseURL string
	token   string
	chartID int
}

func main() { cli.Main(realMain) }

// realMain runs the program with the command line args and the environment env, and returns
// its exit status.
func realMain(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) int {
	p := cli.New("chartdiff", about,
		cli.Var{Name: chartdiff.EnvURL, Use: "the service's address, {chart_api_url} (unset: the in-memory fake)"},
		cli.Var{Name: chartdiff.EnvAccountToken, Use: "the account token that manages keys, required with " + chartdiff.EnvURL})
	chartID := p.Flags.Int("chart", chartdifftest.ChartNotAnalyzed, "id of the chart to analyse")
	if code, done := p.Parse(args, stdout, stderr); done {
		return code
	}
	if *chartID <= 0 {
		return p.Refuse(stderr, fmt.Errorf("-chart %d: chart ids are positive", *chartID))
	}
	live, err := cli.Live(env, chartdiff.EnvURL, chartdiff.EnvAccountToken)
	if err != nil {
		return p.Refuse(stderr, err)
	}
	s := settings{chartID: *chartID}
	if live {
		s.baseURL, s.token = env(chartdiff.EnvURL), env(chartdiff.EnvAccountToken)
	}
	return p.Exit(stderr, run(ctx, stdout, s))
}

// run performs the walk-through, writing what happens to out: against the service at
// s.baseURL, or the in-memory fake when it is empty.
func run(ctx context.Context, out io.Writer, s settings) (err error) {
	if s.baseURL == "" {
		srv := chartdifftest.NewServer()
		defer srv.Close()
		s.baseURL, s.token = srv.URL, srv.AccountToken()
		fmt.Fprintln(out, "offline: using the in-memory fake (set CHARTDIFF_URL and CHARTDIFF_ACCOUNT_TOKEN for a live service)")
	}
	admin, err := chartdiff.New(chartdiff.WithBaseURL(s.baseURL), chartdiff.WithAccountToken(s.token))
	if err != nil {
		return err
	}

	// 1. Create a key with the account token. The plaintext is shown this once; it prints as
	// a mask, and Reveal returns it.
	created, err := admin.CreateKey(ctx, &chartdiff.CreateKeyParams{
		Name:     "chartdiff-example",
		Scopes:   []chartdiff.Scope{chartdiff.ScopeChartsRead, chartdiff.ScopeAnalysesWrite, chartdiff.ScopeUsageRead},
		Lifetime: chartdiff.Lifetime30Days,
	})
	if err != nil {
		return fmt.Errorf("creating a key: %w", err)
	}
	keyID := created.Key.ID
	fmt.Fprintf(out, "created key %s: %s, scopes %v\n", keyID, created.Secret, created.Key.Scopes)
	defer func() {
		// Revoke whichever key is current, so that the example leaves nothing behind.
		if _, derr := admin.DeleteKey(context.WithoutCancel(ctx), keyID); derr != nil {
			err = errors.Join(err, fmt.Errorf("revoking key %s: %w", keyID, derr))
			return
		}
		fmt.Fprintf(out, "revoked key %s\n", keyID)
	}()

	client, err := chartdiff.New(chartdiff.WithBaseURL(s.baseURL), chartdiff.WithAPIKey(created.Secret.Reveal()))
	if err != nil {
		return err
	}

	// 2. Make sure the key header arrives: a dropped header would silently mean anonymous
	// limits.
	report, err := client.SelfCheck(ctx)
	if err != nil {
		return fmt.Errorf("self-check: %w", err)
	}
	fmt.Fprintf(out, "self-check:\n%s\n", report)

	// 3. Analyse a chart; a second call would come from the shared cache.
	res, err := client.Analyze(ctx, s.chartID)
	if err != nil {
		return fmt.Errorf("analysing chart %d: %w", s.chartID, err)
	}
	fmt.Fprintf(out, "chart %d %q: ref_const %s, notes %s, cached %t\n", res.Chart.ID, res.Chart.Name, show(res.Chart.RefConst), showInt(res.Chart.Notes), res.Cached)

	// 4. The hardest analysed charts; charts without a value sort last.
	page, err := client.Charts(ctx, &chartdiff.ChartsParams{Sort: chartdiff.SortRefConst, Order: chartdiff.Desc, PageSize: 5})
	if err != nil {
		return fmt.Errorf("listing charts: %w", err)
	}
	fmt.Fprintf(out, "hardest of %d cached charts:\n", page.Total)
	for _, ch := range page.Charts {
		if ch.Analyzed {
			fmt.Fprintf(out, "  %-3s %-28s ref_const %s  ref_official %s\n", ch.Level, ch.Name, show(ch.RefConst), show(ch.RefOfficial))
		}
	}
	if rl := page.Response.RateLimit; rl != nil && rl.Remaining != nil {
		fmt.Fprintf(out, "requests left this hour: %d\n", *rl.Remaining)
	}

	// 5. Rotate the key: the old one stops working at once.
	rotated, err := admin.RotateKey(ctx, keyID)
	if err != nil {
		return fmt.Errorf("rotating key %s: %w", keyID, err)
	}
	keyID = rotated.Key.ID
	fmt.Fprintf(out, "rotated: new key %s (%s), revoked %s\n", rotated.Key.ID, rotated.Secret, rotated.RevokedID)
	if _, err := client.Chart(ctx, s.chartID); errors.Is(err, chartdiff.ErrInvalidAPIKey) {
		fmt.Fprintln(out, "the old key is refused: invalid_api_key")
	} else {
		return fmt.Errorf("the old key should be revoked, got %v", err)
	}
	return nil
}

// show prints a value that may be absent.
func show(v *float64) string {
	if v == nil {
		return "absent"
	}
	return fmt.Sprintf("%.1f", *v)
}

// showInt prints a count that may be absent.
func showInt(v *int) string {
	if v == nil {
		return "absent"
	}
	return fmt.Sprint(*v)
}
