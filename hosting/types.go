package hosting

import (
	"encoding/json"
	"errors"
	"sort"
	"time"
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
	Response Response
}

// repoWire is a repository object as sent.
type repoWire struct {
	Name               loose[string]    `json:"name"`
	Slug               loose[string]    `json:"slug"`
	Description        loose[string]    `json:"description"`
	Visibility         loose[string]    `json:"visibility"`
	Private            loose[bool]      `json:"private"`
	Owner              loose[ownerName] `json:"owner"`
	DefaultBranch      loose[string]    `json:"default_branch"`
	DefaultBranchCamel loose[string]    `json:"defaultBranch"`
	CreatedAt          loose[time.Time] `json:"created_at"`
	CreatedAtCamel     loose[time.Time] `json:"createdAt"`
	UpdatedAt          loose[time.Time] `json:"updated_at"`
	UpdatedAtCamel     loose[time.Time] `json:"updatedAt"`
}

// repo returns the record, keeping raw as its Raw.
func (w *repoWire) repo(raw json.RawMessage) Repo {
	name, _ := first(w.Name, w.Slug)
	vis, ok := first(w.Visibility)
	if !ok && w.Private.set {
		vis = string(Public)
		if w.Private.v {
			vis = "private"
		}
	}
	branch, _ := first(w.DefaultBranch, w.DefaultBranchCamel)
	return Repo{
		Name: name, Description: w.Description.v, Visibility: Visibility(vis), Owner: string(w.Owner.v),
		DefaultBranch: branch, CreatedAt: timeOf(w.CreatedAt, w.CreatedAtCamel),
		UpdatedAt: timeOf(w.UpdatedAt, w.UpdatedAtCamel), Raw: raw,
	}
}

// UnmarshalJSON reads a repository object, or a bare name, and keeps the raw value. A
// repository without a name is refused.
func (r *Repo) UnmarshalJSON(b []byte) error {
	var name string
	if json.Unmarshal(b, &name) == nil {
		*r = Repo{Name: name, Raw: keepRaw(b)}
	} else {
		var w repoWire
		if err := json.Unmarshal(b, &w); err != nil {
			return err
		}
		*r = w.repo(keepRaw(b))
	}
	if r.Name == "" {
		return missing("repository", "name")
	}
	return nil
}

// ownerName is an owner sent as a name or as an object with one.
type ownerName string

// UnmarshalJSON accepts a string, or an object with login, name, username or id.
func (o *ownerName) UnmarshalJSON(b []byte) error {
	var s idText
	if json.Unmarshal(b, &s) == nil {
		*o = ownerName(s)
		return nil
	}
	var w struct {
		Login    loose[string] `json:"login"`
		Name     loose[string] `json:"name"`
		Username loose[string] `json:"username"`
		ID       loose[idText] `json:"id"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	name, _ := first(w.Login, w.Username, w.Name)
	if name == "" {
		name = string(w.ID.v)
	}
	*o = ownerName(name)
	return nil
}

// RepoInfo is a repository's information from GetRepo: the record, the file list, the
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
	Response Response
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
	Path     loose[string] `json:"path"`
	File     loose[string] `json:"file"`
	Filename loose[string] `json:"filename"`
	Name     loose[string] `json:"name"`
	Size     loose[int64]  `json:"size"`
	Bytes    loose[int64]  `json:"bytes"`
	Length   loose[int64]  `json:"length"`
	SHA      loose[string] `json:"sha"`
	SHA1     loose[string] `json:"sha1"`
	BlobSHA  loose[string] `json:"blob_sha"`
	SHA256   loose[string] `json:"sha256"`
	Hash     loose[string] `json:"hash"`
	Type     loose[string] `json:"type"`
	Kind     loose[string] `json:"kind"`
}

// entry returns the entry, with path as its path when the object names none.
func (w *fileEntryWire) entry(path string, raw json.RawMessage) FileEntry {
	if p, ok := first(w.Path, w.File, w.Filename, w.Name); ok {
		path = p
	}
	e := FileEntry{Path: path, Raw: raw}
	if size, ok := first(w.Size, w.Bytes, w.Length); ok {
		e.Size = &size
	}
	e.SHA, _ = first(w.SHA1, w.BlobSHA)
	e.SHA256 = w.SHA256.v
	for _, h := range []string{w.SHA.v, w.Hash.v} {
		switch len(h) {
		case 40:
			if e.SHA == "" {
				e.SHA = h
			}
		case 64:
			if e.SHA256 == "" {
				e.SHA256 = h
			}
		}
	}
	e.Type, _ = first(w.Type, w.Kind)
	return e
}

// UnmarshalJSON reads an entry object, or a bare path, and keeps the raw value. An entry
// without a path is refused.
func (f *FileEntry) UnmarshalJSON(b []byte) error {
	var path string
	if json.Unmarshal(b, &path) == nil {
		*f = FileEntry{Path: path, Raw: keepRaw(b)}
	} else {
		var w fileEntryWire
		if err := json.Unmarshal(b, &w); err != nil {
			return err
		}
		*f = w.entry("", keepRaw(b))
	}
	if f.Path == "" {
		return missing("file entry", "path")
	}
	return nil
}

// fileList is a file list sent as an array of entries (objects or paths), or as an object
// mapping each path to its entry, its SHA or its size.
type fileList []FileEntry

// UnmarshalJSON accepts both forms; the object form is sorted by path.
func (l *fileList) UnmarshalJSON(b []byte) error {
	var list []FileEntry
	if err := json.Unmarshal(b, &list); err == nil {
		*l = list
		return nil
	} else if !isObject(b) {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	out := make([]FileEntry, 0, len(m))
	for path, raw := range m {
		var w fileEntryWire
		var sha string
		var size int64
		switch {
		case json.Unmarshal(raw, &sha) == nil:
			w.SHA = loose[string]{v: sha, set: true}
		case json.Unmarshal(raw, &size) == nil:
			w.Size = loose[int64]{v: size, set: true}
		default:
			if err := json.Unmarshal(raw, &w); err != nil {
				return err
			}
		}
		out = append(out, w.entry(path, keepRaw(raw)))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	*l = out
	return nil
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
	Response Response
}

// branchWire is a branch object as sent.
type branchWire struct {
	Name   loose[string]    `json:"name"`
	Branch loose[string]    `json:"branch"`
	Commit loose[commitRef] `json:"commit"`
	SHA    loose[commitRef] `json:"sha"`
	Head   loose[commitRef] `json:"head"`
}

// branch returns the branch, keeping raw as its Raw.
func (w *branchWire) branch(raw json.RawMessage) Branch {
	name, _ := first(w.Name, w.Branch)
	commit, _ := first(w.Commit, w.SHA, w.Head)
	return Branch{Name: name, Commit: string(commit), Raw: raw}
}

// UnmarshalJSON reads a branch object, or a bare name, and keeps the raw value. A branch
// without a name is refused.
func (br *Branch) UnmarshalJSON(b []byte) error {
	var name string
	if json.Unmarshal(b, &name) == nil {
		*br = Branch{Name: name, Raw: keepRaw(b)}
	} else {
		var w branchWire
		if err := json.Unmarshal(b, &w); err != nil {
			return err
		}
		*br = w.branch(keepRaw(b))
	}
	if br.Name == "" {
		return missing("branch", "name")
	}
	return nil
}

// branchList is a branch list sent as an array of branches (objects or names), or as an
// object mapping each name to its head commit.
type branchList []Branch

// UnmarshalJSON accepts both forms; the object form is sorted by name.
func (l *branchList) UnmarshalJSON(b []byte) error {
	var list []Branch
	if err := json.Unmarshal(b, &list); err == nil {
		*l = list
		return nil
	} else if !isObject(b) {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	out := make([]Branch, 0, len(m))
	for name, raw := range m {
		var head loose[commitRef]
		_ = head.UnmarshalJSON(raw)
		out = append(out, Branch{Name: name, Commit: string(head.v), Raw: keepRaw(raw)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	*l = out
	return nil
}

// commitRef is a commit named by its id: a string or number, or an object with the id.
type commitRef string

// UnmarshalJSON accepts a string, a number, or an object with id, sha, commit, commit_id or
// hash.
func (c *commitRef) UnmarshalJSON(b []byte) error {
	var id idText
	if json.Unmarshal(b, &id) == nil {
		*c = commitRef(id)
		return nil
	}
	var w commitIDs
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = commitRef(w.id())
	return nil
}

// commitIDs are the likely names of a commit's id.
type commitIDs struct {
	ID       loose[idText] `json:"id"`
	SHA      loose[idText] `json:"sha"`
	CommitID loose[idText] `json:"commit_id"`
	Hash     loose[idText] `json:"hash"`
}

// id returns the first id sent.
func (w *commitIDs) id() string {
	id, _ := first(w.ID, w.SHA, w.CommitID, w.Hash)
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
	Response Response
}

// commitWire is a commit object as sent.
type commitWire struct {
	commitIDs
	Branch         loose[string]    `json:"branch"`
	Message        loose[string]    `json:"message"`
	Parent         loose[commitRef] `json:"parent"`
	CreatedAt      loose[time.Time] `json:"created_at"`
	CreatedAtCamel loose[time.Time] `json:"createdAt"`
}

// commit returns the commit, keeping raw as its Raw.
func (w *commitWire) commit(raw json.RawMessage) Commit {
	return Commit{ID: w.id(), Branch: w.Branch.v, Message: w.Message.v, Parent: string(w.Parent.v),
		CreatedAt: timeOf(w.CreatedAt, w.CreatedAtCamel), Raw: raw}
}

// commitValue is a commit sent as an object, or as its id alone.
type commitValue struct{ commitWire }

// UnmarshalJSON accepts an object or an id.
func (c *commitValue) UnmarshalJSON(b []byte) error {
	var id idText
	if json.Unmarshal(b, &id) == nil {
		c.ID = loose[idText]{v: id, set: true}
		return nil
	}
	return json.Unmarshal(b, &c.commitWire)
}

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
	Response Response
}

// deploymentWire is a deployment object as sent.
type deploymentWire struct {
	ID              loose[idText]    `json:"id"`
	DeploymentID    loose[idText]    `json:"deployment_id"`
	Commit          loose[commitRef] `json:"commit"`
	CommitID        loose[commitRef] `json:"commit_id"`
	Message         loose[string]    `json:"message"`
	PreviewURL      loose[string]    `json:"preview_url"`
	PreviewURLCamel loose[string]    `json:"previewUrl"`
	Status          loose[string]    `json:"status"`
	State           loose[string]    `json:"state"`
	CreatedAt       loose[time.Time] `json:"created_at"`
	CreatedAtCamel  loose[time.Time] `json:"createdAt"`
}

// deployment returns the deployment, keeping raw as its Raw.
func (w *deploymentWire) deployment(raw json.RawMessage) Deployment {
	id, _ := first(w.ID, w.DeploymentID)
	commit, _ := first(w.Commit, w.CommitID)
	preview, _ := first(w.PreviewURL, w.PreviewURLCamel)
	status, _ := first(w.Status, w.State)
	return Deployment{ID: string(id), Commit: string(commit), Message: w.Message.v, PreviewURL: preview,
		Status: status, CreatedAt: timeOf(w.CreatedAt, w.CreatedAtCamel), Raw: raw}
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
	*d = w.deployment(keepRaw(b))
	return nil
}

// timeOf returns the first of ts that is set, or nil.
func timeOf(ts ...loose[time.Time]) *time.Time {
	if t, ok := first(ts...); ok {
		return &t
	}
	return nil
}

// isObject reports whether b is a JSON object.
func isObject(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}
