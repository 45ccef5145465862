package hostingtest

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"
)

// DefaultBranch is the branch every repository starts with, used when a commit names none
// and by a deploy that names no commit.
const DefaultBranch = "main"

// blob is the content of one file; it is never changed once made, so commits share it.
type blob struct {
	data []byte
	sha  string // git blob SHA-1, hex
}

// newBlob keeps a copy of data with its git blob SHA-1.
func newBlob(data []byte) *blob {
	return &blob{data: slices.Clone(data), sha: BlobSHA(data)}
}

// BlobSHA returns the hash the fake lists for a file: the git blob SHA-1 of data in hex,
// sha1("blob <len>\x00" + data). A client can compare it with the hash of a local file to
// skip uploading an unchanged one.
func BlobSHA(data []byte) string {
	h := sha1.New()
	_, _ = h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	_, _ = h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// commit is a snapshot of a repository's working files.
type commit struct {
	id, branch, message, parent string
	created                     time.Time
	tree                        map[string]*blob
}

// deployment is one publication of a commit.
type deployment struct {
	id, commit, message string
	created             time.Time
}

// repo is one repository: its working files, commits, branches and deployments.
type repo struct {
	name, description, visibility, owner string
	created, updated                     time.Time
	files                                map[string]*blob
	commits                              map[string]*commit
	branches                             map[string]string // branch -> head commit id, "" before the first commit
	deployments                          []*deployment     // oldest first
	attempts                             map[string]int    // write attempts per path, for the failure draws
}

// newRepo makes an empty repository with its default branch.
func newRepo(name, description, visibility, owner string, now time.Time) *repo {
	return &repo{
		name: name, description: description, visibility: visibility, owner: owner,
		created: now, updated: now,
		files:    map[string]*blob{},
		commits:  map[string]*commit{},
		branches: map[string]string{DefaultBranch: ""},
		attempts: map[string]int{},
	}
}

// commitTo snapshots the working files as a new commit that becomes the head of branch.
func (r *repo) commitTo(branch, message string, seq uint64, now time.Time) *commit {
	parent := r.branches[branch]
	c := &commit{
		id:      objectID("commit", r.name, parent, branch, message, seq),
		branch:  branch,
		message: message,
		parent:  parent,
		created: now,
		tree:    maps.Clone(r.files),
	}
	r.commits[c.id] = c
	r.branches[branch] = c.id
	r.updated = now
	return c
}

// resolve finds a commit by branch name or commit id, in that order. It returns the commit
// id, "" for a branch without commits, and false when neither matches.
func (r *repo) resolve(ref string) (string, bool) {
	if id, ok := r.branches[ref]; ok {
		return id, true
	}
	if _, ok := r.commits[ref]; ok {
		return ref, true
	}
	return "", false
}

// latest returns the most recent deployment, or nil.
func (r *repo) latest() *deployment {
	if len(r.deployments) == 0 {
		return nil
	}
	return r.deployments[len(r.deployments)-1]
}

// deployedFile returns a file of the latest deployment.
func (r *repo) deployedFile(path string) (*blob, bool) {
	d := r.latest()
	if d == nil {
		return nil, false
	}
	b, ok := r.commits[d.commit].tree[path]
	return b, ok
}

// objectID makes a 40-hex id, unique through the server's sequence number.
func objectID(kind string, parts ...any) string {
	h := sha1.New()
	_, _ = fmt.Fprint(h, kind)
	for _, p := range parts {
		_, _ = fmt.Fprintf(h, "\x00%v", p)
	}
	return hex.EncodeToString(h.Sum(nil))
}
