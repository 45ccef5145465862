package hostingtest

import (
	"net/http"
	"strings"
)

// call is one API request being answered.
type call struct {
	r      *http.Request
	body   []byte
	rec    *record
	owner  string
	target target

	obj    jsonObject
	objErr error
	parsed bool
}

// object returns the request body as a JSON object, decoding it once.
func (c *call) object() (jsonObject, error) {
	if !c.parsed {
		c.obj, c.objErr = parseObject(c.body)
		c.parsed = true
	}
	return c.obj, c.objErr
}

// fields decodes the body's members, which must all be strings among allowed.
func (c *call) fields(allowed ...string) (map[string]string, *apiError) {
	obj, err := c.object()
	if err != nil {
		return nil, badRequest(err.Error())
	}
	f, err := obj.fields(allowed...)
	if err != nil {
		return nil, badRequest(err.Error())
	}
	return f, nil
}

// handler answers a call with a status and a JSON body, or an error.
type handler func(s *Server, c *call) (int, any, *apiError)

// handlers maps each route and method to its handler.
var handlers = map[endpoint]map[string]handler{
	epRepos:       {http.MethodGet: (*Server).listRepos, http.MethodPost: (*Server).createRepo},
	epRepo:        {http.MethodGet: (*Server).getRepo},
	epFile:        {http.MethodGet: (*Server).getFile, http.MethodPut: (*Server).putFile, http.MethodPost: (*Server).putFile, http.MethodDelete: (*Server).deleteFile},
	epCommit:      {http.MethodPost: (*Server).commit},
	epDeploy:      {http.MethodPost: (*Server).deploy},
	epDeployments: {http.MethodGet: (*Server).listDeployments},
	epBranches:    {http.MethodPost: (*Server).createBranch},
}

// serveAPI authenticates, routes and checks the request, then runs the endpoint.
func (s *Server) serveAPI(w http.ResponseWriter, c *call) {
	if e := s.authenticate(c); e != nil {
		writeError(w, e)
		return
	}
	t, e := parseTarget(c.r.URL.EscapedPath())
	if e != nil {
		writeError(w, e)
		return
	}
	c.target = t
	h := handlers[t.ep][c.r.Method]
	if h == nil {
		w.Header().Set("Allow", strings.Join(methods[t.ep], ", "))
		writeError(w, &apiError{http.StatusMethodNotAllowed, "method " + c.r.Method + " is not allowed here"})
		return
	}
	if (c.r.Method == http.MethodPost || c.r.Method == http.MethodPut) && !isJSON(c.r) {
		writeError(w, &apiError{http.StatusUnsupportedMediaType, "Content-Type must be application/json"})
		return
	}
	status, body, e := h(s, c)
	if e != nil {
		writeError(w, e)
		return
	}
	writeJSON(w, status, body)
}

// authenticate finds the caller's owner from "Authorization: Bearer <token>" or, when no
// Bearer credential is present, from X-API-Token.
func (s *Server) authenticate(c *call) *apiError {
	var token string
	if scheme, rest, ok := strings.Cut(c.r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
		token, c.rec.auth = strings.TrimSpace(rest), AuthAuthorization
	} else if v := c.r.Header.Get("X-API-Token"); v != "" {
		token, c.rec.auth = strings.TrimSpace(v), AuthAPIToken
	} else {
		return &apiError{http.StatusUnauthorized, "missing API token: send Authorization: Bearer <token> or X-API-Token"}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	owner, ok := s.accounts[token]
	if !ok {
		return &apiError{http.StatusUnauthorized, "invalid API token"}
	}
	c.owner = owner
	return nil
}

// ownRepo returns the caller's repository of the call's target; the caller holds mu. A
// repository of another owner is answered exactly like a missing one.
func (s *Server) ownRepo(c *call) (*repo, *apiError) {
	r := s.repos[c.target.name]
	if r == nil || r.owner != c.owner {
		return nil, &apiError{http.StatusNotFound, "repository not found"}
	}
	return r, nil
}
