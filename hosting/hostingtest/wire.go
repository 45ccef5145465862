package hostingtest

import "time"

// Wire shapes of the answers; the package documentation lists them.
type (
	repoJSON struct {
		Name          string `json:"name"`
		Description   string `json:"description"`
		Visibility    string `json:"visibility"`
		Owner         string `json:"owner"`
		DefaultBranch string `json:"default_branch"`
		CreatedAt     string `json:"created_at"`
		UpdatedAt     string `json:"updated_at"`
	}
	fileJSON struct {
		Path string `json:"path"`
		Size int    `json:"size"`
		SHA  string `json:"sha"`
	}
	branchJSON struct {
		Name   string  `json:"name"`
		Commit *string `json:"commit"`
	}
	commitJSON struct {
		ID        string  `json:"id"`
		Branch    string  `json:"branch"`
		Message   string  `json:"message"`
		Parent    *string `json:"parent"`
		CreatedAt string  `json:"created_at"`
	}
	deploymentJSON struct {
		ID         string `json:"id"`
		Commit     string `json:"commit"`
		Message    string `json:"message"`
		CreatedAt  string `json:"created_at"`
		PreviewURL string `json:"preview_url"`
	}
)

// timestamp formats a time as JavaScript's toISOString does.
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// nullable is nil for "", else a pointer to id.
func nullable(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}

// wire returns the repository's information.
func (r *repo) wire() repoJSON {
	return repoJSON{r.name, r.description, r.visibility, r.owner, DefaultBranch, timestamp(r.created), timestamp(r.updated)}
}

// wire returns the commit's record.
func (c *commit) wire() commitJSON {
	return commitJSON{c.id, c.branch, c.message, nullable(c.parent), timestamp(c.created)}
}

// wireDeployment returns the deployment's record.
func (s *Server) wireDeployment(r *repo, d *deployment) deploymentJSON {
	return deploymentJSON{d.id, d.commit, d.message, timestamp(d.created), s.SiteURL(r.name)}
}
