package sdk_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentapis/sdk"
	"github.com/agentapis/sdk/chartdiff"
	"github.com/agentapis/sdk/gpuprice"
	"github.com/agentapis/sdk/hosting"
	"github.com/agentapis/sdk/productdata"
	"github.com/agentapis/sdk/reportstore"
)

// Every client re-exports the root's status sentinels, the same values, so that errors.Is
// matches across packages.
func TestEveryClientExportsTheStatusSentinels(t *testing.T) {
	t.Parallel()
	root := []error{sdk.ErrUnauthorized, sdk.ErrForbidden, sdk.ErrNotFound, sdk.ErrConflict, sdk.ErrRateLimited}
	clients := map[string][]error{
		"reportstore": {reportstore.ErrUnauthorized, reportstore.ErrForbidden, reportstore.ErrNotFound, reportstore.ErrConflict, reportstore.ErrRateLimited},
		"hosting":     {hosting.ErrUnauthorized, hosting.ErrForbidden, hosting.ErrNotFound, hosting.ErrConflict, hosting.ErrRateLimited},
		"productdata": {productdata.ErrUnauthorized, productdata.ErrForbidden, productdata.ErrNotFound, productdata.ErrConflict, productdata.ErrRateLimited},
		"gpuprice":    {gpuprice.ErrUnauthorized, gpuprice.ErrForbidden, gpuprice.ErrNotFound, gpuprice.ErrConflict, gpuprice.ErrRateLimited},
		"chartdiff":   {chartdiff.ErrUnauthorized, chartdiff.ErrForbidden, chartdiff.ErrNotFound, chartdiff.ErrConflict, chartdiff.ErrRateLimited},
	}
	for name, errs := range clients {
		for i, err := range errs {
			assert.Same(t, root[i], err, "%s: %v", name, root[i]) //nolint:errorlint // identity is the point
		}
	}
}

// Every client has the shared options, each a one-line wrapper over internal/httpcore's,
// and a package whose service works in the background has WithWait; none has another option
// that takes a clock.
func TestEveryClientHasTheSharedOptions(t *testing.T) {
	t.Parallel()
	shared := []string{"WithBaseURL", "WithClock", "WithHTTPClient", "WithLogger", "WithRequestsPerMinute",
		"WithRetry", "WithTimeouts", "WithUserAgent"}
	waits := map[string]bool{"reportstore": false, "hosting": false, "productdata": true, "gpuprice": true, "chartdiff": true}
	for pkg, wait := range waits {
		funcs := exportedFuncs(t, pkg)
		want := shared
		if wait {
			want = append(want[:len(want):len(want)], "WithWait")
		}
		for _, name := range want {
			body, ok := funcs[name]
			if !assert.True(t, ok, "%s.%s is missing", pkg, name) {
				continue
			}
			assert.Len(t, body.List, 1, "%s.%s is one statement", pkg, name)
			assert.Contains(t, render(body), "httpcore."+name, "%s.%s wraps httpcore.%s", pkg, name, name)
		}
		if !wait {
			assert.NotContains(t, funcs, "WithWait", pkg)
		}
	}
}

// exportedFuncs returns the bodies of the exported package-level functions of the package in dir.
func exportedFuncs(t *testing.T, dir string) map[string]*ast.BlockStmt {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	funcs := map[string]*ast.BlockStmt{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.IsExported() {
				funcs[fd.Name.Name] = fd.Body
			}
		}
	}
	return funcs
}

// render returns the selector expressions a body names, joined, such as "httpcore.WithClock".
func render(body *ast.BlockStmt) string {
	var names []string
	ast.Inspect(body, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := s.X.(*ast.Ident); ok {
				names = append(names, id.Name+"."+s.Sel.Name)
			}
		}
		return true
	})
	return strings.Join(names, " ")
}
