// Package logbuf holds Buffer, the log destination of tests that read what was logged while
// goroutines still write. It imports nothing of the SDK, so that every test can use it, the
// HTTP core's own included.
package logbuf

import (
	"bytes"
	"sync"
)

// Buffer is a log destination for a test that reads what a client logged, or what a
// program wrote to its stderr: safe for the goroutines writing while the test reads.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
