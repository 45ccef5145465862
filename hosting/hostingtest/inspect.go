package hostingtest

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/agentapis/sdk/sdktest"
)

// The credential headers an Exchange names.
const (
	// AuthAuthorization is the Authorization header (Bearer scheme).
	AuthAuthorization = "authorization"
	// AuthAPIToken is the X-API-Token header.
	AuthAPIToken = "x-api-token"
	// AuthNone means that no credential reached the service.
	AuthNone = ""
)

// Exchange is one request the fake received, as every fake records it (sdktest.Request:
// its credential headers redacted, and every known token found in its path, query, header
// values or body replaced by sdktest.Redacted), with what this fake learnt about it.
type Exchange struct {
	sdktest.Request
	// AuthHeaders lists the credential headers the client sent, before any gateway:
	// AuthAuthorization, AuthAPIToken, both or none.
	AuthHeaders []string
	// Auth is the header the service read the token from, after the gateway: AuthAuthorization,
	// AuthAPIToken, or AuthNone when no credential reached it (site requests, requests the
	// CDN blocked and injected faults included).
	Auth string
	// Encoding is, for a PUT or POST of a file, which members its JSON body had: "content",
	// "content_base64", "content+content_base64", or "" for neither (and for other requests).
	Encoding string
	// Blocked is true when the CDN firewall answered the request with its block page.
	Blocked bool
	// TokenInURL is true when a known token appeared in the request's path or query.
	TokenInURL bool
}

// record is what the fake's logic adds to the record of a request (see Exchange).
type record struct {
	auth, encoding string
	blocked        bool
}

// Stats counts what the fake's service did, beyond the requests it received (which Requests
// and RequestCount tell, with their statuses).
type Stats struct {
	// PutWrites and PostWrites count the file writes stored, by method.
	PutWrites, PostWrites int
	// FailedWrites counts the file writes failed by WithWriteFailures.
	FailedWrites int
	// Deletes counts the files deleted.
	Deletes int
	// Commits counts the commits made.
	Commits int
	// Deploys counts the deployments made.
	Deploys int
}

// Deployment is a deployment record, as Server.Deployments returns it.
type Deployment struct {
	// ID is the deployment's id.
	ID string
	// Commit is the id of the deployed commit.
	Commit string
	// Message is the deploy request's message ("" when it had none).
	Message string
	// CreatedAt is when the deployment was made, on the fake's clock.
	CreatedAt time.Time
	// PreviewURL is the address of the published site.
	PreviewURL string
}

// Requests returns the record of every request received so far, in order of arrival, with
// every known token replaced by sdktest.Redacted; Exchanges adds what the fake learnt.
func (s *Server) Requests() []sdktest.Request { return s.fs.Requests() }

// Exchanges returns every request received so far, in order of arrival, with what the fake
// learnt about it: the credential headers sent and read, a file write's encoding, a block by
// the CDN and a token in the URL.
func (s *Server) Exchanges() []Exchange {
	recs := s.fs.Records()
	out := make([]Exchange, len(recs))
	for i, rec := range recs {
		e := Exchange{Request: rec.Request}
		if x, ok := rec.Extra.(record); ok {
			e.Auth, e.Encoding, e.Blocked = x.auth, x.encoding, x.blocked
		}
		if e.Header.Get("Authorization") != "" {
			e.AuthHeaders = append(e.AuthHeaders, AuthAuthorization)
		}
		if e.Header.Get("X-API-Token") != "" {
			e.AuthHeaders = append(e.AuthHeaders, AuthAPIToken)
		}
		e.TokenInURL = redactedInURL(e.Request)
		out[i] = e
	}
	return out
}

// redactedInURL reports whether the record of r replaced a token in its path or query.
func redactedInURL(r sdktest.Request) bool {
	redacted := func(text string) bool { return strings.Contains(text, sdktest.Redacted) }
	if redacted(r.Path) {
		return true
	}
	for k, vs := range r.Query {
		if redacted(k) || slices.ContainsFunc(vs, redacted) {
			return true
		}
	}
	return false
}

// tokens returns the tokens of every account, the credentials the fake scrubs from its
// records.
func (s *Server) tokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Collect(maps.Keys(s.accounts))
}

// Stats returns the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Owner returns the owner of a repository.
func (s *Server) Owner(repo string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repo]
	if r == nil {
		return "", false
	}
	return r.owner, true
}

// File returns a copy of a working file of a repository (as written, before any commit).
// Repository names are unique across owners, so no owner is needed.
func (s *Server) File(repo, path string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repo]
	if r == nil || r.files[path] == nil {
		return nil, false
	}
	return slices.Clone(r.files[path].data), true
}

// Files returns the paths of a repository's working files in order; nil for an unknown
// repository.
func (s *Server) Files(repo string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repo]
	if r == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(r.files))
}

// DeployedFile returns a copy of a file of a repository's latest deployment: what
// /site/<repo>/<path> serves.
func (s *Server) DeployedFile(repo, path string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repo]
	if r == nil {
		return nil, false
	}
	b, ok := r.deployedFile(path)
	if !ok {
		return nil, false
	}
	return slices.Clone(b.data), true
}

// Head returns the commit id at the head of a branch of a repository; false when the
// repository or the branch does not exist or the branch has no commits yet.
func (s *Server) Head(repo, branch string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repo]
	if r == nil || r.branches[branch] == "" {
		return "", false
	}
	return r.branches[branch], true
}

// Deployments returns a repository's deployments, oldest first.
func (s *Server) Deployments(repo string) []Deployment {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.repos[repo]
	if r == nil {
		return nil
	}
	out := make([]Deployment, 0, len(r.deployments))
	for _, d := range r.deployments {
		out = append(out, Deployment{d.id, d.commit, d.message, d.created, s.SiteURL(r.name)})
	}
	return out
}
