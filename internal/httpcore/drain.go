package httpcore

import (
	"io"
	"net/http"
)

// maxDrainBytes is how much of an unwanted body Drain reads before closing it.
const maxDrainBytes = 64 << 10

// Drain reads up to 64 KiB of an unwanted response body and closes it, so that net/http can
// reuse the connection for the next request (a body closed unread costs a new connection).
func Drain(resp *http.Response) {
	if resp == nil || resp.Body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrainBytes))
	_ = resp.Body.Close()
}
