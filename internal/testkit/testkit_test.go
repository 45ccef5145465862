package testkit

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentapis/sdk"
)

// fatals records what a helper reports instead of ending the test.
type fatals struct {
	testing.TB
	messages []string
}

func (f *fatals) Helper() {}

func (f *fatals) Fatalf(format string, args ...any) {
	f.messages = append(f.messages, fmt.Sprintf(format, args...))
}

func TestAsFindsTheTypedErrorOrFails(t *testing.T) {
	t.Parallel()
	pe := &fs.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist}
	assert.Same(t, pe, As[*fs.PathError](t, fmt.Errorf("wrapped: %w", pe)))

	f := &fatals{TB: t}
	got := As[*fs.PathError](f, errors.New("plain"))
	assert.Nil(t, got)
	assert.Equal(t, []string{"want *fs.PathError, got *errors.errorString: plain"}, f.messages)

	ae := &sdk.APIError{StatusCode: 404}
	assert.Same(t, ae, APIError(t, fmt.Errorf("wrapped: %w", &sdk.RateLimitError{APIError: ae})), "through a wrapper")
	ve := &sdk.ValidationError{Field: "id"}
	assert.Same(t, ve, ValidationError(t, ve))
	mc := &sdk.MissingCredentialError{Credential: "token"}
	assert.Same(t, mc, MissingCredential(t, mc))
	de := &sdk.DecodeError{Excerpt: "{"}
	assert.Same(t, de, DecodeError(t, de))
}

// options of a stand-in client, whose New refuses a negative size.
type option func(*int) error

func newThing(opts ...option) (*int, error) {
	n := 1
	for _, o := range opts {
		if err := o(&n); err != nil {
			return nil, err
		}
	}
	return &n, nil
}

func size(n int) option {
	return func(p *int) error {
		if n < 0 {
			return errors.New("negative size")
		}
		*p = n
		return nil
	}
}

func TestNewReturnsTheClientOrFails(t *testing.T) {
	t.Parallel()
	assert.Equal(t, 1, *New(t, newThing))
	assert.Equal(t, 7, *New(t, newThing, size(3), size(7)), "options apply in order")
	f := &fatals{TB: t}
	assert.Nil(t, New(f, newThing, size(-1)))
	assert.Equal(t, []string{"new client: negative size"}, f.messages)
}

// closer counts its Close calls.
type closer struct{ closed int }

func (c *closer) Close() { c.closed++ }

func TestStartClosesWhenTheTestEnds(t *testing.T) {
	t.Parallel()
	c := &closer{}
	t.Run("inner", func(t *testing.T) {
		assert.Same(t, c, Start(t, c))
		assert.Zero(t, c.closed, "open while the test runs")
	})
	assert.Equal(t, 1, c.closed)
}

func TestValues(t *testing.T) {
	t.Parallel()
	p := Ptr(42)
	*p = 43
	assert.Equal(t, 43, *p)
	assert.NotSame(t, Ptr(1), Ptr(1), "each call a new pointer")
	assert.Equal(t, 1, NoRetry.MaxAttempts)
	assert.Zero(t, FastRetry.MaxAttempts, "the default attempts, quickly")
	assert.Less(t, FastRetry.MaxDelay, sdk.DefaultBaseDelay)
}
