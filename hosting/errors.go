package hosting

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
)

// sentinels are the service's own sentinel errors; its error codes say nothing a status
// does not, so none is registered.
var sentinels = httpcore.NewSentinels(serviceName)

// ErrBlocked matches a 403 answered with an HTML page instead of the service's envelope: a CDN
// or firewall in front of the service blocked the request. PutFile returns it only after its
// POST remedy was blocked too. It also matches ErrForbidden.
var ErrBlocked = sentinels.New("request blocked by a CDN or firewall")

// ErrConflict matches a 409, such as a repository name already taken; it is
// [sdk.ErrConflict], as every status sentinel here is sdk's.
var ErrConflict = sdk.ErrConflict

// ErrForbidden matches a 403: the service's refusal, or a block page (see ErrBlocked); it is
// [sdk.ErrForbidden].
var ErrForbidden = sdk.ErrForbidden

// ErrNotFound matches a 404: no such repository, file, branch or commit (a repository of
// another account answers as a missing one); it is [sdk.ErrNotFound].
var ErrNotFound = sdk.ErrNotFound

// ErrRateLimited matches a 429, which the API description does not list but a gateway may
// send; it is [sdk.ErrRateLimited].
var ErrRateLimited = sdk.ErrRateLimited

// ErrUnauthorized matches a 401: the token is missing or unknown, after the X-API-Token
// remedy was tried; it is [sdk.ErrUnauthorized].
var ErrUnauthorized = sdk.ErrUnauthorized

// classify is the service's ClassifyAt: a block page matches ErrBlocked. The status sentinels
// match every *sdk.APIError of their status, {"ok": false} answers included.
func classify(err error, _ time.Time) error {
	var ae *sdk.APIError
	if errors.As(err, &ae) && isBlockPage(ae) {
		ae.Sentinels = append(ae.Sentinels, ErrBlocked)
	}
	return err
}

// isBlockPage reports whether ae is a 403 answered with an HTML page instead of the service's
// JSON envelope: the block page of a CDN or firewall.
func isBlockPage(ae *sdk.APIError) bool {
	if ae.StatusCode != http.StatusForbidden {
		return false
	}
	if mt, _, err := mime.ParseMediaType(ae.Header.Get("Content-Type")); err == nil {
		switch {
		case mt == "text/html", mt == "application/xhtml+xml":
			return true
		case mt == "application/json", strings.HasSuffix(mt, "+json"):
			return false
		}
	}
	return bytes.HasPrefix(bytes.TrimSpace(ae.Body), []byte("<"))
}

// invalid returns the *sdk.ValidationError for a refused parameter.
func invalid(field, reason string) error {
	return &sdk.ValidationError{Service: serviceName, Field: field, Reason: reason}
}

// UploadError reports a DeployDir whose uploads, or deletions of pruned files, did not all
// succeed (each after the client's retries). Nothing was committed or deployed: the
// repository's files hold whatever was written, and running DeployDir again sends only the
// files that are still missing or different.
//
// errors.As finds each file's own error through it (an *sdk.APIError, an
// *sdk.RequestError...), and errors.Is(err, context.Canceled) reports a DeployDir whose
// context ended.
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
