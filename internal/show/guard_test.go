package show

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// resultPackages are the packages whose exported types the SDK's users print: the five
// clients and the budget.
var resultPackages = []string{"reportstore", "hosting", "productdata", "gpuprice", "chartdiff", "x402/budget"}

// handles are exported structs that are not results but handles on a live thing, printed as
// fmt prints any pointer: their fields are bookkeeping.
var handles = []string{"budget.Budget", "budget.Hold"}

// printsItself lists the types of other packages that a struct field may hold behind a
// pointer: fmt prints each by its own method (a Formatter or a Stringer), not as an address.
var printsItself = []string{"big.Int", "time.Time", "time.Duration", "url.URL", "sdk.Secret"}

// printsAddress lists the types of other packages whose value fields print an address under
// fmt alone: sdk.Response holds its RateLimit by pointer.
var printsAddress = []string{"sdk.Response"}

// TestEveryResultPrintsReadably holds the convention of package show for every exported type
// of resultPackages: a struct that fmt would print with an address in it (a pointer field, or
// a field holding such a struct) has a Format method (a String method where a field is named
// Format), and a named integer, an enum, has a String method that names its states. Inputs
// (*Params, *Options), clients, errors and handles are left out.
func TestEveryResultPrintsReadably(t *testing.T) {
	t.Parallel()
	for _, dir := range resultPackages {
		pkg := parsePackage(t, filepath.Join("..", "..", dir))
		for name, spec := range pkg.types {
			qualified := pkg.name + "." + name
			if !ast.IsExported(name) || slices.Contains(handles, qualified) || strings.HasSuffix(name, "Params") ||
				strings.HasSuffix(name, "Options") || strings.HasSuffix(name, "Error") || name == "Client" {
				continue
			}
			switch typ := spec.Type.(type) {
			case *ast.StructType:
				if pkg.printsAddress(typ, map[string]bool{}) {
					assert.True(t, pkg.methods[name]["Format"] || pkg.methods[name]["String"],
						"%s prints an address under fmt: give it a Format method calling show.Struct", qualified)
				}
			case *ast.Ident:
				if isInteger(typ.Name) {
					assert.True(t, pkg.methods[name]["String"], "%s is an enum: give it a String method that names its states", qualified)
				}
			}
		}
	}
}

// parsedPackage is what the test reads of a package: its types and the methods of each.
type parsedPackage struct {
	name    string
	types   map[string]*ast.TypeSpec
	methods map[string]map[string]bool
}

// parsePackage reads the non-test files of the package in dir.
func parsePackage(t *testing.T, dir string) *parsedPackage {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	p := &parsedPackage{types: map[string]*ast.TypeSpec{}, methods: map[string]map[string]bool{}}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		require.NoError(t, err)
		p.name = f.Name.Name
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						p.types[ts.Name.Name] = ts
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil {
					continue
				}
				recv := d.Recv.List[0].Type
				if star, ok := recv.(*ast.StarExpr); ok {
					recv = star.X
				}
				if ident, ok := recv.(*ast.Ident); ok {
					if p.methods[ident.Name] == nil {
						p.methods[ident.Name] = map[string]bool{}
					}
					p.methods[ident.Name][d.Name.Name] = true
				}
			}
		}
	}
	return p
}

// printsAddress reports whether fmt alone prints an address, or an enum's number, somewhere in
// a value of the struct st; seen holds the package's types being looked at.
func (p *parsedPackage) printsAddress(st *ast.StructType, seen map[string]bool) bool {
	for _, f := range st.Fields.List {
		if len(f.Names) > 0 && !slices.ContainsFunc(f.Names, func(n *ast.Ident) bool { return n.IsExported() }) {
			continue // show.Struct leaves unexported fields out
		}
		if p.fieldPrintsAddress(f.Type, seen) {
			return true
		}
	}
	return false
}

// fieldPrintsAddress reports whether a field of type expr prints an address (or an enum's
// number) inside a struct printed by fmt.
func (p *parsedPackage) fieldPrintsAddress(expr ast.Expr, seen map[string]bool) bool {
	switch e := expr.(type) {
	case *ast.StarExpr:
		switch x := e.X.(type) {
		case *ast.Ident:
			return !p.formats(x.Name) // fmt calls the method of a pointer to a type that has one
		case *ast.SelectorExpr:
			return !slices.Contains(printsItself, selector(x))
		}
		return true
	case *ast.ArrayType:
		return p.fieldPrintsAddress(e.Elt, seen)
	case *ast.MapType:
		return p.fieldPrintsAddress(e.Key, seen) || p.fieldPrintsAddress(e.Value, seen)
	case *ast.SelectorExpr:
		return slices.Contains(printsAddress, selector(e))
	case *ast.Ident:
		spec, ok := p.types[e.Name]
		if !ok || p.formats(e.Name) || seen[e.Name] {
			return false
		}
		seen[e.Name] = true
		switch u := spec.Type.(type) {
		case *ast.StructType:
			return p.printsAddress(u, seen)
		case *ast.Ident:
			return isInteger(u.Name)
		}
	}
	return false
}

// formats reports whether the package's type name prints itself.
func (p *parsedPackage) formats(name string) bool {
	return p.methods[name]["Format"] || p.methods[name]["String"] || p.methods[name]["Error"]
}

// selector returns "pkg.Name" of a qualified type.
func selector(e *ast.SelectorExpr) string {
	if x, ok := e.X.(*ast.Ident); ok {
		return x.Name + "." + e.Sel.Name
	}
	return e.Sel.Name
}

// isInteger reports whether name is a predeclared integer type.
func isInteger(name string) bool {
	switch name {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return true
	}
	return false
}
