package sdk_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentapis/sdk"
)

func TestSecretPrintsOnlyAMask(t *testing.T) {
	t.Parallel()
	plain := "sk-0123456789abcdef0123456789abcdef"
	k := sdk.NewSecret(plain)
	holder := struct {
		Name string
		Key  sdk.Secret
		Ptr  *sdk.Secret
	}{"n", k, &k}

	assert.Equal(t, plain, k.Reveal())
	assert.Equal(t, "sk-…cdef", k.String())
	assert.False(t, k.IsZero())

	var out []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10s", "%-40v", "%T"} {
		out = append(out, fmt.Sprintf(verb, k), fmt.Sprintf(verb, holder), fmt.Sprintf(verb, &holder))
	}
	out = append(out, fmt.Sprint(k), fmt.Sprintln(k, holder), fmt.Errorf("wrapped: %v", k).Error())
	assert.Contains(t, fmt.Sprintf("%q", k), `"sk-…cdef"`)
	assert.Contains(t, fmt.Sprintf("%#v", k), "sdk.Secret(sk-…cdef)")

	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("key", "k", k, "holder", holder, "ptr", &k)
	slog.New(slog.NewJSONHandler(&js, nil)).Info("key", "k", k, "holder", holder, "ptr", &k)
	out = append(out, text.String(), js.String())
	assert.Contains(t, js.String(), `"k":"sk-…cdef"`)

	b, err := json.Marshal(holder)
	assert.NoError(t, err)
	out = append(out, string(b))
	assert.Contains(t, string(b), `"Key":"sk-…cdef"`, "encoding stores the mask; persist Reveal's result")

	for _, s := range out {
		assert.NotContains(t, s, "0123456789abcdef0123", "output %q", s)
	}
}

func TestSecretMaskOfOtherValues(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "", sdk.Secret{}.String())
	assert.True(t, sdk.Secret{}.IsZero())
	assert.Equal(t, "[REDACTED]", sdk.NewSecret("short-secret").String(), "a short value is hidden whole")
	assert.Equal(t, "gp_…wxyz", sdk.NewSecret("gp_abcdefghijklmnopqrstuvwxyz").String())
	assert.Equal(t, "…6789", sdk.NewSecret("abcdefghij0123456789").String(), "no prefix when none names the kind")
	assert.Equal(t, "…6789", sdk.NewSecret("averylongprefix-0123456789").String(), "a dash far into the value is not a prefix")
}
