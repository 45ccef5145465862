package mcpserver

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing/fstest"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentapis/sdk/hosting"
)

// setupHosting registers the hosting tools when HOSTING_URL is set.
func (s *Server) setupHosting(context.Context) error {
	base := s.env(hosting.EnvURL)
	if base == "" {
		return nil
	}
	token := s.env(hosting.EnvToken)
	s.secrets.add(token)
	c, err := hosting.New(hosting.WithBaseURL(base), hosting.WithToken(token), hosting.WithLogger(s.logger))
	if err != nil {
		return fmt.Errorf("hosting: %w", err)
	}
	s.services.hosting = c
	addTool(s, &mcp.Tool{Name: "hosting_repositories", Annotations: readOnly,
		Description: "Lists the hosting account's repositories, each published as a static site. Free."}, s.hostingRepos)
	addTool(s, &mcp.Tool{Name: "hosting_create_repository", Annotations: writes,
		Description: "Creates a repository (and its site) in the hosting account. Free."}, s.hostingCreateRepo)
	addTool(s, &mcp.Tool{Name: "hosting_files", Annotations: readOnly,
		Description: "Lists a repository's files with their sizes and hashes, its branches and head. Free."}, s.hostingFiles)
	addTool(s, &mcp.Tool{Name: "hosting_read_file", Annotations: readOnly,
		Description: "Reads one file of a repository and returns its content (text, or base64 for binary). Free."}, s.hostingReadFile)
	putDesc := "Writes a new file into a repository (text, or base64 for binary); it joins the next commit. Free."
	if s.opts.AllowDestructive {
		putDesc = "Writes a file into a repository, replacing any file at that path (text, or base64 for binary); it joins the next commit. Free."
	} else {
		putDesc += " Replacing an existing file is off on this server."
	}
	addTool(s, &mcp.Tool{Name: "hosting_put_file", Annotations: writes, Description: putDesc}, s.hostingPutFile)
	addTool(s, &mcp.Tool{Name: "hosting_commit", Annotations: writes,
		Description: "Commits the files written to a repository. Free."}, s.hostingCommit)
	addTool(s, &mcp.Tool{Name: "hosting_deploy", Annotations: writes,
		Description: "Publishes a commit of a repository (its latest by default) as its site and returns the deployment's URL. Free."}, s.hostingDeploy)
	folderDesc := "Publishes a folder as a repository's site in one call: writes every file that changed, then commits and deploys; nothing is committed unless every file arrived. The folder is given inline as files"
	if s.opts.DeployRoot != "" {
		folderDesc += ", or as dir, a folder under the server's deploy root"
	}
	folderDesc += ". Free."
	addTool(s, &mcp.Tool{Name: "hosting_deploy_folder", Annotations: writes, Description: folderDesc}, s.hostingDeployFolder)
	if s.opts.AllowDestructive {
		addTool(s, &mcp.Tool{Name: "hosting_delete_file", Annotations: destructive,
			Description: "Deletes a file of a repository; the deletion joins the next commit. Free."}, s.hostingDeleteFile)
	}
	return nil
}

// RepoOut is a repository.
type RepoOut struct {
	Name          string `json:"name"`
	Description   string `json:"description,omitempty"`
	Visibility    string `json:"visibility,omitempty"`
	Owner         string `json:"owner,omitempty"`
	DefaultBranch string `json:"default_branch,omitempty"`
	SiteURL       string `json:"site_url,omitempty"`
}

// ReposOut is what hosting_repositories returns.
type ReposOut struct {
	Repositories []RepoOut `json:"repositories"`
}

// repoOut returns r as a tool result.
func (s *Server) repoOut(r hosting.Repo) RepoOut {
	site, _ := s.services.hosting.SiteURL(r.Name)
	return RepoOut{Name: r.Name, Description: r.Description, Visibility: string(r.Visibility), Owner: r.Owner, DefaultBranch: r.DefaultBranch, SiteURL: site}
}

// hostingRepos lists the repositories.
func (s *Server) hostingRepos(ctx context.Context, _ *mcp.CallToolRequest, _ BudgetIn) (ReposOut, string, error) {
	list, err := s.services.hosting.Repos(ctx)
	if err != nil {
		return ReposOut{}, "", err
	}
	out := ReposOut{Repositories: []RepoOut{}}
	for _, r := range list.Repos {
		out.Repositories = append(out.Repositories, s.repoOut(r))
	}
	return out, fmt.Sprintf("%d repositories", len(out.Repositories)), nil
}

// CreateRepoIn is the input of hosting_create_repository.
type CreateRepoIn struct {
	Name        string `json:"name" bounds:"min=1,max=100" pattern:"^[A-Za-z0-9._-]{1,100}$" jsonschema:"the repository's name, also its site's"`
	Description string `json:"description,omitempty" bounds:"max=500"`
	Private     bool   `json:"private,omitempty" jsonschema:"create it private (default public)"`
}

// hostingCreateRepo creates a repository.
func (s *Server) hostingCreateRepo(ctx context.Context, _ *mcp.CallToolRequest, in CreateRepoIn) (RepoOut, string, error) {
	p := &hosting.CreateRepoParams{Name: in.Name, Description: in.Description}
	if in.Private {
		p.Visibility = hosting.Visibility("private")
	}
	r, err := s.services.hosting.CreateRepo(ctx, p)
	if err != nil {
		return RepoOut{}, "", err
	}
	out := s.repoOut(*r)
	return out, "created " + out.Name + ", published at " + out.SiteURL, nil
}

// RepoIn names a repository.
type RepoIn struct {
	Repo string `json:"repo" bounds:"min=1,max=100" pattern:"^[A-Za-z0-9._-]{1,100}$" jsonschema:"the repository's name"`
}

// FileOut is a file of a listing.
type FileOut struct {
	Path   string `json:"path"`
	Size   *int64 `json:"size,omitempty"`
	SHA    string `json:"sha,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
}

// FilesOut is what hosting_files returns.
type FilesOut struct {
	Repo     string    `json:"repo"`
	Files    []FileOut `json:"files"`
	Branches []string  `json:"branches"`
	Head     string    `json:"head,omitempty"`
}

// hostingFiles lists a repository's files.
func (s *Server) hostingFiles(ctx context.Context, _ *mcp.CallToolRequest, in RepoIn) (FilesOut, string, error) {
	info, err := s.services.hosting.Repo(ctx, in.Repo)
	if err != nil {
		return FilesOut{}, "", err
	}
	out := FilesOut{Repo: in.Repo, Files: []FileOut{}, Branches: []string{}, Head: info.Head}
	for _, f := range info.Files {
		out.Files = append(out.Files, FileOut{Path: f.Path, Size: f.Size, SHA: f.SHA, SHA256: f.SHA256})
	}
	for _, b := range info.Branches {
		out.Branches = append(out.Branches, b.Name)
	}
	return out, fmt.Sprintf("%s: %d files", in.Repo, len(out.Files)), nil
}

// FileIn names a file of a repository.
type FileIn struct {
	Repo string `json:"repo" bounds:"min=1,max=100" pattern:"^[A-Za-z0-9._-]{1,100}$" jsonschema:"the repository's name"`
	Path string `json:"path" bounds:"min=1,max=512" jsonschema:"the file's path in the repository, such as index.html or css/site.css"`
}

// FileContent is a file's content: text, or base64 for anything else.
type FileContent struct {
	Path   string `json:"path"`
	Text   string `json:"text,omitempty"`
	Base64 string `json:"base64,omitempty"`
	Bytes  int    `json:"bytes"`
}

// hostingReadFile reads a file.
func (s *Server) hostingReadFile(ctx context.Context, _ *mcp.CallToolRequest, in FileIn) (FileContent, string, error) {
	f, err := s.services.hosting.File(ctx, in.Repo, in.Path)
	if err != nil {
		return FileContent{}, "", err
	}
	out := FileContent{Path: in.Path, Bytes: len(f.Content)}
	if utf8.Valid(f.Content) {
		out.Text = string(f.Content)
	} else {
		out.Base64 = base64.StdEncoding.EncodeToString(f.Content)
	}
	return out, fmt.Sprintf("%s/%s: %d bytes", in.Repo, in.Path, out.Bytes), nil
}

// PutFileIn is the input of hosting_put_file.
type PutFileIn struct {
	Repo    string `json:"repo" bounds:"min=1,max=100" pattern:"^[A-Za-z0-9._-]{1,100}$" jsonschema:"the repository's name"`
	Path    string `json:"path" bounds:"min=1,max=512" jsonschema:"the file's path in the repository"`
	Content string `json:"content" bounds:"max=1048576" jsonschema:"the content: text, or base64 when base64 is true"`
	Base64  bool   `json:"base64,omitempty" jsonschema:"content is base64 (for binary files)"`
}

// PutFileOut is what hosting_put_file returns.
type PutFileOut struct {
	Path     string `json:"path"`
	Bytes    int    `json:"bytes"`
	Replaced bool   `json:"replaced" jsonschema:"a file was at that path before"`
	SHA      string `json:"sha,omitempty"`
}

// decodeContent returns the bytes of content.
func decodeContent(content string, isBase64 bool) ([]byte, error) {
	if !isBase64 {
		return []byte(content), nil
	}
	data, err := base64.StdEncoding.DecodeString(content)
	if err != nil {
		return nil, errors.New("content is not valid base64")
	}
	return data, nil
}

// hostingPutFile writes a file, refusing to replace one unless destructive tools are on.
func (s *Server) hostingPutFile(ctx context.Context, _ *mcp.CallToolRequest, in PutFileIn) (PutFileOut, string, error) {
	data, err := decodeContent(in.Content, in.Base64)
	if err != nil {
		return PutFileOut{}, "", err
	}
	_, err = s.services.hosting.File(ctx, in.Repo, in.Path)
	exists := err == nil
	if err != nil && !errors.Is(err, hosting.ErrNotFound) {
		return PutFileOut{}, "", err
	}
	if exists && !s.opts.AllowDestructive {
		return PutFileOut{}, "", fmt.Errorf("%s already exists in %s: replacing files is off on this server (start it with -allow-destructive)", in.Path, in.Repo)
	}
	w, err := s.services.hosting.PutFile(ctx, in.Repo, in.Path, data)
	if err != nil {
		return PutFileOut{}, "", err
	}
	out := PutFileOut{Path: w.Path, Bytes: len(data), Replaced: exists, SHA: w.SHA}
	return out, fmt.Sprintf("wrote %s/%s (%d bytes); commit to keep it", in.Repo, w.Path, len(data)), nil
}

// CommitIn is the input of hosting_commit.
type CommitIn struct {
	Repo    string `json:"repo" bounds:"min=1,max=100" pattern:"^[A-Za-z0-9._-]{1,100}$" jsonschema:"the repository's name"`
	Message string `json:"message" bounds:"min=1,max=1000" jsonschema:"the commit message"`
	Branch  string `json:"branch,omitempty" bounds:"max=100" jsonschema:"the branch (the service's default when empty)"`
}

// CommitOut is what hosting_commit returns.
type CommitOut struct {
	ID      string `json:"id"`
	Branch  string `json:"branch,omitempty"`
	Message string `json:"message"`
}

// hostingCommit commits the written files.
func (s *Server) hostingCommit(ctx context.Context, _ *mcp.CallToolRequest, in CommitIn) (CommitOut, string, error) {
	c, err := s.services.hosting.Commit(ctx, in.Repo, &hosting.CommitParams{Message: in.Message, Branch: in.Branch})
	if err != nil {
		return CommitOut{}, "", err
	}
	return CommitOut{ID: c.ID, Branch: c.Branch, Message: c.Message}, fmt.Sprintf("committed %s in %s", c.ID, in.Repo), nil
}

// DeployIn is the input of hosting_deploy.
type DeployIn struct {
	Repo    string `json:"repo" bounds:"min=1,max=100" pattern:"^[A-Za-z0-9._-]{1,100}$" jsonschema:"the repository's name"`
	Commit  string `json:"commit,omitempty" bounds:"max=100" jsonschema:"the commit to publish (the latest when empty)"`
	Message string `json:"message,omitempty" bounds:"max=1000"`
}

// DeploymentOut is a deployment.
type DeploymentOut struct {
	ID         string `json:"id"`
	Commit     string `json:"commit,omitempty"`
	Status     string `json:"status,omitempty"`
	PreviewURL string `json:"preview_url"`
}

// hostingDeploy publishes a commit.
func (s *Server) hostingDeploy(ctx context.Context, _ *mcp.CallToolRequest, in DeployIn) (DeploymentOut, string, error) {
	if in.Message == "" {
		in.Message = "deployed by " + Name
	}
	d, err := s.services.hosting.Deploy(ctx, in.Repo, &hosting.DeployParams{Commit: in.Commit, Message: in.Message})
	if err != nil {
		return DeploymentOut{}, "", err
	}
	out := DeploymentOut{ID: d.ID, Commit: d.Commit, Status: d.Status, PreviewURL: d.PreviewURL}
	return out, "deployed " + in.Repo + " at " + d.PreviewURL, nil
}

// InlineFile is one file of a folder given inline.
type InlineFile struct {
	Path    string `json:"path" bounds:"min=1,max=512" jsonschema:"the file's path in the folder, such as index.html"`
	Content string `json:"content" bounds:"max=1048576" jsonschema:"text, or base64 when base64 is true"`
	Base64  bool   `json:"base64,omitempty"`
}

// DeployFolderIn is the input of hosting_deploy_folder.
type DeployFolderIn struct {
	Repo    string       `json:"repo" bounds:"min=1,max=100" pattern:"^[A-Za-z0-9._-]{1,100}$" jsonschema:"the repository's name"`
	Files   []InlineFile `json:"files,omitempty" bounds:"max=500" jsonschema:"the folder's files (or give dir)"`
	Dir     string       `json:"dir,omitempty" bounds:"max=512" jsonschema:"a folder under the server's deploy root (or give files)"`
	Message string       `json:"message,omitempty" bounds:"max=1000" jsonschema:"the commit message"`
	Prune   bool         `json:"prune,omitempty" jsonschema:"delete the repository's files the folder does not hold (needs -allow-destructive)"`
}

// DeployFolderOut is what hosting_deploy_folder returns.
type DeployFolderOut struct {
	SiteURL    string        `json:"site_url"`
	Commit     string        `json:"commit"`
	Deployment DeploymentOut `json:"deployment"`
	Uploaded   []string      `json:"uploaded"`
	Unchanged  []string      `json:"unchanged"`
	Deleted    []string      `json:"deleted"`
}

// hostingDeployFolder publishes a folder with DeployDir.
func (s *Server) hostingDeployFolder(ctx context.Context, _ *mcp.CallToolRequest, in DeployFolderIn) (DeployFolderOut, string, error) {
	if in.Prune && !s.opts.AllowDestructive {
		return DeployFolderOut{}, "", errors.New("prune deletes files: it is off on this server (start it with -allow-destructive)")
	}
	var folder fs.FS
	switch {
	case in.Dir != "" && len(in.Files) > 0:
		return DeployFolderOut{}, "", errors.New("give files or dir, not both")
	case in.Dir != "":
		if s.opts.DeployRoot == "" {
			return DeployFolderOut{}, "", errors.New("dir: this server has no deploy root (start it with -deploy-root); give files instead")
		}
		root, err := os.OpenRoot(s.opts.DeployRoot)
		if err != nil {
			return DeployFolderOut{}, "", fmt.Errorf("the deploy root: %w", err)
		}
		defer root.Close()
		sub, err := root.OpenRoot(filepath.FromSlash(in.Dir))
		if err != nil {
			return DeployFolderOut{}, "", fmt.Errorf("dir %q: not a folder under the deploy root", in.Dir)
		}
		defer sub.Close()
		folder = sub.FS()
	case len(in.Files) > 0:
		m := fstest.MapFS{}
		for _, f := range in.Files {
			data, err := decodeContent(f.Content, f.Base64)
			if err != nil {
				return DeployFolderOut{}, "", fmt.Errorf("%s: %w", f.Path, err)
			}
			if !fs.ValidPath(f.Path) {
				return DeployFolderOut{}, "", fmt.Errorf("%q is not a relative path inside the folder", f.Path)
			}
			m[f.Path] = &fstest.MapFile{Data: data, Mode: 0o644}
		}
		folder = m
	default:
		return DeployFolderOut{}, "", errors.New("give the folder's files, or dir")
	}
	res, err := s.services.hosting.DeployDir(ctx, in.Repo, folder, &hosting.DeployDirParams{Message: in.Message, Prune: in.Prune})
	if err != nil {
		return DeployFolderOut{}, "", err
	}
	out := DeployFolderOut{SiteURL: res.SiteURL, Uploaded: nonNil(res.Uploaded), Unchanged: nonNil(res.Unchanged), Deleted: nonNil(res.Deleted)}
	if res.Commit != nil {
		out.Commit = res.Commit.ID
	}
	if d := res.Deployment; d != nil {
		out.Deployment = DeploymentOut{ID: d.ID, Commit: d.Commit, Status: d.Status, PreviewURL: d.PreviewURL}
	}
	return out, fmt.Sprintf("published %s at %s: %d uploaded, %d unchanged, %d deleted", in.Repo, res.SiteURL,
		len(out.Uploaded), len(out.Unchanged), len(out.Deleted)), nil
}

// DeleteOut is what hosting_delete_file returns.
type DeleteOut struct {
	Path string `json:"path"`
}

// hostingDeleteFile deletes a file (registered with AllowDestructive only).
func (s *Server) hostingDeleteFile(ctx context.Context, _ *mcp.CallToolRequest, in FileIn) (DeleteOut, string, error) {
	d, err := s.services.hosting.DeleteFile(ctx, in.Repo, in.Path)
	if err != nil {
		return DeleteOut{}, "", err
	}
	return DeleteOut{Path: d.Path}, fmt.Sprintf("deleted %s/%s; commit to keep the deletion", in.Repo, in.Path), nil
}

// nonNil returns list, or an empty list for nil, so that results show [] rather than null.
func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
