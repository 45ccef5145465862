// Package hostingtest is an in-memory fake of the hosting API, for tests, examples and anyone
// who wants to exercise code that uses package hosting without a network.
//
//	srv := hostingtest.NewServer()
//	defer srv.Close()
//	client, err := hosting.New(hosting.WithBaseURL(srv.URL), hosting.WithToken(hostingtest.DefaultToken))
//	if err != nil {
//		return err
//	}
//	_, err = client.CreateRepo(ctx, &hosting.CreateRepoParams{Name: "under-test"})
//
// The fake implements every endpoint of the API description under /api/v1 (repositories,
// files, commits, branches, deployments) and publishes deployed files under /site/<name>/.
// It does not import package hosting, so a member name the client gets wrong is caught by
// the client's end-to-end tests.
//
// # Accounts
//
// Every request to /api/v1 needs a token, as "Authorization: Bearer <token>" or, when no
// Bearer credential is present, in X-API-Token; a missing or unknown token is 401. The
// server starts with DefaultToken, whose owner is DefaultOwner; WithAccount and
// Server.AddAccount add more. A repository belongs to the owner of the token that created it;
// for any other owner it does not exist (404 "repository not found", as for a missing one).
//
// Sites are published at /site/<name>/, so repository names are global: a name taken by any
// owner cannot be created again (409 "repository name already taken"). A name is one
// non-empty segment of valid UTF-8, neither "." nor "..", without "/", backslash or control
// characters.
//
// # The envelope and statuses
//
// Every API answer is a JSON object with "ok". A failure is {"ok":false,"error":"<text>"}
// with status 400 (bad input: body, name, path, base64), 401 (token), 404 (no such
// repository, file, branch, commit or endpoint), 405 (method; with Allow), 409 (name taken,
// branch exists, nothing to deploy), 413 (body over WithMaxBodyBytes), 415 (a PUT or POST
// whose Content-Type is not application/json; parameters such as charset are allowed), or
// 500 and 503 (WithWriteFailures). Request bodies must be one JSON object whose members are
// all named below, matched exactly (case-sensitively), each a string or null (null is
// absent); an unknown member is a 400 naming it. An optional member that is "" counts as
// absent. Creations answer 201, everything else 200. Timestamps are UTC in the form
// 2006-01-02T15:04:05.000Z.
//
// # Shapes the API description does not show
//
// A repository object is {name, description, visibility, owner, default_branch, created_at,
// updated_at}. A file entry is {path, size, sha}, sha being the git blob SHA-1 in hex,
// sha1("blob <size>\x00" + content) (see BlobSHA), so that a client can skip a file that is
// unchanged. A branch is {name, commit}, commit being null until the branch has a commit. A
// commit is {id, branch, message, parent, created_at}, parent null for the first. A
// deployment is {id, commit, message, created_at, preview_url}.
//
//   - GET /api/v1/repos: {ok, repos: [repository]}, the caller's, by name.
//   - POST /api/v1/repos {name, description, visibility}: 201 {ok, repo}. visibility is
//     public (the default) or private; it is recorded and changes nothing else.
//   - GET /api/v1/repos/<name>: {ok, repo, files: [file entry], branches: [branch],
//     head}, head being the commit id at the head of the default branch, main, or null.
//     files are the working files, by path; branches by name.
//   - PUT or POST /api/v1/repos/<name>/files/<path> {content} or {content_base64} (exactly
//     one; an optional path member must equal the address's): {ok, path, size, sha}.
//     content is stored as its UTF-8 bytes; content_base64 must be standard base64 with
//     padding and is stored decoded. Writes go to the working files, not to a branch.
//   - GET /api/v1/repos/<name>/files/<path>: {ok, path, size, sha, content} when the bytes
//     are valid UTF-8, else {ok, path, size, sha, content_base64}; 404 for a missing file.
//   - DELETE /api/v1/repos/<name>/files/<path>: {ok, path}; 404 for a missing file.
//   - POST /api/v1/repos/<name>/commit {message, branch}: 201 {ok, commit}. message must not
//     be blank; branch defaults to main and must exist (404 otherwise; create it with
//     /branches). The working files become a new commit at the head of the branch, even
//     when nothing changed since its parent: a commit never fails for being empty.
//   - POST /api/v1/repos/<name>/deploy {commit, message}: 201 {ok, deployment, preview_url}
//     (preview_url also at the top level). commit is a commit id of the repository (404 if
//     unknown); without it the head of main is deployed, 409 when main has no commit. The
//     deployment becomes the published site at once (deploying an older commit rolls back).
//   - GET /api/v1/repos/<name>/deployments: {ok, deployments}, newest first.
//   - POST /api/v1/repos/<name>/branches {branch, from}: 201 {ok, branch}. from is a branch
//     name or a commit id, main by default; 409 when the branch exists or from has no
//     commit, 404 when from names nothing. A branch name has no whitespace, backslash,
//     control character, ".." or empty segment ("feature/x" is fine).
//
// File paths in addresses are decoded once ("%2F" counts as a separator) and must be
// relative, with non-empty segments none of which is "." or "..", without backslash or
// control characters (NUL included); anything else is a 400. Nested paths are stored as
// given.
//
// # Published sites
//
// GET or HEAD /site/<name>/<path> needs no token and serves the files of the repository's
// latest deployment, whatever its visibility. A path that is empty or ends in "/" serves its
// index.html; a folder without the slash, and /site/<name> itself, redirect (301) to the
// address with the slash. Content-Type comes from the extension by a fixed table (HTML, CSS,
// JavaScript, JSON, text, XML, SVG, common image and font types; application/octet-stream
// otherwise), with an ETag of the blob SHA and Range support. A missing file, repository or
// deployment is a plain 404. preview_url is URL + "/site/<name>/".
//
// # Gateway and CDN
//
// The options put infrastructure in front of the service, as the API description's error
// table describes. WithGatewayStripsAuthorization removes the Authorization header, so a
// Bearer-only request is a 401 and X-API-Token works. WithCDNBlockRawHTML answers a PUT or
// POST whose JSON content member holds markup (any of "<html", "<!doctype", "<script",
// "<svg", "<?xml", "<iframe", "<body", "<head", "<style", case-insensitively, after JSON
// decoding) with a 403 text/html block page instead of the envelope; content_base64 is not
// inspected. WithCDNBlockPUT answers every PUT of a file with the block page, while POST to
// the same address passes. The firewall acts before authentication.
//
// # Faults and inspection
//
// WithLatency delays every request, API and site; the wait ends, unanswered, when the client
// goes away or the server closes. WithWriteFailures(share, seed) fails file writes (PUT and
// POST) with 500 or 503 after they pass validation and storing nothing: the k-th write of a
// path in a repository fails when a hash of (seed, repository, path, k), read as a number in
// [0, 1), is below share. The outcome therefore depends only on the seed, not on the order of
// concurrent writes, and a write sent again draws afresh.
//
// Like every fake of the SDK (see package sdktest), a Server has URL, Close and Client;
// Requests, the requests it received in order of arrival, and RequestCount(method, path);
// and InjectFaults, which answers the next matching requests with an sdktest.Fault instead of
// the service: a drop, or the envelope {"ok":false,"error":<message>} (with "code" when the
// fault has one) under the fault's status, 200 included. Requests are sdktest.Requests, with
// credential headers and every known token redacted, so no record ever holds a token;
// Exchanges adds what this fake learnt about each: the credential headers sent and the one
// the service read, the body encoding of a file write, whether the CDN blocked it and whether
// a token was in its URL. WithClock gives the fake an sdk.Clock for its timestamps. Stats counts
// what the service did (writes stored and failed, deletions, commits, deployments), and File,
// Files, DeployedFile, Head, Deployments, Owner and SiteURL read its state directly.
//
// # Stability
//
// The fake follows the SDK's versioning like the client does: the names above and the
// behaviour this documentation gives are kept within a major version. Where the API
// description is silent (the shapes above, the error texts, the statuses of failures) the fake
// answers as this documentation says, which later minor versions may refine toward what a real
// service is found to do; a test that needs an exact answer asserts on what it sent
// (Requests) or on the state it left (File, Head, Deployments) rather than on a message's
// wording.
package hostingtest
