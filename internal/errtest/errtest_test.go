package errtest

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fatals records what As reports instead of ending the test.
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
}
