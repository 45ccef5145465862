package httpcore

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
)

func TestCredentialRuleRefusesWhatTheDescriptionRulesOut(t *testing.T) {
	t.Parallel()
	token := CredentialRule{Service: "hosting",
		Refused: []RefusedPrefix{{Prefix: "Bearer ", Reason: `must be the token alone, without the "Bearer" scheme word`}}}
	key := CredentialRule{Service: "chartdiff", Pattern: regexp.MustCompile(`^sk-[0-9a-fA-F]{32}$`),
		Form: "sk- followed by 32 hexadecimal characters"}
	short := CredentialRule{Service: "gpuprice", MinLen: 8}
	cases := []struct {
		rule   CredentialRule
		value  string
		reason string
	}{
		{token, "", "must not be empty"},
		{token, "bearer tok-4b1d9e2a77c04f15", `must be the token alone, without the "Bearer" scheme word`},
		{token, "tok 4b1d9e2a", "must not contain white space or control characters"},
		{token, "tok\u00a04b1d9e2a", "must not contain white space or control characters"},
		{token, "tok-4b1d9e2a\n", "must not contain white space or control characters"},
		{token, "tok\x004b1d9e2a", "must not contain white space or control characters"},
		{short, "gpu-key", "must be at least 8 characters long"},
		{short, "ключ-123", ""},
		{key, "sk-0123456789abcdef0123456789abcdeg", "must be sk- followed by 32 hexadecimal characters"},
		{key, "sk-0123456789abcdef0123456789ABCDEF", ""},
		{token, "tok-4b1d9e2a77c04f15", ""},
	}
	for _, tc := range cases {
		err := tc.rule.Check("token", tc.value)
		if tc.reason == "" {
			assert.NoError(t, err, "%q", tc.value)
			continue
		}
		var ve *sdk.ValidationError
		require.ErrorAs(t, err, &ve, "%q", tc.value)
		assert.Equal(t, sdk.ValidationError{Service: tc.rule.Service, Field: "token", Reason: tc.reason}, *ve, "%q", tc.value)
		if tc.value != "" {
			assert.NotContains(t, err.Error(), tc.value, "the refusal never quotes the value")
		}
	}
}
