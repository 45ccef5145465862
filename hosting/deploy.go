package hosting

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/internal/httpcore"
	"github.com/agentapis/sdk/internal/jsonmember"
)

// CommitParams are the parameters of Commit.
type CommitParams struct {
	// Message is the commit message. Required.
	Message string
	// Branch is the branch to commit to; "" lets the service choose (the API description
	// accepts a commit with only a message and does not say which branch it takes).
	Branch string
}

// commitBody is the JSON body of POST /repos/<name>/commit.
type commitBody struct {
	Message string `json:"message"`
	Branch  string `json:"branch,omitempty"`
}

// commitAnswer is the answer of POST /repos/<name>/commit: the commit under commit, data or
// result (an object or an id), or at the top level. None of it is required.
type commitAnswer struct {
	envelope
	commitWire
	Commit jsonmember.Optional[commitValue] `json:"commit"`
	Data   jsonmember.Optional[commitValue] `json:"data"`
	Result jsonmember.Optional[commitValue] `json:"result"`
}

// Commit records the repository's written files as a commit. The returned Commit holds what the
// service sent (ID is "" when it sent no id), and the message and branch that were sent for
// those it did not. Committing is not retried: a repeat would make a second commit.
func (c *Client) Commit(ctx context.Context, repo string, params *CommitParams) (*Commit, error) {
	if err := checkRepoName("name", repo); err != nil {
		return nil, err
	}
	if params == nil {
		return nil, invalid("message", "must not be empty: the parameters are nil")
	}
	if err := cmp.Or(checkLabel("message", params.Message, true), checkLabel("branch", params.Branch, false)); err != nil {
		return nil, err
	}
	req := &httpcore.Request{Method: http.MethodPost, Path: httpcore.Path("repos", repo, "commit"),
		Body: httpcore.JSON(commitBody{Message: params.Message, Branch: params.Branch})}
	var a commitAnswer
	resp, err := c.do(ctx, req, &a)
	if err != nil {
		return nil, err
	}
	w := &a.commitWire
	if v, ok := jsonmember.First(a.Commit, a.Data, a.Result); ok {
		w = &v.commitWire
	}
	cm := w.commit(resp.Body)
	cm.Message = cmp.Or(cm.Message, params.Message)
	cm.Branch = cmp.Or(cm.Branch, params.Branch)
	cm.Response = resp.Meta()
	return &cm, nil
}

// DeployParams are the parameters of Deploy.
type DeployParams struct {
	// Commit is the commit to deploy; "" lets the service choose (the API description accepts
	// a deployment with only a message and does not say which commit it takes).
	Commit string
	// Message describes the deployment. Required.
	Message string
}

// deployBody is the JSON body of POST /repos/<name>/deploy.
type deployBody struct {
	Commit  string `json:"commit,omitempty"`
	Message string `json:"message"`
}

// deployAnswer is the answer of POST /repos/<name>/deploy: the deployment under deployment,
// data or result, or at the top level, with preview_url in either place. preview_url is
// required.
type deployAnswer struct {
	envelope
	deploymentWire
	Deployment jsonmember.Optional[Deployment] `json:"deployment"`
	Data       jsonmember.Optional[Deployment] `json:"data"`
	Result     jsonmember.Optional[Deployment] `json:"result"`
	merged     Deployment
}

// check merges the nested deployment with the top-level members and requires preview_url.
func (a *deployAnswer) check() error {
	top := a.deploymentWire.deployment(nil)
	d, _ := jsonmember.First(a.Deployment, a.Data, a.Result) // zero when not nested: top fills it
	d.ID = cmp.Or(d.ID, top.ID)
	d.Commit = cmp.Or(d.Commit, top.Commit)
	d.Message = cmp.Or(d.Message, top.Message)
	d.PreviewURL = cmp.Or(d.PreviewURL, top.PreviewURL)
	d.Status = cmp.Or(d.Status, top.Status)
	d.CreatedAt = cmp.Or(d.CreatedAt, top.CreatedAt)
	if d.PreviewURL == "" {
		return jsonmember.Missing("deployment", "preview_url")
	}
	a.merged = d
	return nil
}

// Deploy publishes a commit of the repository as its site and returns the deployment, whose
// PreviewURL is always set (an answer without preview_url is a *sdk.DecodeError). Deploying
// is not retried: a repeat would make a second deployment.
func (c *Client) Deploy(ctx context.Context, repo string, params *DeployParams) (*Deployment, error) {
	if err := checkRepoName("name", repo); err != nil {
		return nil, err
	}
	if params == nil {
		return nil, invalid("message", "must not be empty: the parameters are nil")
	}
	if err := cmp.Or(checkLabel("message", params.Message, true), checkLabel("commit", params.Commit, false)); err != nil {
		return nil, err
	}
	req := &httpcore.Request{Method: http.MethodPost, Path: httpcore.Path("repos", repo, "deploy"),
		Body: httpcore.JSON(deployBody{Commit: params.Commit, Message: params.Message})}
	var a deployAnswer
	resp, err := c.do(ctx, req, &a)
	if err != nil {
		return nil, err
	}
	d := a.merged
	d.Raw, d.Response = resp.Body, resp.Meta()
	return &d, nil
}

// DeploymentList is the answer of Deployments.
type DeploymentList struct {
	// Deployments are the repository's deployment records, in the service's order.
	Deployments []Deployment
	// Raw is the response body.
	Raw json.RawMessage
	// Response describes the HTTP response.
	Response sdk.Response
}

// deploymentListAnswer is the answer of GET /repos/<name>/deployments: the list under
// deployments, or a name of listAnswer.
type deploymentListAnswer struct {
	listAnswer[Deployment]
	Deployments jsonmember.Tracked[[]Deployment] `json:"deployments"`
}

// check finds the list.
func (a *deploymentListAnswer) check() error {
	return a.find("deployment list", "deployments", a.Deployments)
}

// Deployments returns the deployment records of repository repo.
func (c *Client) Deployments(ctx context.Context, repo string) (*DeploymentList, error) {
	if err := checkRepoName("name", repo); err != nil {
		return nil, err
	}
	var a deploymentListAnswer
	resp, err := c.do(ctx, &httpcore.Request{Method: http.MethodGet, Path: httpcore.Path("repos", repo, "deployments")}, &a)
	if err != nil {
		return nil, err
	}
	return &DeploymentList{Deployments: a.list, Raw: resp.Body, Response: resp.Meta()}, nil
}
