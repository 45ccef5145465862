package sdk_test

import (
	"bufio"
	"fmt"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmePackages are the packages a README snippet may use, each with a name that keeps its
// import used whatever the snippets use.
var readmePackages = map[string]string{
	"context":                                "context.Background",
	"errors":                                 "errors.New",
	"fmt":                                    "fmt.Sprint",
	"io":                                     "io.EOF",
	"log/slog":                               "slog.Default",
	"math/big":                               "big.NewInt",
	"net/http":                               "http.StatusOK",
	"os":                                     "os.Getenv",
	"strings":                                "strings.TrimSpace",
	"time":                                   "time.Second",
	"github.com/agentapis/sdk":               "sdk.NewSecret",
	"github.com/agentapis/sdk/x402":          "x402.NewPayer",
	"github.com/agentapis/sdk/x402/x402test": "x402test.NewFacilitator",
	"github.com/agentapis/sdk/x402/wire":     "wire.DecodePaymentRequired",
	"github.com/agentapis/sdk/x402/evm":      "evm.NewExact",
	"github.com/agentapis/sdk/x402/svm":      "svm.NewExact",
	"github.com/agentapis/sdk/x402/budget":   "budget.New",
	"github.com/agentapis/sdk/x402/ledger":   "ledger.NewMemory",
	"github.com/agentapis/sdk/x402/reconcile":              "reconcile.New",
	"github.com/agentapis/sdk/x402/usdc":                   "usdc.Format",
	"github.com/agentapis/sdk/x402/budgetfile":             "budgetfile.Open",
	"github.com/agentapis/sdk/x402/budgetpg":               "budgetpg.Open",
	"github.com/agentapis/sdk/reportstore":                 "reportstore.New",
	"github.com/agentapis/sdk/reportstore/reportstoretest": "reportstoretest.NewServer",
	"github.com/agentapis/sdk/chartdiff":                   "chartdiff.New",
	"github.com/agentapis/sdk/chartdiff/chartdifftest":     "chartdifftest.NewServer",
	"github.com/agentapis/sdk/hosting":                     "hosting.New",
	"github.com/agentapis/sdk/hosting/hostingtest":         "hostingtest.NewServer",
	"github.com/agentapis/sdk/productdata":                 "productdata.New",
	"github.com/agentapis/sdk/productdata/productdatatest": "productdatatest.NewServer",
	"github.com/agentapis/sdk/gpuprice":                    "gpuprice.New",
	"github.com/agentapis/sdk/gpuprice/gpupricetest":       "gpupricetest.NewServer",
	"github.com/gagliardetto/solana-go":                    "solana.MustPublicKeyFromBase58",
}

// TestReadmeCodeCompiles extracts every go block of README.md and compiles it (see
// compileSnippets).
func TestReadmeCodeCompiles(t *testing.T) {
	blocks := goBlocks(t, "README.md")
	require.NotEmpty(t, blocks)
	compileSnippets(t, blocks)
}

// TestDocCodeCompiles extracts the code blocks of every package's doc comment in a doc.go
// file and compiles those written in Go (see compileSnippets). A block that is not Go (a
// shell command, a table) is left alone; one that tries to be Go (it declares with := or
// handles an err) and does not parse fails the test.
func TestDocCodeCompiles(t *testing.T) {
	files, err := docFiles(".")
	require.NoError(t, err)
	var blocks []block
	for _, f := range files {
		blocks = append(blocks, docBlocks(t, f)...)
	}
	require.NotEmpty(t, blocks)
	compileSnippets(t, blocks)
}

// TestSnippetCheckKeepsModuleSettings holds that the snippets' go vet keeps the environment's
// GOPROXY and GOFLAGS: a check that turned the proxy off failed, run alone from an empty module
// cache, on the modules no other test had fetched, and one that replaced GOFLAGS dropped
// -modcacherw and left a temporary module cache that cannot be removed.
func TestSnippetCheckKeepsModuleSettings(t *testing.T) {
	t.Setenv("GOPROXY", "https://proxy.example")
	t.Setenv("GOFLAGS", "-modcacherw")
	cmd := vetCommand(t.TempDir())
	env := map[string]string{}
	for _, kv := range cmd.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	assert.Equal(t, "https://proxy.example", env["GOPROXY"])
	assert.Equal(t, "-modcacherw", env["GOFLAGS"])
	assert.Equal(t, "off", env["GOWORK"])
	assert.Contains(t, cmd.Args, "-mod=readonly", "the check never edits its go.mod")
}

// compileSnippets compiles blocks with go vet in a module that uses this one: a block that is
// a whole file (it starts with "package") as it is, any other block as the body of a function
// that returns an error and is given ctx (a context.Context) and payer (an *x402.Payer), the
// names the snippets share.
func compileSnippets(t *testing.T, blocks []block) {
	t.Helper()
	root, err := filepath.Abs(".")
	require.NoError(t, err)
	dir := t.TempDir()
	writeCheckModule(t, dir, root)

	var fragments strings.Builder
	for i, b := range blocks {
		if strings.HasPrefix(strings.TrimSpace(b.code), "package ") {
			sub := filepath.Join(dir, fmt.Sprintf("file%d", i))
			require.NoError(t, os.MkdirAll(sub, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(sub, "main.go"), []byte(b.code), 0o644))
			continue
		}
		fmt.Fprintf(&fragments, "\n// %s line %d\nfunc block%d(ctx context.Context, payer *x402.Payer) error {\n\t{\n%s\n\t}\n\treturn nil\n}\n", b.file, b.line, i, b.code)
	}
	var file strings.Builder
	file.WriteString("package snippetcheck\n\nimport (\n")
	var guards strings.Builder
	for path, name := range readmePackages {
		if rel, ok := strings.CutPrefix(path, "github.com/agentapis/sdk/"); ok {
			if !hasGoFiles(rel) {
				continue // a package this release does not have yet
			}
		}
		fmt.Fprintf(&file, "\t%q\n", path)
		fmt.Fprintf(&guards, "var _ = %s\n", name)
	}
	file.WriteString(")\n\n")
	file.WriteString(guards.String())
	file.WriteString(fragments.String())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "snippets.go"), []byte(file.String()), 0o644))

	out, err := vetCommand(dir).CombinedOutput()
	require.NoError(t, err, "a documented snippet does not compile:\n%s\n--- generated file ---\n%s", out, file.String())
}

// vetCommand returns the command that compiles the check module in dir: go vet, or go build
// -race when this test runs under the race detector, so that the check reuses the packages
// the test's own build compiled (from an empty build cache, a go vet next to `go test -race`
// compiles the whole module and its dependencies a second time). It keeps the environment's
// module settings (GOPROXY, GOFLAGS, GOMODCACHE): run alone from an empty module cache, the
// check downloads the modules the test's own build did not need, as any go command would; with
// a warm cache it needs no network. -mod=readonly on the command line, which wins over GOFLAGS,
// keeps the check from editing its go.mod, and GOWORK=off from joining a workspace around it.
func vetCommand(dir string) *exec.Cmd {
	args := []string{"vet", "-mod=readonly", "./..."}
	if raceBuild {
		args = []string{"build", "-race", "-mod=readonly", "./..."}
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	return cmd
}

// docFiles lists the doc.go files of the module's packages under dir, skipping testdata and
// node_modules.
func docFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != dir {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "doc.go" {
			out = append(out, path)
		}
		return nil
	})
	return out, err
}

// docBlocks returns the Go code blocks of the package comment of the doc.go file at path.
func docBlocks(t *testing.T, path string) []block {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	if f.Doc == nil {
		return nil
	}
	var p comment.Parser
	doc := p.Parse(f.Doc.Text())
	var out []block
	line := fset.Position(f.Doc.Pos()).Line
	for _, b := range doc.Content {
		code, ok := b.(*comment.Code)
		if !ok {
			continue
		}
		if !isGo(code.Text) {
			require.False(t, looksLikeGo(code.Text), "%s: a code block that looks like Go does not parse:\n%s", path, code.Text)
			continue
		}
		out = append(out, block{file: path, line: line, code: code.Text})
	}
	return out
}

// isGo reports whether text parses as Go statements (or as a Go file).
func isGo(text string) bool {
	if strings.HasPrefix(strings.TrimSpace(text), "package ") {
		_, err := parser.ParseFile(token.NewFileSet(), "", text, 0)
		return err == nil
	}
	_, err := parser.ParseFile(token.NewFileSet(), "", "package p\nfunc _() {\n"+text+"\n}\n", 0)
	return err == nil
}

// looksLikeGo reports whether text means to be Go: it declares with := or handles an error.
func looksLikeGo(text string) bool {
	return strings.Contains(text, ":=") || strings.Contains(text, "err != nil") || strings.Contains(text, "func(")
}

// writeCheckModule writes into dir a module that uses the SDK at root: the SDK's own go.mod
// and go.sum under another module path, requiring the SDK itself through a replace. With the
// SDK's whole requirement list and sums, the check resolves the same versions as the SDK's
// own build and needs no module that the SDK's go.mod does not name.
func writeCheckModule(t *testing.T, dir, root string) {
	t.Helper()
	mod, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	text := strings.Replace(string(mod), "module github.com/agentapis/sdk\n", "module readmecheck\n", 1)
	require.NotEqual(t, string(mod), text, "go.mod names the module on its first line")
	text += "\nrequire github.com/agentapis/sdk v0.0.0\n\nreplace github.com/agentapis/sdk => " + root + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(text), 0o644))
	sum, err := os.ReadFile("go.sum")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
}

// hasGoFiles reports whether dir holds a Go package: a .go file other than a test. A directory
// may exist before its package does, holding only a subpackage such as a fake server.
func hasGoFiles(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			return true
		}
	}
	return false
}

// block is one code block of a Markdown file or a doc comment.
type block struct {
	file string
	line int
	code string
}

// goBlocks returns the ```go blocks of the Markdown file at path.
func goBlocks(t *testing.T, path string) []block {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []block
	var cur *block
	var code strings.Builder
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &block{file: path, line: n + 1}
			code.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.code = code.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			code.WriteString(line)
			code.WriteByte('\n')
		}
	}
	require.NoError(t, sc.Err())
	return out
}
