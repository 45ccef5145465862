package hosting

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/jsonmember"
)

// Visibility is who may see a repository. The API description uses only public; other values
// a service accepts pass through as they are.
type Visibility string

// Public is the visibility the API description uses, and CreateRepo's default.
const Public Visibility = "public"

// Repo is a repository's record. Beyond its name, the API description does not show its
// members: each field is set when the service sent it under one of the likely names, and Raw
// holds the object as sent.
type Repo struct {
	// Name is the repository's name, also the site's name in /site/<name>.
	Name string
	// Description is the free text given at creation.
	Description string
	// Visibility is public, or another value of the service.
	Visibility Visibility
	// Owner is the account that owns the repository, when sent.
	Owner string
	// DefaultBranch is the branch commits go to when none is named, when sent.
	DefaultBranch string
	// CreatedAt and UpdatedAt are nil when not sent.
	CreatedAt, UpdatedAt *time.Time
	// Raw is the repository's JSON object as the service sent it (for CreateRepo, the whole
	// answer).
	Raw json.RawMessage
	// Response describes the HTTP response, for a Repo returned by CreateRepo; it is zero
	// inside a list.
	Response sdk.Response
}

// repoWire is a repository object as sent.
type repoWire struct {
	Name               jsonmember.Optional[string]    `json:"name"`
	Slug               jsonmember.Optional[string]    `json:"slug"`
	Description        jsonmember.Optional[string]    `json:"description"`
	Visibility         jsonmember.Optional[string]    `json:"visibility"`
	Private            jsonmember.Optional[bool]      `json:"private"`
	Owner              jsonmember.Optional[ownerName] `json:"owner"`
	DefaultBranch      jsonmember.Optional[string]    `json:"default_branch"`
	DefaultBranchCamel jsonmember.Optional[string]    `json:"defaultBranch"`
	CreatedAt          jsonmember.Optional[time.Time] `json:"created_at"`
	CreatedAtCamel     jsonmember.Optional[time.Time] `json:"createdAt"`
	UpdatedAt          jsonmember.Optional[time.Time] `json:"updated_at"`
	UpdatedAtCamel     jsonmember.Optional[time.Time] `json:"updatedAt"`
}

// repo returns the record, keeping raw as its Raw.
func (w *repoWire) repo(raw json.RawMessage) Repo {
	name, _ := jsonmember.First(w.Name, w.Slug)
	vis, ok := jsonmember.First(w.Visibility)
	if !ok && w.Private.IsSet() {
		vis = string(Public)
		if w.Private.Or(false) {
			vis = "private"
		}
	}
	branch, _ := jsonmember.First(w.DefaultBranch, w.DefaultBranchCamel)
	return Repo{
		Name: name, Description: w.Description.Or(""), Visibility: Visibility(vis), Owner: string(w.Owner.Or("")),
		DefaultBranch: branch, CreatedAt: jsonmember.FirstPtr(w.CreatedAt, w.CreatedAtCamel),
		UpdatedAt: jsonmember.FirstPtr(w.UpdatedAt, w.UpdatedAtCamel), Raw: raw,
	}
}

// UnmarshalJSON reads a repository object, or a bare name, and keeps the raw value. A
// repository without a name is refused.
func (r *Repo) UnmarshalJSON(b []byte) error {
	var w repoWire
	if err := objectOrName(b, &w.Name, &w); err != nil {
		return err
	}
	*r = w.repo(bytes.Clone(b))
	if r.Name == "" {
		return jsonmember.Missing("repository", "name")
	}
	return nil
}

// ownerName is an owner sent as a name or as an object with one.
type ownerName string

// UnmarshalJSON accepts a string, or an object with login, name, username or id.
func (o *ownerName) UnmarshalJSON(b []byte) error {
	var w struct {
		Login    jsonmember.Optional[string]          `json:"login"`
		Name     jsonmember.Optional[string]          `json:"name"`
		Username jsonmember.Optional[string]          `json:"username"`
		ID       jsonmember.Optional[jsonmember.Text] `json:"id"`
	}
	if err := objectOrName(b, &w.ID, &w); err != nil {
		return err
	}
	name, _ := jsonmember.First(w.Login, w.Username, w.Name)
	*o = ownerName(cmp.Or(name, string(w.ID.Or(""))))
	return nil
}

// RepoInfo is a repository's information from Client.Repo: the record, the file list, the
// branches and the head, the members the API description names.
type RepoInfo struct {
	// Repo is the repository's record; only Name is sure to be set.
	Repo Repo
	// Files are the repository's files, as the file list gives them.
	Files []FileEntry
	// Branches are the repository's branches.
	Branches []Branch
	// Head is the commit at the head, "" while the repository has none.
	Head string
	// Raw is the response body.
	Raw json.RawMessage
	// Response describes the HTTP response.
	Response sdk.Response
}

// File returns the entry of the file at path, and whether the list has one.
func (i *RepoInfo) File(path string) (FileEntry, bool) {
	for _, f := range i.Files {
		if f.Path == path {
			return f, true
		}
	}
	return FileEntry{}, false
}

// FileEntry is one file of a repository's file list. Path is always set; the other members are
// set when the service sent them.
type FileEntry struct {
	// Path is the file's path in the repository, such as "css/site.css".
	Path string
	// Size is the file's length in bytes; nil when not sent.
	Size *int64
	// SHA is the hexadecimal SHA-1 the service gives (for a git-like store, the blob SHA-1 of
	// "blob <size>\x00" and the content); "" when not sent.
	SHA string
	// SHA256 is the hexadecimal SHA-256 of the content; "" when not sent.
	SHA256 string
	// Type is the entry's kind as sent (such as "file" or "dir"); "" when not sent.
	Type string
	// Raw is the entry as sent.
	Raw json.RawMessage
}

// IsDir reports whether the entry is a folder rather than a file, by its Type.
func (f *FileEntry) IsDir() bool {
	switch f.Type {
	case "dir", "directory", "tree", "folder":
		return true
	}
	return false
}

// fileEntryWire is a file entry object as sent.
type fileEntryWire struct {
	Path     jsonmember.Optional[string] `json:"path"`
	File     jsonmember.Optional[string] `json:"file"`
	Filename jsonmember.Optional[string] `json:"filename"`
	Name     jsonmember.Optional[string] `json:"name"`
	Size     jsonmember.Optional[int64]  `json:"size"`
	Bytes    jsonmember.Optional[int64]  `json:"bytes"`
	Length   jsonmember.Optional[int64]  `json:"length"`
	SHA      jsonmember.Optional[string] `json:"sha"`
	SHA1     jsonmember.Optional[string] `json:"sha1"`
	BlobSHA  jsonmember.Optional[string] `json:"blob_sha"`
	SHA256   jsonmember.Optional[string] `json:"sha256"`
	Hash     jsonmember.Optional[string] `json:"hash"`
	Type     jsonmember.Optional[string] `json:"type"`
	Kind     jsonmember.Optional[string] `json:"kind"`
}

// entry returns the entry, with path as its path when the object names none.
func (w *fileEntryWire) entry(path string, raw json.RawMessage) FileEntry {
	if p, ok := jsonmember.First(w.Path, w.File, w.Filename, w.Name); ok {
		path = p
	}
	e := FileEntry{Path: path, Size: jsonmember.FirstPtr(w.Size, w.Bytes, w.Length), Raw: raw}
	e.SHA, _ = jsonmember.First(w.SHA1, w.BlobSHA)
	e.SHA256 = w.SHA256.Or("")
	for _, h := range []string{w.SHA.Or(""), w.Hash.Or("")} {
		switch {
		case len(h) == 40 && e.SHA == "":
			e.SHA = h
		case len(h) == 64 && e.SHA256 == "":
			e.SHA256 = h
		}
	}
	e.Type, _ = jsonmember.First(w.Type, w.Kind)
	return e
}

// UnmarshalJSON reads an entry object, or a bare path, and keeps the raw value. An entry
// without a path is refused.
func (f *FileEntry) UnmarshalJSON(b []byte) error {
	var w fileEntryWire
	if err := objectOrName(b, &w.Path, &w); err != nil {
		return err
	}
	*f = w.entry("", bytes.Clone(b))
	if f.Path == "" {
		return jsonmember.Missing("file entry", "path")
	}
	return nil
}

// fileList is a file list sent as an array of entries (objects or paths), or as an object
// mapping each path to its entry, its SHA or its size.
type fileList []FileEntry

// UnmarshalJSON accepts both forms; the object form is sorted by path.
func (l *fileList) UnmarshalJSON(b []byte) (err error) {
	*l, err = listOrObject(b, func(path string, raw json.RawMessage) (FileEntry, error) {
		var w fileEntryWire
		_ = w.Size.UnmarshalJSON(raw) // a bare number is the size, a bare text the SHA
		if !w.Size.IsSet() {
			if err := objectOrName(raw, &w.SHA, &w); err != nil {
				return FileEntry{}, err
			}
		}
		return w.entry(path, bytes.Clone(raw)), nil
	}, func(e FileEntry) string { return e.Path })
	return err
}

// listOrObject decodes b as an array of T, or as an object each of whose members gives a T by
// item (from the member's name and value), sorted by key.
func listOrObject[T any](b []byte, item func(name string, raw json.RawMessage) (T, error), key func(T) string) ([]T, error) {
	var list []T
	if err := json.Unmarshal(b, &list); err == nil || !isObject(b) {
		return list, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	out := make([]T, 0, len(m))
	for name, raw := range m {
		v, err := item(name, raw)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b T) int { return strings.Compare(key(a), key(b)) })
	return out, nil
}

// Branch is a branch of a repository.
type Branch struct {
	// Name is the branch's name.
	Name string
	// Commit is the commit at its head; "" while it has none or when not sent.
	Commit string
	// Raw is the branch as sent (for CreateBranch, the whole answer).
	Raw json.RawMessage
	// Response describes the HTTP response, for a Branch returned by CreateBranch; it is zero
	// inside a list.
	Response sdk.Response
}

// branchWire is a branch object as sent.
type branchWire struct {
	Name   jsonmember.Optional[string]    `json:"name"`
	Branch jsonmember.Optional[string]    `json:"branch"`
	Commit jsonmember.Optional[commitRef] `json:"commit"`
	SHA    jsonmember.Optional[commitRef] `json:"sha"`
	Head   jsonmember.Optional[commitRef] `json:"head"`
}

// branch returns the branch, keeping raw as its Raw.
func (w *branchWire) branch(raw json.RawMessage) Branch {
	name, _ := jsonmember.First(w.Name, w.Branch)
	commit, _ := jsonmember.First(w.Commit, w.SHA, w.Head)
	return Branch{Name: name, Commit: string(commit), Raw: raw}
}

// UnmarshalJSON reads a branch object, or a bare name, and keeps the raw value. A branch
// without a name is refused.
func (br *Branch) UnmarshalJSON(b []byte) error {
	var w branchWire
	if err := objectOrName(b, &w.Name, &w); err != nil {
		return err
	}
	*br = w.branch(bytes.Clone(b))
	if br.Name == "" {
		return jsonmember.Missing("branch", "name")
	}
	return nil
}

// branchList is a branch list sent as an array of branches (objects or names), or as an
// object mapping each name to its head commit.
type branchList []Branch

// UnmarshalJSON accepts both forms; the object form is sorted by name.
func (l *branchList) UnmarshalJSON(b []byte) (err error) {
	*l, err = listOrObject(b, func(name string, raw json.RawMessage) (Branch, error) {
		var head jsonmember.Optional[commitRef]
		_ = head.UnmarshalJSON(raw)
		return Branch{Name: name, Commit: string(head.Or("")), Raw: bytes.Clone(raw)}, nil
	}, func(br Branch) string { return br.Name })
	return err
}

// commitRef is a commit named by its id: a string or number, or an object with the id.
type commitRef string

// UnmarshalJSON accepts a string, a number, or an object with id, sha, commit, commit_id or
// hash.
func (c *commitRef) UnmarshalJSON(b []byte) error {
	var w commitIDs
	if err := objectOrName(b, &w.ID, &w); err != nil {
		return err
	}
	*c = commitRef(w.id())
	return nil
}

// commitIDs are the likely names of a commit's id.
type commitIDs struct {
	ID       jsonmember.Optional[jsonmember.Text] `json:"id"`
	SHA      jsonmember.Optional[jsonmember.Text] `json:"sha"`
	CommitID jsonmember.Optional[jsonmember.Text] `json:"commit_id"`
	Hash     jsonmember.Optional[jsonmember.Text] `json:"hash"`
}

// id returns the first id sent.
func (w *commitIDs) id() string {
	id, _ := jsonmember.First(w.ID, w.SHA, w.CommitID, w.Hash)
	return string(id)
}

// Commit is a commit made by Client.Commit. The API description does not show its members:
// each field is set when the service sent it.
type Commit struct {
	// ID identifies the commit; Deploy accepts it.
	ID string
	// Branch is the branch the commit went to.
	Branch string
	// Message is the commit message.
	Message string
	// Parent is the previous commit, "" for the first or when not sent.
	Parent string
	// CreatedAt is nil when not sent.
	CreatedAt *time.Time
	// Raw is the commit as sent (for Client.Commit, the whole answer).
	Raw json.RawMessage
	// Response describes the HTTP response.
	Response sdk.Response
}

// commitWire is a commit object as sent.
type commitWire struct {
	commitIDs
	Branch         jsonmember.Optional[string]    `json:"branch"`
	Message        jsonmember.Optional[string]    `json:"message"`
	Parent         jsonmember.Optional[commitRef] `json:"parent"`
	CreatedAt      jsonmember.Optional[time.Time] `json:"created_at"`
	CreatedAtCamel jsonmember.Optional[time.Time] `json:"createdAt"`
}

// commit returns the commit, keeping raw as its Raw.
func (w *commitWire) commit(raw json.RawMessage) Commit {
	return Commit{ID: w.id(), Branch: w.Branch.Or(""), Message: w.Message.Or(""), Parent: string(w.Parent.Or("")),
		CreatedAt: jsonmember.FirstPtr(w.CreatedAt, w.CreatedAtCamel), Raw: raw}
}

// commitValue is a commit sent as an object, or as its id alone.
type commitValue struct{ commitWire }

// UnmarshalJSON accepts an object or an id.
func (c *commitValue) UnmarshalJSON(b []byte) error { return objectOrName(b, &c.ID, &c.commitWire) }

// Deployment is a deployment of a repository: a commit published as the site. The API
// description names only preview_url, in Deploy's answer; the other fields are set when the
// service sent them.
type Deployment struct {
	// ID identifies the deployment, when sent.
	ID string
	// Commit is the commit deployed, when sent.
	Commit string
	// Message is the deployment's message.
	Message string
	// PreviewURL is the address where the deployment can be seen. Deploy always sets it.
	PreviewURL string
	// Status is the deployment's state as sent (such as "ready"); "" when not sent.
	Status string
	// CreatedAt is nil when not sent.
	CreatedAt *time.Time
	// Raw is the deployment as sent (for Deploy, the whole answer).
	Raw json.RawMessage
	// Response describes the HTTP response, for a Deployment returned by Deploy; it is zero
	// inside a list.
	Response sdk.Response
}

// deploymentWire is a deployment object as sent.
type deploymentWire struct {
	ID              jsonmember.Optional[jsonmember.Text] `json:"id"`
	DeploymentID    jsonmember.Optional[jsonmember.Text] `json:"deployment_id"`
	Commit          jsonmember.Optional[commitRef]       `json:"commit"`
	CommitID        jsonmember.Optional[commitRef]       `json:"commit_id"`
	Message         jsonmember.Optional[string]          `json:"message"`
	PreviewURL      jsonmember.Optional[string]          `json:"preview_url"`
	PreviewURLCamel jsonmember.Optional[string]          `json:"previewUrl"`
	Status          jsonmember.Optional[string]          `json:"status"`
	State           jsonmember.Optional[string]          `json:"state"`
	CreatedAt       jsonmember.Optional[time.Time]       `json:"created_at"`
	CreatedAtCamel  jsonmember.Optional[time.Time]       `json:"createdAt"`
}

// deployment returns the deployment, keeping raw as its Raw.
func (w *deploymentWire) deployment(raw json.RawMessage) Deployment {
	id, _ := jsonmember.First(w.ID, w.DeploymentID)
	commit, _ := jsonmember.First(w.Commit, w.CommitID)
	preview, _ := jsonmember.First(w.PreviewURL, w.PreviewURLCamel)
	status, _ := jsonmember.First(w.Status, w.State)
	return Deployment{ID: string(id), Commit: string(commit), Message: w.Message.Or(""), PreviewURL: preview,
		Status: status, CreatedAt: jsonmember.FirstPtr(w.CreatedAt, w.CreatedAtCamel), Raw: raw}
}

// UnmarshalJSON reads a deployment object and keeps it raw.
func (d *Deployment) UnmarshalJSON(b []byte) error {
	if !isObject(b) {
		return errors.New("deployment: expected an object")
	}
	var w deploymentWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*d = w.deployment(bytes.Clone(b))
	return nil
}

// isObject reports whether b is a JSON object.
func isObject(b []byte) bool { return bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) }

// objectOrName decodes b into the wire object w, or, when b is a bare name or id of type N,
// into *name.
func objectOrName[N any](b []byte, name *jsonmember.Optional[N], w any) error {
	var n N
	if json.Unmarshal(b, &n) == nil {
		*name = jsonmember.Known(n)
		return nil
	}
	return json.Unmarshal(b, w)
}
