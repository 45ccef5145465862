package httpcore

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSleepWaitsOrEndsWithTheContext(t *testing.T) {
	t.Parallel()
	start := time.Now()
	require.NoError(t, Sleep(t.Context(), 20*time.Millisecond))
	assert.GreaterOrEqual(t, time.Since(start), 20*time.Millisecond)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.ErrorIs(t, Sleep(ctx, time.Hour), context.Canceled, "an ended context stops an hour-long wait")
	assert.ErrorIs(t, Sleep(ctx, 0), context.Canceled)
	assert.NoError(t, Sleep(t.Context(), -time.Second))
}
