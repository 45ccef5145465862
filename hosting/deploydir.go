package hosting

import (
	"cmp"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/agentapis/sdk"
)

// Limits of DeployDir's concurrency.
const (
	// DefaultConcurrency is how many files DeployDir sends at once by default.
	DefaultConcurrency = 8
	// MaxConcurrency is the most files DeployDir sends at once.
	MaxConcurrency = 64
)

// DeployDirParams are the parameters of DeployDir; the zero value (or nil) uses the defaults.
type DeployDirParams struct {
	// Concurrency is how many files are sent at once, 1 to MaxConcurrency (0 means
	// DefaultConcurrency).
	Concurrency int
	// Prune deletes the repository's files that fsys does not hold, after every upload
	// succeeded and before the commit.
	Prune bool
	// Message is the commit's and the deployment's message; "" means "Deploy <n> files".
	Message string
	// Branch is the branch to commit to and deploy from; "" lets the service choose.
	Branch string
	// Progress, when set, is called after each file is done (uploaded, found unchanged or
	// deleted). It is called from the uploading goroutines, one call at a time, so it needs no
	// locking of its own; it should return quickly.
	Progress func(Progress)
}

// Action is what DeployDir did with one file.
type Action string

// The actions of DeployDir.
const (
	// ActionUploaded: the file was written.
	ActionUploaded Action = "uploaded"
	// ActionUnchanged: the repository's copy has the same size and hash; nothing was sent.
	ActionUnchanged Action = "unchanged"
	// ActionDeleted: the file was gone from the folder and Prune deleted it.
	ActionDeleted Action = "deleted"
)

// Progress is DeployDir's progress after one more file.
type Progress struct {
	// Path is the file just done, and Action what was done with it.
	Path   string
	Action Action
	// FilesDone counts the files done so far, of FilesTotal: the folder's files plus, with
	// Prune, the repository's files to delete.
	FilesDone, FilesTotal int
	// BytesDone counts the bytes of the folder's files done so far (uploaded or unchanged),
	// of BytesTotal.
	BytesDone, BytesTotal int64
}

// DeployResult is the outcome of DeployDir.
type DeployResult struct {
	// Deployment is the new deployment; its PreviewURL is set.
	Deployment *Deployment
	// SiteURL is the address of the published site (see Client.SiteURL).
	SiteURL string
	// Commit is the commit that was deployed.
	Commit *Commit
	// Uploaded, Unchanged and Deleted list the paths of each action, sorted.
	Uploaded, Unchanged, Deleted []string
	// Ignored lists the entries of the folder that are neither files nor folders (a link to a
	// folder, a device...), which were not sent, sorted.
	Ignored []string
}

// DeployDir publishes the folder fsys (such as os.DirFS("public")) as repository repo's site:
// it writes every file of the folder under the same path (a file whose copy in the repository
// has the same size and hash is not sent again), with params.Prune deletes the repository's files
// the folder does not hold, then makes one commit and one deployment of that commit.
//
// The files go with bounded concurrency (params.Concurrency, DefaultConcurrency by default), as
// PUTs that the client retries like any idempotent request, with the gateway remedies of
// PutFile. If any file still fails, DeployDir commits nothing and returns an *UploadError
// listing every failed path; the repository then holds the files that were written, and
// running DeployDir again sends only what is still missing or different.
//
// The commit and the deployment are made even when no file changed, so that a run after
// a failed commit or deployment completes it.
//
// Whether a file is unchanged is decided by the repository's file list (Client.Repo): a
// sha256 is compared with the SHA-256 of the local bytes, a 40-digit sha with their git blob
// SHA-1 (sha1 of "blob <size>\x00" and the bytes) or their plain SHA-1; a size that differs
// means changed, and an entry without a hash is always sent. The file list must therefore
// describe the files as written, which the next commit takes.
//
// Before any request the folder is read in full: a path the service would refuse (a
// backslash, a control character) is a *sdk.ValidationError naming it, and a folder without
// files is refused, so that a wrong folder with Prune cannot empty a site. The folder's files
// are read again, one at a time per upload, when they are sent.
func (c *Client) DeployDir(ctx context.Context, repo string, fsys fs.FS, params *DeployDirParams) (*DeployResult, error) {
	var o DeployDirParams // params with the defaults filled in
	if params != nil {
		o = *params
	}
	if err := cmp.Or(checkRepoName("name", repo), o.check()); err != nil {
		return nil, err
	}
	if fsys == nil {
		return nil, invalid("fsys", "must not be nil")
	}
	sizes, ignored, err := listFolder(fsys)
	if err != nil {
		return nil, err
	}
	o.Message = cmp.Or(o.Message, "Deploy "+strconv.Itoa(len(sizes))+" files")
	o.Concurrency = cmp.Or(o.Concurrency, DefaultConcurrency)

	info, err := c.Repo(ctx, repo)
	if err != nil {
		return nil, err
	}
	remote := make(map[string]FileEntry, len(info.Files))
	for _, e := range info.Files {
		if !e.IsDir() {
			remote[e.Path] = e
		}
	}
	var stale []string
	for p := range remote {
		if _, local := sizes[p]; o.Prune && !local {
			stale = append(stale, p)
		}
	}
	sort.Strings(stale)
	t := &tracker{progress: o.Progress, paths: map[Action][]string{}}
	t.now.FilesTotal = len(sizes) + len(stale)
	for _, n := range sizes {
		t.now.BytesTotal += n
	}

	failed := runEach(ctx, o.Concurrency, slices.Sorted(maps.Keys(sizes)), "upload", func(ctx context.Context, path string) *FileError {
		data, err := fs.ReadFile(fsys, path)
		if err != nil {
			return &FileError{Path: path, Op: "read", Err: err}
		}
		if e, ok := remote[path]; ok && sameContent(e, data) {
			t.done(path, ActionUnchanged, int64(len(data)))
			return nil
		}
		if _, err := c.PutFile(ctx, repo, path, data); err != nil {
			return &FileError{Path: path, Op: "upload", Err: err}
		}
		t.done(path, ActionUploaded, int64(len(data)))
		return nil
	})
	if len(failed) == 0 {
		failed = runEach(ctx, o.Concurrency, stale, "delete", func(ctx context.Context, path string) *FileError {
			if _, err := c.deleteFile(ctx, repo, path); err != nil {
				return &FileError{Path: path, Op: "delete", Err: err}
			}
			t.done(path, ActionDeleted, 0)
			return nil
		})
	}
	if len(failed) > 0 {
		return nil, &UploadError{Repo: repo, Files: failed, Done: t.now.FilesDone}
	}

	cm, err := c.Commit(ctx, repo, &CommitParams{Message: o.Message, Branch: o.Branch})
	if err != nil {
		return nil, fmt.Errorf("%s: deploying repository %q: every file was written, but committing did not succeed: %w", serviceName, repo, err)
	}
	if cm.ID == "" && o.Branch != "" {
		// The deployment can name a commit only by its id; without one, the service would
		// deploy its default, which may not be this branch.
		return nil, fmt.Errorf("%s: deploying repository %q: the commit to branch %q was made, but the answer carried no commit id to deploy", serviceName, repo, o.Branch)
	}
	d, err := c.Deploy(ctx, repo, &DeployParams{Commit: cm.ID, Message: o.Message})
	if err != nil {
		// The id is the server's text: scrubbed, as the core scrubs the text of its errors.
		return nil, fmt.Errorf("%s: deploying repository %q: commit %q was made, but deploying it did not succeed: %w",
			serviceName, repo, c.core.Redact(cm.ID), err)
	}
	site, err := c.SiteURL(repo)
	if err != nil {
		return nil, err
	}
	for _, list := range t.paths {
		sort.Strings(list) // every upload and deletion is over
	}
	return &DeployResult{Deployment: d, SiteURL: site, Commit: cm, Uploaded: t.paths[ActionUploaded],
		Unchanged: t.paths[ActionUnchanged], Deleted: t.paths[ActionDeleted], Ignored: ignored}, nil
}

// check refuses parameters out of range.
func (p *DeployDirParams) check() error {
	if p.Concurrency < 0 || p.Concurrency > MaxConcurrency {
		return invalid("concurrency", "must be between 1 and "+strconv.Itoa(MaxConcurrency)+" (0 for the default)")
	}
	return cmp.Or(checkLabel("message", p.Message, false), checkLabel("branch", p.Branch, false))
}

// listFolder returns the size of each file of fsys by path, and the entries that are neither
// files nor folders. A path the service would refuse is a *sdk.ValidationError quoting it; a
// folder without files is refused.
func listFolder(fsys fs.FS) (sizes map[string]int64, ignored []string, err error) {
	sizes = map[string]int64{}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		info, err := fs.Stat(fsys, p) // follows a link to its target
		if err != nil || !info.Mode().IsRegular() {
			ignored = append(ignored, p)
			return nil
		}
		if err := checkPath("path", p); err != nil {
			var ve *sdk.ValidationError
			if errors.As(err, &ve) {
				ve.Reason = strconv.Quote(p) + " in the folder: " + ve.Reason
			}
			return err
		}
		sizes[p] = info.Size()
		return nil
	})
	var ve *sdk.ValidationError
	switch {
	case errors.As(err, &ve):
		return nil, nil, err
	case err != nil:
		return nil, nil, fmt.Errorf("%s: reading the folder to deploy: %w", serviceName, err)
	case len(sizes) == 0:
		return nil, nil, invalid("fsys", "holds no files")
	}
	return sizes, ignored, nil
}

// sameContent reports whether the repository's entry e describes data: the sizes agree where
// e has one, and a hash of e matches (sha256 by SHA-256; sha by git blob SHA-1 or plain
// SHA-1). An entry without a hash never matches.
func sameContent(e FileEntry, data []byte) bool {
	if e.Size != nil && *e.Size != int64(len(data)) {
		return false
	}
	if e.SHA256 != "" {
		sum := sha256.Sum256(data)
		return strings.EqualFold(e.SHA256, hex.EncodeToString(sum[:]))
	}
	if e.SHA != "" {
		return strings.EqualFold(e.SHA, blobSHA1(data)) || strings.EqualFold(e.SHA, plainSHA1(data))
	}
	return false
}

// blobSHA1 is git's object id of data as a blob: the SHA-1 of "blob <size>\x00" and data.
func blobSHA1(data []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// plainSHA1 is the SHA-1 of data.
func plainSHA1(data []byte) string {
	sum := sha1.Sum(data)
	return hex.EncodeToString(sum[:])
}

// runEach calls work for each of paths, at most limit at a time, and returns the failures
// sorted by path. Once ctx ends, the paths not yet started fail as op with its error.
func runEach(ctx context.Context, limit int, paths []string, op string, work func(ctx context.Context, path string) *FileError) []FileError {
	var mu sync.Mutex
	var failed []FileError
	var g errgroup.Group
	g.SetLimit(limit)
	for _, path := range paths {
		g.Go(func() error {
			f := &FileError{Path: path, Op: op, Err: ctx.Err()}
			if f.Err == nil {
				f = work(ctx, path)
			}
			if f != nil {
				mu.Lock()
				failed = append(failed, *f)
				mu.Unlock()
			}
			return nil
		})
	}
	_ = g.Wait() // the work reports its failures itself
	sort.Slice(failed, func(i, j int) bool { return failed[i].Path < failed[j].Path })
	return failed
}

// tracker counts DeployDir's progress, reports it, and lists the paths of each action.
type tracker struct {
	mu       sync.Mutex
	progress func(Progress)
	now      Progress
	paths    map[Action][]string
}

// done records that path is done with action, n of its bytes, and reports the progress.
func (t *tracker) done(path string, action Action, n int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.now.Path, t.now.Action = path, action
	t.now.FilesDone++
	t.now.BytesDone += n
	t.paths[action] = append(t.paths[action], path)
	if t.progress != nil {
		t.progress(t.now)
	}
}
