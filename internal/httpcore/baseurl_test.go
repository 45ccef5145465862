package httpcore

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
)

// TestBaseURLRefusalsSayWhatToChange holds the messages of a newcomer's first mistakes with
// a base URL: the refusal names the option and the field, says what is wrong and how to put
// it right, and never quotes the value.
func TestBaseURLRefusalsSayWhatToChange(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		raw, want string
	}{
		"empty (an unset variable)": {"", `testsvc: invalid base URL: WithBaseURL: the base URL is empty (os.Getenv returns "" for a variable that is not set)`},
		"host and port, no scheme":  {"127.0.0.1:9999", "testsvc: invalid base URL: WithBaseURL: the base URL has no scheme: begin it with http:// or https://"},
		"host and path, no scheme":  {"api.example.com/v1", "testsvc: invalid base URL: WithBaseURL: the base URL has no scheme: begin it with http:// or https://"},
		"name and port, no scheme":  {"localhost:8080", "testsvc: invalid base URL: WithBaseURL: the base URL has no scheme: begin it with http:// or https://"},
		"trailing line break":       {"https://api.example.com\n", "testsvc: invalid base URL: WithBaseURL: the base URL has spaces or a line break around it"},
		"another scheme":            {"ftp://api.example.com", "testsvc: invalid base URL: WithBaseURL: scheme must be http or https"},
		"password":                  {"https://u:secretpass@api.example.com", "testsvc: invalid base URL: WithBaseURL: user information is not allowed in the URL; credentials travel in headers"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := Configure("testsvc", &testConfig{}, []testOption{WithBaseURL[*testConfig](tc.raw)})
			var ve *sdk.ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, "base URL", ve.Field)
			assert.Equal(t, tc.want, err.Error())
			for _, part := range []string{"example.com", "9999", "8080", "secretpass"} {
				assert.NotContains(t, err.Error(), part, "the value is never quoted")
			}
		})
	}
}

// TestBaseURLVariableWithoutSchemeSaysSo holds that a variable read by LoadEnv gets the same
// advice, under the variable's name.
func TestBaseURLVariableWithoutSchemeSaysSo(t *testing.T) {
	t.Setenv("TESTSVC_URL", "api.example.com/v1")
	_, err := (&Settings{}).LoadEnv("testsvc", "TESTSVC_URL")
	var ve *sdk.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "testsvc: invalid TESTSVC_URL: the base URL has no scheme: begin it with http:// or https://", err.Error())
}
