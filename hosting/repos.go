package hosting

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/jsonmember"
)

// RepoList is the answer of Repos.
type RepoList struct {
	// Repos are the caller's repositories, in the service's order.
	Repos []Repo
	// Raw is the response body.
	Raw json.RawMessage
	// Response describes the HTTP response.
	Response sdk.Response
}

// listAnswer is an answer carrying a list under a name of its own, items, results or data. An
// answer without any of them is refused, so that a renamed list never reads as an empty one
// (null is an empty list).
type listAnswer[T any] struct {
	envelope
	Items   jsonmember.Tracked[[]T]  `json:"items"`
	Results jsonmember.Tracked[[]T]  `json:"results"`
	Data    jsonmember.Optional[[]T] `json:"data"`
	list    []T
}

// find takes the list from the first of own, items, results and data the answer carried; what
// and member name the list in the error.
func (a *listAnswer[T]) find(what, member string, own ...jsonmember.Tracked[[]T]) error {
	list, ok := jsonmember.FirstTracked(append(own, a.Items, a.Results)...)
	if !ok {
		list, ok = a.Data.Get()
	}
	if !ok {
		return jsonmember.Missing(what, member)
	}
	if list == nil {
		list = []T{}
	}
	a.list = list
	return nil
}

// repoListAnswer is the answer of GET /repos: the list under repos, repositories, or a name of
// listAnswer.
type repoListAnswer struct {
	listAnswer[Repo]
	Repos        jsonmember.Tracked[[]Repo] `json:"repos"`
	Repositories jsonmember.Tracked[[]Repo] `json:"repositories"`
}

// check finds the list.
func (a *repoListAnswer) check() error {
	return a.find("repository list", "repos", a.Repos, a.Repositories)
}

// Repos returns the repositories of the token's account.
func (c *Client) Repos(ctx context.Context) (*RepoList, error) {
	var a repoListAnswer
	resp, err := c.do(ctx, &httpcore.Request{Method: http.MethodGet, Path: "/repos"}, &a)
	if err != nil {
		return nil, err
	}
	return &RepoList{Repos: a.list, Raw: resp.Body, Response: resp.Meta()}, nil
}

// CreateRepoParams are the parameters of CreateRepo.
type CreateRepoParams struct {
	// Name is the repository's name, also the site's name in /site/<name>: one path segment,
	// not "." or "..", without "/", backslash or control characters. Required.
	Name string
	// Description is free text; "" sends none.
	Description string
	// Visibility defaults to Public, the value the API description uses.
	Visibility Visibility
}

// createRepoBody is the JSON body of POST /repos.
type createRepoBody struct {
	Name        string     `json:"name"`
	Description string     `json:"description,omitempty"`
	Visibility  Visibility `json:"visibility"`
}

// repoAnswer is the answer of POST /repos: the repository under repo, repository, data or
// result, or at the top level. None of it is required.
type repoAnswer struct {
	envelope
	repoWire
	Repo       jsonmember.Optional[Repo] `json:"repo"`
	Repository jsonmember.Optional[Repo] `json:"repository"`
	Data       jsonmember.Optional[Repo] `json:"data"`
	Result     jsonmember.Optional[Repo] `json:"result"`
}

// CreateRepo creates a repository in the token's account. The API description does not show
// the answer: the returned Repo holds what the service sent, and the name, description and
// visibility that were sent for those it did not send. Creating is not retried (a repeat
// could find the name taken by the first attempt).
func (c *Client) CreateRepo(ctx context.Context, params *CreateRepoParams) (*Repo, error) {
	if params == nil {
		return nil, invalid("name", "must not be empty: the parameters are nil")
	}
	vis := cmp.Or(params.Visibility, Public)
	if err := cmp.Or(checkRepoName("name", params.Name), checkLabel("visibility", string(vis), true)); err != nil {
		return nil, err
	}
	body := createRepoBody{Name: params.Name, Description: params.Description, Visibility: vis}
	var a repoAnswer
	resp, err := c.do(ctx, &httpcore.Request{Method: http.MethodPost, Path: "/repos", Body: httpcore.JSON(body)}, &a)
	if err != nil {
		return nil, err
	}
	repo, ok := jsonmember.First(a.Repo, a.Repository, a.Data, a.Result)
	if !ok {
		repo = a.repoWire.repo(nil)
	}
	repo.Raw, repo.Response = resp.Body, resp.Meta()
	repo.Name = cmp.Or(repo.Name, params.Name)
	repo.Description = cmp.Or(repo.Description, params.Description)
	repo.Visibility = cmp.Or(repo.Visibility, vis)
	return &repo, nil
}

// repoInfoFields are a repository's record and the members of its information the API
// description names: the file list (files, file_list or tree), the branches and the head
// (head or head_commit).
type repoInfoFields struct {
	repoWire
	Files      jsonmember.Tracked[fileList]   `json:"files"`
	FileList   jsonmember.Tracked[fileList]   `json:"file_list"`
	Tree       jsonmember.Tracked[fileList]   `json:"tree"`
	Branches   jsonmember.Tracked[branchList] `json:"branches"`
	Head       jsonmember.Tracked[commitRef]  `json:"head"`
	HeadCommit jsonmember.Tracked[commitRef]  `json:"head_commit"`
}

// repoInfoPart is a nested object of Repo's answer that may hold the record and the
// information, or a repository's bare name.
type repoInfoPart struct {
	repoInfoFields
	raw json.RawMessage
}

// UnmarshalJSON reads an object, or a bare name.
func (p *repoInfoPart) UnmarshalJSON(b []byte) error {
	p.raw = bytes.Clone(b)
	return objectOrName(b, &p.Name, &p.repoInfoFields)
}

// repoInfoAnswer is the answer of GET /repos/<name>. The members may sit at the top level or
// inside repo, repository, data or result; the file list, the branches and the head are
// required wherever they are (null is an empty list, or no head yet).
type repoInfoAnswer struct {
	envelope
	repoInfoFields
	Repo       jsonmember.Optional[repoInfoPart] `json:"repo"`
	Repository jsonmember.Optional[repoInfoPart] `json:"repository"`
	Data       jsonmember.Optional[repoInfoPart] `json:"data"`
	Result     jsonmember.Optional[repoInfoPart] `json:"result"`
	info       RepoInfo
}

// check finds the members and builds the information.
func (a *repoInfoAnswer) check() error {
	parts := []repoInfoPart{{repoInfoFields: a.repoInfoFields}} // the top level first
	for _, l := range []jsonmember.Optional[repoInfoPart]{a.Repo, a.Repository, a.Data, a.Result} {
		if p, ok := l.Get(); ok {
			parts = append(parts, p)
		}
	}
	var files fileList
	var branches branchList
	var head commitRef
	var haveFiles, haveBranches, haveHead bool
	for _, p := range parts {
		if !haveFiles {
			files, haveFiles = jsonmember.FirstTracked(p.Files, p.FileList, p.Tree)
		}
		if !haveBranches {
			branches, haveBranches = jsonmember.FirstTracked(p.Branches)
		}
		if !haveHead {
			head, haveHead = jsonmember.FirstTracked(p.Head, p.HeadCommit)
		}
	}
	switch {
	case !haveFiles:
		return jsonmember.Missing("repository", "files")
	case !haveBranches:
		return jsonmember.Missing("repository", "branches")
	case !haveHead:
		return jsonmember.Missing("repository", "head")
	}
	a.info = RepoInfo{Repo: a.repoWire.repo(nil), Files: files, Branches: branches, Head: string(head)}
	if a.info.Files == nil {
		a.info.Files = []FileEntry{}
	}
	if a.info.Branches == nil {
		a.info.Branches = []Branch{}
	}
	for _, p := range parts[1:] {
		if p.Name.IsSet() || p.Slug.IsSet() {
			a.info.Repo = p.repo(p.raw)
			break
		}
	}
	return nil
}

// Repo returns a repository's information: its record, file list, branches and head.
// Files lists the files as written (the service's file list), each with the size and hash the
// service gives.
func (c *Client) Repo(ctx context.Context, name string) (*RepoInfo, error) {
	if err := checkRepoName("name", name); err != nil {
		return nil, err
	}
	var a repoInfoAnswer
	resp, err := c.do(ctx, &httpcore.Request{Method: http.MethodGet, Path: httpcore.Path("repos", name)}, &a)
	if err != nil {
		return nil, err
	}
	info := a.info
	info.Repo.Name = cmp.Or(info.Repo.Name, name)
	info.Raw, info.Response = resp.Body, resp.Meta()
	return &info, nil
}

// CreateBranchParams are the parameters of CreateBranch.
type CreateBranchParams struct {
	// Branch is the new branch's name. Required.
	Branch string
	// From is the branch or commit it starts from; "" lets the service choose (the API
	// description does not say which).
	From string
}

// branchBody is the JSON body of POST /repos/<name>/branches.
type branchBody struct {
	Branch string `json:"branch"`
	From   string `json:"from,omitempty"`
}

// branchAnswer is the answer of POST /repos/<name>/branches: the branch under branch, data or
// result (an object or a name), or at the top level. None of it is required.
type branchAnswer struct {
	envelope
	branchWire
	Branch jsonmember.Optional[Branch] `json:"branch"`
	Data   jsonmember.Optional[Branch] `json:"data"`
	Result jsonmember.Optional[Branch] `json:"result"`
}

// CreateBranch creates a branch of repository repo. The returned Branch holds what the service
// sent, and the name that was sent when it sent none. Creating is not retried.
func (c *Client) CreateBranch(ctx context.Context, repo string, params *CreateBranchParams) (*Branch, error) {
	if err := checkRepoName("name", repo); err != nil {
		return nil, err
	}
	if params == nil {
		return nil, invalid("branch", "must not be empty: the parameters are nil")
	}
	if err := cmp.Or(checkLabel("branch", params.Branch, true), checkLabel("from", params.From, false)); err != nil {
		return nil, err
	}
	req := &httpcore.Request{Method: http.MethodPost, Path: httpcore.Path("repos", repo, "branches"),
		Body: httpcore.JSON(branchBody{Branch: params.Branch, From: params.From})}
	var a branchAnswer
	resp, err := c.do(ctx, req, &a)
	if err != nil {
		return nil, err
	}
	br, ok := jsonmember.First(a.Branch, a.Data, a.Result)
	if !ok {
		br = a.branchWire.branch(nil)
	}
	br.Name = cmp.Or(br.Name, params.Branch)
	br.Raw, br.Response = resp.Body, resp.Meta()
	return &br, nil
}

// SiteURL returns the address of repository name's published site: /site/<name>/ on the
// service's address (the base URL without the /api/v1 prefix, keeping any path of its own).
// The trailing slash makes the relative links of the site's index.html resolve inside it.
func (c *Client) SiteURL(name string) (string, error) {
	if err := checkRepoName("name", name); err != nil {
		return "", err
	}
	u := c.core.Root()
	base := strings.TrimSuffix(strings.TrimSuffix(u.EscapedPath(), "/"), "/api/v1")
	site := base + httpcore.Path("site", name) + "/"
	unescaped, err := url.PathUnescape(site)
	if err != nil {
		return "", invalid("base URL", "has an invalid escape")
	}
	u.Path, u.RawPath = unescaped, site
	return u.String(), nil
}
