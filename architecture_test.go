package sdk_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path of this module.
const module = "github.com/agentapis/sdk"

// archRules is a block of rules of ARCHITECTURE.md: for each package pattern, the words
// that follow it.
type archRules struct {
	patterns []string
	words    map[string][]string
}

// readArchRules returns the rules of the fenced block of ARCHITECTURE.md whose info string is
// kind.
func readArchRules(t *testing.T, kind string) archRules {
	t.Helper()
	doc, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	rules := archRules{words: map[string][]string{}}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "```"+kind:
			in = true
		case in && line == "```":
			in = false
		case in:
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			if _, dup := rules.words[f[0]]; dup {
				t.Fatalf("ARCHITECTURE.md: %s rules name %s twice", kind, f[0])
			}
			rules.patterns = append(rules.patterns, f[0])
			rules.words[f[0]] = f[1:]
		}
	}
	if len(rules.patterns) == 0 {
		t.Fatalf("ARCHITECTURE.md has no ```%s block", kind)
	}
	return rules
}

// matches reports whether a package path relative to the module ("sdk" for the root) is
// covered by pattern, and how specifically (the pattern's length; -1 when not).
func matches(pattern, pkg string) int {
	if prefix, ok := strings.CutSuffix(pattern, "/..."); ok {
		if pkg == prefix || strings.HasPrefix(pkg, prefix+"/") {
			return len(prefix)
		}
		return -1
	}
	if pkg == pattern {
		return len(pattern) + 1 // an exact pattern beats a wildcard of the same path
	}
	return -1
}

// ruleFor returns the most specific pattern covering pkg, or "".
func (r archRules) ruleFor(pkg string) string {
	best, at := "", -1
	for _, p := range r.patterns {
		if m := matches(p, pkg); m > at {
			best, at = p, m
		}
	}
	return best
}

// listedPackage is what go list says of a package.
type listedPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// listModule returns every package of the module with its direct imports and its
// dependencies, for the non-test code.
func listModule(t *testing.T) []listedPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps=false", "-json=ImportPath,Imports,Deps", "./...").Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list: %v\n%s", err, stderr)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// relative returns a module package's path relative to the module, "sdk" for the root, and
// whether it is one.
func relative(path string) (string, bool) {
	if path == module {
		return "sdk", true
	}
	rel, ok := strings.CutPrefix(path, module+"/")
	return rel, ok
}

// The import rules of ARCHITECTURE.md hold for every package of the module: each imports
// only the module's packages its rule allows, and links none of the modules it must never
// link. A package no rule covers is a failure, so that each new package gets its rule.
func TestArchitectureImports(t *testing.T) {
	allowed := readArchRules(t, "imports")
	never := readArchRules(t, "never")
	pkgs := listModule(t)
	if len(pkgs) < 30 {
		t.Fatalf("go list found %d packages; the module has more", len(pkgs))
	}
	for _, p := range pkgs {
		pkg, _ := relative(p.ImportPath)
		rule := allowed.ruleFor(pkg)
		if rule == "" {
			t.Errorf("%s: no import rule in ARCHITECTURE.md covers it", pkg)
			continue
		}
		may := allowed.words[rule]
		if !slices.Equal(may, []string{"*"}) {
			for _, imp := range p.Imports {
				dep, ok := relative(imp)
				if !ok {
					continue
				}
				if !slices.ContainsFunc(may, func(pattern string) bool { return matches(pattern, dep) >= 0 }) {
					t.Errorf("%s imports %s, which its rule (%s) does not allow", pkg, dep, rule)
				}
			}
		}
		forbidden := never.words[never.ruleFor(pkg)]
		if slices.Equal(forbidden, []string{"-"}) {
			continue
		}
		for _, dep := range p.Deps {
			for _, mod := range forbidden {
				if dep == mod || strings.HasPrefix(dep, mod+"/") {
					t.Errorf("%s links %s, which ARCHITECTURE.md says it never links", pkg, dep)
				}
			}
		}
	}
}

// The rules' matching: the most specific pattern applies.
func TestArchitectureRuleMatching(t *testing.T) {
	r := archRules{patterns: []string{"x402/...", "x402/evm", "internal/..."}}
	for pkg, want := range map[string]string{
		"x402": "x402/...", "x402/wire": "x402/...", "x402/evm": "x402/evm",
		"internal/poll": "internal/...", "internalx": "", "sdk": "",
	} {
		if got := r.ruleFor(pkg); got != want {
			t.Errorf("ruleFor(%q) = %q, want %q", pkg, got, want)
		}
	}
}

// No exported function, method, field or type of a public package names a type of an
// internal package, which a caller could not name: only a constant's or a variable's value
// may use one.
func TestNoExportedNameUsesAnInternalType(t *testing.T) {
	for _, p := range listModule(t) {
		pkg, _ := relative(p.ImportPath)
		if pkg == "internal" || strings.HasPrefix(pkg, "internal/") || strings.Contains(pkg, "/internal/") ||
			strings.HasPrefix(pkg, "examples/") {
			continue
		}
		dir := "."
		if pkg != "sdk" {
			dir = pkg
		}
		for _, use := range internalTypesInAPI(t, dir) {
			t.Errorf("%s: %s", pkg, use)
		}
	}
}

// internalTypesInAPI returns, for the non-test Go files of dir, each exported declaration
// whose type names a type of an internal package of the module.
func internalTypesInAPI(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		internal := map[string]bool{} // the names under which f imports internal packages
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(path, module+"/internal/") && !strings.Contains(path, "/internal/") {
				continue
			}
			local := path[strings.LastIndex(path, "/")+1:]
			if imp.Name != nil {
				local = imp.Name.Name
			}
			internal[local] = true
		}
		if len(internal) == 0 {
			continue
		}
		report := func(what string, expr ast.Node) {
			ast.Inspect(expr, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && internal[x.Name] {
						found = append(found, fmt.Sprintf("%s names %s.%s (%s)", what, x.Name, sel.Sel.Name, fset.Position(sel.Pos())))
					}
				}
				return true
			})
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || (d.Recv != nil && !exportedReceiver(d.Recv)) {
					continue
				}
				report("func "+d.Name.Name, d.Type)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							reportType(report, "type "+s.Name.Name, s.Type)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() && s.Type != nil {
								report(d.Tok.String()+" "+n.Name, s.Type)
							}
						}
					}
				}
			}
		}
	}
	return found
}

// reportType reports the internal types an exported type definition shows: all of it, except
// a struct's unexported fields.
func reportType(report func(string, ast.Node), what string, typ ast.Expr) {
	st, ok := typ.(*ast.StructType)
	if !ok {
		report(what, typ)
		return
	}
	for _, field := range st.Fields.List {
		if len(field.Names) == 0 { // embedded: exported when its type's name is
			if ast.IsExported(embeddedName(field.Type)) {
				report(what+" (embedded field)", field.Type)
			}
			continue
		}
		for _, n := range field.Names {
			if n.IsExported() {
				report(what+"."+n.Name, field.Type)
			}
		}
	}
}

// embeddedName returns the type name of an embedded field.
func embeddedName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return embeddedName(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return embeddedName(x.X)
	}
	return ""
}

// exportedReceiver reports whether a method's receiver type is exported.
func exportedReceiver(recv *ast.FieldList) bool {
	return len(recv.List) == 1 && ast.IsExported(embeddedName(recv.List[0].Type))
}
