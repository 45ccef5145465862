package hostingtest

import (
	"encoding/base64"
	"maps"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// listRepos answers GET /repos: the caller's repositories by name.
func (s *Server) listRepos(c *call) (int, any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []repoJSON{}
	for _, r := range s.repos {
		if r.owner == c.owner {
			out = append(out, r.wire())
		}
	}
	slices.SortFunc(out, func(a, b repoJSON) int { return strings.Compare(a.Name, b.Name) })
	return http.StatusOK, struct {
		okBody
		Repos []repoJSON `json:"repos"`
	}{success, out}, nil
}

// createRepo answers POST /repos {name, description, visibility}.
func (s *Server) createRepo(c *call) (int, any, *apiError) {
	f, e := c.fields("name", "description", "visibility")
	if e != nil {
		return 0, nil, e
	}
	name, ok := f["name"]
	if !ok {
		return 0, nil, badRequest("name is required")
	}
	if err := checkRepoName(name); err != nil {
		return 0, nil, badRequest("invalid repository " + err.Error())
	}
	visibility := f["visibility"]
	switch visibility {
	case "":
		visibility = "public"
	case "public", "private":
	default:
		return 0, nil, badRequest("visibility must be public or private")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.repos[name] != nil {
		return 0, nil, &apiError{http.StatusConflict, "repository name already taken"}
	}
	r := newRepo(name, f["description"], visibility, c.owner, s.now())
	s.repos[name] = r
	return http.StatusCreated, struct {
		okBody
		Repo repoJSON `json:"repo"`
	}{success, r.wire()}, nil
}

// getRepo answers GET /repos/<name>: information, working files, branches and head.
func (s *Server) getRepo(c *call) (int, any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, e := s.ownRepo(c)
	if e != nil {
		return 0, nil, e
	}
	files := []fileJSON{}
	for _, p := range slices.Sorted(maps.Keys(r.files)) {
		files = append(files, fileJSON{p, len(r.files[p].data), r.files[p].sha})
	}
	branches := []branchJSON{}
	for _, b := range slices.Sorted(maps.Keys(r.branches)) {
		branches = append(branches, branchJSON{b, nullable(r.branches[b])})
	}
	return http.StatusOK, struct {
		okBody
		Repo     repoJSON     `json:"repo"`
		Files    []fileJSON   `json:"files"`
		Branches []branchJSON `json:"branches"`
		Head     *string      `json:"head"`
	}{success, r.wire(), files, branches, nullable(r.branches[DefaultBranch])}, nil
}

// putFile answers PUT and POST /repos/<name>/files/<path> {content} or {content_base64}.
func (s *Server) putFile(c *call) (int, any, *apiError) {
	s.mu.Lock()
	_, e := s.ownRepo(c)
	s.mu.Unlock()
	if e != nil {
		return 0, nil, e
	}
	f, e := c.fields("content", "content_base64", "path")
	if e != nil {
		return 0, nil, e
	}
	if p, ok := f["path"]; ok && p != c.target.path {
		return 0, nil, badRequest("path in the body differs from the path in the address")
	}
	text, hasText := f["content"]
	encoded, hasBase64 := f["content_base64"]
	var data []byte
	switch {
	case hasText && hasBase64:
		return 0, nil, badRequest("send either content or content_base64, not both")
	case hasText:
		data = []byte(text)
	case hasBase64:
		var err error
		if data, err = base64.StdEncoding.Strict().DecodeString(encoded); err != nil {
			return 0, nil, badRequest("content_base64 is not valid standard base64")
		}
	default:
		return 0, nil, badRequest("content or content_base64 is required")
	}
	b := newBlob(data)

	s.mu.Lock()
	defer s.mu.Unlock()
	r, e := s.ownRepo(c)
	if e != nil {
		return 0, nil, e
	}
	r.attempts[c.target.path]++
	if status, fails := writeFailure(s.cfg.failShare, s.cfg.failSeed, r.name, c.target.path, r.attempts[c.target.path]); fails {
		s.stats.FailedWrites++
		if status == http.StatusServiceUnavailable {
			return 0, nil, &apiError{status, "storage temporarily unavailable, try again"}
		}
		return 0, nil, &apiError{status, "internal error while storing the file"}
	}
	r.files[c.target.path] = b
	r.updated = s.now()
	if c.r.Method == http.MethodPut {
		s.stats.PutWrites++
	} else {
		s.stats.PostWrites++
	}
	return http.StatusOK, struct {
		okBody
		fileJSON
	}{success, fileJSON{c.target.path, len(b.data), b.sha}}, nil
}

// getFile answers GET /repos/<name>/files/<path>: the working file's content, as content
// when it is valid UTF-8 text and as content_base64 otherwise.
func (s *Server) getFile(c *call) (int, any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, e := s.ownRepo(c)
	if e != nil {
		return 0, nil, e
	}
	b := r.files[c.target.path]
	if b == nil {
		return 0, nil, &apiError{http.StatusNotFound, "file not found"}
	}
	answer := struct {
		okBody
		fileJSON
		Content       *string `json:"content,omitempty"`
		ContentBase64 *string `json:"content_base64,omitempty"`
	}{okBody: success, fileJSON: fileJSON{c.target.path, len(b.data), b.sha}}
	if isText(b.data) {
		text := string(b.data)
		answer.Content = &text
	} else {
		encoded := base64.StdEncoding.EncodeToString(b.data)
		answer.ContentBase64 = &encoded
	}
	return http.StatusOK, answer, nil
}

// deleteFile answers DELETE /repos/<name>/files/<path>.
func (s *Server) deleteFile(c *call) (int, any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, e := s.ownRepo(c)
	if e != nil {
		return 0, nil, e
	}
	if r.files[c.target.path] == nil {
		return 0, nil, &apiError{http.StatusNotFound, "file not found"}
	}
	delete(r.files, c.target.path)
	r.updated = s.now()
	s.stats.Deletes++
	return http.StatusOK, struct {
		okBody
		Path string `json:"path"`
	}{success, c.target.path}, nil
}

// commit answers POST /repos/<name>/commit {message, branch}: the working files become a
// new commit at the head of the branch, even when nothing changed since its parent.
func (s *Server) commit(c *call) (int, any, *apiError) {
	f, e := c.fields("message", "branch")
	if e != nil {
		return 0, nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, e := s.ownRepo(c)
	if e != nil {
		return 0, nil, e
	}
	message := f["message"]
	if strings.TrimSpace(message) == "" {
		return 0, nil, badRequest("message is required")
	}
	branch := f["branch"]
	if branch == "" {
		branch = DefaultBranch
	}
	if _, ok := r.branches[branch]; !ok {
		return 0, nil, &apiError{http.StatusNotFound, "branch not found; create it first"}
	}
	cm := r.commitTo(branch, message, s.next(), s.now())
	s.stats.Commits++
	return http.StatusCreated, struct {
		okBody
		Commit commitJSON `json:"commit"`
	}{success, cm.wire()}, nil
}

// deploy answers POST /repos/<name>/deploy {commit, message}: the commit (by default the
// head of the default branch) becomes the published site.
func (s *Server) deploy(c *call) (int, any, *apiError) {
	f, e := c.fields("commit", "message")
	if e != nil {
		return 0, nil, e
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, e := s.ownRepo(c)
	if e != nil {
		return 0, nil, e
	}
	id := f["commit"]
	if id == "" {
		if id = r.branches[DefaultBranch]; id == "" {
			return 0, nil, &apiError{http.StatusConflict, "nothing to deploy: branch " + DefaultBranch + " has no commits"}
		}
	} else if r.commits[id] == nil {
		return 0, nil, &apiError{http.StatusNotFound, "commit not found"}
	}
	now := s.now()
	d := &deployment{id: "dpl_" + objectID("deployment", r.name, s.next())[:16], commit: id, message: f["message"], created: now}
	r.deployments = append(r.deployments, d)
	r.updated = now
	s.stats.Deploys++
	wire := s.wireDeployment(r, d)
	return http.StatusCreated, struct {
		okBody
		Deployment deploymentJSON `json:"deployment"`
		PreviewURL string         `json:"preview_url"`
	}{success, wire, wire.PreviewURL}, nil
}

// listDeployments answers GET /repos/<name>/deployments, newest first.
func (s *Server) listDeployments(c *call) (int, any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, e := s.ownRepo(c)
	if e != nil {
		return 0, nil, e
	}
	out := []deploymentJSON{}
	for _, d := range slices.Backward(r.deployments) {
		out = append(out, s.wireDeployment(r, d))
	}
	return http.StatusOK, struct {
		okBody
		Deployments []deploymentJSON `json:"deployments"`
	}{success, out}, nil
}

// createBranch answers POST /repos/<name>/branches {branch, from}: a new branch at the
// commit of from, a branch name or a commit id (by default the default branch).
func (s *Server) createBranch(c *call) (int, any, *apiError) {
	f, e := c.fields("branch", "from")
	if e != nil {
		return 0, nil, e
	}
	branch, ok := f["branch"]
	if !ok {
		return 0, nil, badRequest("branch is required")
	}
	if err := checkBranchName("branch", branch); err != nil {
		return 0, nil, badRequest(err.Error())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, e := s.ownRepo(c)
	if e != nil {
		return 0, nil, e
	}
	if _, exists := r.branches[branch]; exists {
		return 0, nil, &apiError{http.StatusConflict, "branch already exists"}
	}
	from := f["from"]
	if from == "" {
		from = DefaultBranch
	}
	id, found := r.resolve(from)
	switch {
	case !found:
		return 0, nil, &apiError{http.StatusNotFound, "from names no branch or commit of this repository"}
	case id == "":
		return 0, nil, &apiError{http.StatusConflict, "branch " + from + " has no commits yet"}
	}
	r.branches[branch] = id
	r.updated = s.now()
	return http.StatusCreated, struct {
		okBody
		Branch branchJSON `json:"branch"`
	}{success, branchJSON{branch, &id}}, nil
}

// isText reports whether data can travel as a JSON string unchanged: valid UTF-8.
func isText(data []byte) bool { return utf8.Valid(data) }
