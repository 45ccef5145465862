package secrettest

import (
	"encoding/base64"
	"testing"

	"github.com/agentapis/sdk/internal/failrecord"
	"github.com/stretchr/testify/assert"
)

func TestAssertNoTelltaleFindsEveryEchoAndItsMiddle(t *testing.T) {
	t.Parallel()
	const secret = "tok+Hs/9f8e7d6c5b4a3928=1716"
	echoes := EchoesOf("Bearer")
	for _, e := range echoes {
		f := failrecord.New(t)
		echoes.AssertNoTelltale(f, e.Name, []string{secret}, "before "+e.Encode(secret)+" after")
		assert.NotEmpty(t, f.Messages, "the %s echo is found", e.Name)
	}
	// A base64 echo of the secret behind a prefix the list does not use is still found by
	// its middle, which only the secret's bytes determine.
	f := failrecord.New(t)
	echoes.AssertNoTelltale(f, "other prefix", []string{secret}, base64.StdEncoding.EncodeToString([]byte("Token: "+secret)))
	assert.NotEmpty(t, f.Messages)

	f = failrecord.New(t)
	echoes.AssertNoTelltale(f, "clean", []string{secret}, "nothing secret here", "[REDACTED]")
	assert.Empty(t, f.Messages)
}

func TestNumberedPicksTheFormFromOne(t *testing.T) {
	t.Parallel()
	echoes := EchoesOf("Bearer")
	assert.Equal(t, "as sent", echoes.Numbered(t, "1").Name)
	assert.Equal(t, "base64 url raw", echoes.Numbered(t, "8").Name)
	f := failrecord.New(t)
	assert.Equal(t, "as sent", echoes.Numbered(f, "9").Name)
	assert.Equal(t, []string{`no echo form "9"`}, f.Messages)
}
