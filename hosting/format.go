package hosting

import (
	"fmt"

	"github.com/agentapis/sdk/internal/show"
)

// The results print readably: %v and %+v show what an optional field holds, or <nil>, where
// fmt alone prints a pointer's address (see package show).

// Format makes %v and %+v print the values a Branch points to, not their addresses.
func (br Branch) Format(f fmt.State, verb rune) { show.Struct(f, verb, br) }

// Format makes %v and %+v print the values a Commit points to, not their addresses.
func (c Commit) Format(f fmt.State, verb rune) { show.Struct(f, verb, c) }

// Format makes %v and %+v print the values a Deletion points to, not their addresses.
func (d Deletion) Format(f fmt.State, verb rune) { show.Struct(f, verb, d) }

// Format makes %v and %+v print the values a DeployResult points to, not their addresses.
func (d DeployResult) Format(f fmt.State, verb rune) { show.Struct(f, verb, d) }

// Format makes %v and %+v print the values a Deployment points to, not their addresses.
func (d Deployment) Format(f fmt.State, verb rune) { show.Struct(f, verb, d) }

// Format makes %v and %+v print the values a DeploymentList points to, not their addresses.
func (d DeploymentList) Format(f fmt.State, verb rune) { show.Struct(f, verb, d) }

// Format makes %v and %+v print the values a File points to, not their addresses.
func (x File) Format(f fmt.State, verb rune) { show.Struct(f, verb, x) }

// Format makes %v and %+v print the values a FileEntry points to, not their addresses.
func (x FileEntry) Format(f fmt.State, verb rune) { show.Struct(f, verb, x) }

// Format makes %v and %+v print the values a FileWrite points to, not their addresses.
func (x FileWrite) Format(f fmt.State, verb rune) { show.Struct(f, verb, x) }

// Format makes %v and %+v print the values a Repo points to, not their addresses.
func (r Repo) Format(f fmt.State, verb rune) { show.Struct(f, verb, r) }

// Format makes %v and %+v print the values a RepoInfo points to, not their addresses.
func (i RepoInfo) Format(f fmt.State, verb rune) { show.Struct(f, verb, i) }

// Format makes %v and %+v print the values a RepoList points to, not their addresses.
func (r RepoList) Format(f fmt.State, verb rune) { show.Struct(f, verb, r) }
