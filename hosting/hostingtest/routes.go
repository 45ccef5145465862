package hostingtest

import (
	"net/http"
	"net/url"
	"strings"
)

// endpoint is one of the API's routes.
type endpoint int

// The API's routes, all under /api/v1.
const (
	epRepos       endpoint = iota // /repos
	epRepo                        // /repos/<name>
	epFile                        // /repos/<name>/files/<path>
	epCommit                      // /repos/<name>/commit
	epDeploy                      // /repos/<name>/deploy
	epDeployments                 // /repos/<name>/deployments
	epBranches                    // /repos/<name>/branches
)

// methods lists the methods each route answers.
var methods = map[endpoint][]string{
	epRepos:       {http.MethodGet, http.MethodPost},
	epRepo:        {http.MethodGet},
	epFile:        {http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete},
	epCommit:      {http.MethodPost},
	epDeploy:      {http.MethodPost},
	epDeployments: {http.MethodGet},
	epBranches:    {http.MethodPost},
}

// actions names the route suffixes after /repos/<name>/ other than files.
var actions = map[string]endpoint{
	"commit":      epCommit,
	"deploy":      epDeploy,
	"deployments": epDeployments,
	"branches":    epBranches,
}

// target is a parsed API path.
type target struct {
	ep   endpoint
	name string // repository name, decoded
	path string // file path, decoded
}

// reposPrefix is the path of the repository collection.
const reposPrefix = apiPrefix + "/repos"

// parseTarget parses an escaped API path. Each segment is decoded once; a repository name
// or a file path that is not acceptable is a 400, a path that names no route a 404.
func parseTarget(escaped string) (target, *apiError) {
	notFound := &apiError{http.StatusNotFound, "no such endpoint"}
	rest, ok := strings.CutPrefix(escaped, reposPrefix)
	switch {
	case !ok:
		return target{}, notFound
	case rest == "":
		return target{ep: epRepos}, nil
	case rest[0] != '/' || rest == "/":
		return target{}, notFound
	}
	segs := strings.SplitN(rest[1:], "/", 3)
	name, err := url.PathUnescape(segs[0])
	if err != nil {
		return target{}, badRequest("the repository name is not correctly escaped")
	}
	if err := checkRepoName(name); err != nil {
		return target{}, badRequest("invalid repository " + err.Error())
	}
	t := target{ep: epRepo, name: name}
	switch {
	case len(segs) == 1:
		return t, nil
	case segs[1] == "files":
		t.ep = epFile
		if len(segs) == 3 {
			if t.path, err = url.PathUnescape(segs[2]); err != nil {
				return target{}, badRequest("the file path is not correctly escaped")
			}
		}
		if err := checkFilePath(t.path); err != nil {
			return target{}, badRequest("invalid file " + err.Error())
		}
		return t, nil
	case len(segs) == 2:
		if ep, ok := actions[segs[1]]; ok {
			t.ep = ep
			return t, nil
		}
	}
	return target{}, notFound
}

// isFileAddress reports whether an escaped path addresses a file, as a CDN rule matching
// /api/v1/repos/*/files/* would see it.
func isFileAddress(escaped string) bool {
	rest, ok := strings.CutPrefix(escaped, reposPrefix+"/")
	if !ok {
		return false
	}
	segs := strings.SplitN(rest, "/", 3)
	return len(segs) == 3 && segs[1] == "files"
}

// badRequest is a 400 answer.
func badRequest(message string) *apiError { return &apiError{http.StatusBadRequest, message} }
