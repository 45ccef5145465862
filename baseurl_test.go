package sdk_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/productdata"
	"github.com/agentapis/sdk/reportstore"
)

// Every client refuses WithBaseURL given an empty string (os.Getenv of an unset variable)
// with the option's name, and a host without its scheme with the schemes to write, under
// its own service's name.
func TestEmptyBaseURLNamesTheOption(t *testing.T) {
	t.Parallel()
	clients := map[string]func(baseURL string) error{
		"reportstore": func(u string) error { _, err := reportstore.New(reportstore.WithBaseURL(u)); return err },
		"hosting":     func(u string) error { _, err := hosting.New(hosting.WithBaseURL(u)); return err },
		"productdata": func(u string) error { _, err := productdata.New(productdata.WithBaseURL(u)); return err },
		"gpuprice":    func(u string) error { _, err := gpuprice.New(gpuprice.WithBaseURL(u)); return err },
		"chartdiff":   func(u string) error { _, err := chartdiff.New(chartdiff.WithBaseURL(u)); return err },
	}
	for service, newClient := range clients {
		t.Run(service, func(t *testing.T) {
			err := newClient("")
			var ve *sdk.ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, "base URL", ve.Field)
			assert.Contains(t, err.Error(), service+": invalid base URL: WithBaseURL: the base URL is empty")

			err = newClient("127.0.0.1:9999")
			require.ErrorAs(t, err, &ve)
			assert.Contains(t, err.Error(),
				service+": invalid base URL: WithBaseURL: the base URL has no scheme: begin it with http:// or https://")
		})
	}
}
