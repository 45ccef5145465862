package secrettest

import (
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// failures records what AssertNoTelltale reports instead of failing the test.
type failures struct {
	testing.TB
	messages []string
}

func (f *failures) Helper() {}

func (f *failures) Errorf(format string, args ...any) {
	f.messages = append(f.messages, fmt.Sprintf(format, args...))
}

func TestAssertNoTelltaleFindsEveryEchoAndItsMiddle(t *testing.T) {
	t.Parallel()
	const secret = "tok+Hs/9f8e7d6c5b4a3928=1716"
	echoes := EchoesOf("Bearer")
	for _, e := range echoes {
		f := &failures{TB: t}
		echoes.AssertNoTelltale(f, e.Name, []string{secret}, "before "+e.Encode(secret)+" after")
		assert.NotEmpty(t, f.messages, "the %s echo is found", e.Name)
	}
	// A base64 echo of the secret behind a prefix the list does not use is still found by
	// its middle, which only the secret's bytes determine.
	f := &failures{TB: t}
	echoes.AssertNoTelltale(f, "other prefix", []string{secret}, base64.StdEncoding.EncodeToString([]byte("Token: "+secret)))
	assert.NotEmpty(t, f.messages)

	f = &failures{TB: t}
	echoes.AssertNoTelltale(f, "clean", []string{secret}, "nothing secret here", "[REDACTED]")
	assert.Empty(t, f.messages)
}

func TestNumberedPicksTheFormFromOne(t *testing.T) {
	t.Parallel()
	echoes := EchoesOf("Bearer")
	assert.Equal(t, "as sent", echoes.Numbered(t, "1").Name)
	assert.Equal(t, "base64 url raw", echoes.Numbered(t, "8").Name)
	f := &failures{TB: t}
	assert.Equal(t, "as sent", echoes.Numbered(f, "9").Name)
	assert.Equal(t, []string{`no echo form "9"`}, f.messages)
}
