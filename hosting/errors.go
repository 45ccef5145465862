package hosting

import (
	"fmt"
	"strings"
)

//go:generate go run github.com/agentapis/sdk/internal/gentypes -service hosting -types APIError,RateLimitError,Response,RetryPolicy

// UploadError reports a DeployDir whose uploads, or deletions of pruned files, did not all
// succeed (each after the client's retries). Nothing was committed or deployed: the
// repository's files hold whatever was written, and running DeployDir again sends only the
// files that are still missing or different.
//
// errors.As finds each file's own error through it (an *APIError, a *RequestError...), and
// errors.Is(err, context.Canceled) reports a DeployDir whose context ended.
type UploadError struct {
	// Repo is the repository's name.
	Repo string
	// Files lists every file that failed, sorted by path.
	Files []FileError
	// Done is how many files were written, deleted or found unchanged before DeployDir gave up.
	Done int
}

// FileError is the failure of one file of a DeployDir.
type FileError struct {
	// Path is the file's path in the repository.
	Path string
	// Op is what failed: "read" (the local file), "upload" or "delete".
	Op string
	// Err is the cause.
	Err error
}

// maxListedFiles caps how many failed paths UploadError.Error quotes.
const maxListedFiles = 20

// Error says how many files failed, names them (up to 20, then a count) with their causes, and
// that nothing was committed.
func (e *UploadError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: deploying repository %q: %d file(s) failed, nothing committed", serviceName, e.Repo, len(e.Files))
	for i, f := range e.Files {
		if i == maxListedFiles {
			fmt.Fprintf(&b, "; and %d more", len(e.Files)-maxListedFiles)
			break
		}
		fmt.Fprintf(&b, "; %s %s: %v", f.Op, f.Path, f.Err)
	}
	return b.String()
}

// Unwrap returns each file's error.
func (e *UploadError) Unwrap() []error {
	out := make([]error, len(e.Files))
	for i, f := range e.Files {
		out[i] = f.Err
	}
	return out
}

// Paths returns the failed paths, sorted.
func (e *UploadError) Paths() []string {
	out := make([]string, len(e.Files))
	for i, f := range e.Files {
		out[i] = f.Path
	}
	return out
}
