package harmony_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// apiPackages are the public packages whose doc comment lists their API
// under the heading "API": the short list a newcomer reads first.
var apiPackages = []string{".", "tokenizer", "dataset", "console", "cli", "templates/interop", "serve"}

// docLink is a doc comment link to a name of the package: [Name] or
// [Type.Method].
var docLink = regexp.MustCompile(`\[([A-Z]\w*)(?:\.\w+)?\]`)

// Every package's API list names each of its exported functions, types and
// groups of constants and variables (one name of a group is enough; a
// type's own constants go with the type), and
// names nothing the package does not export: the list is the package's
// API, not a second account of it that drifts.
func TestAPILists(t *testing.T) {
	for _, dir := range apiPackages {
		t.Run(dir, func(t *testing.T) {
			fset := token.NewFileSet()
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var files []*ast.File
			for _, e := range entries {
				if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
					f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
					if err != nil {
						t.Fatal(err)
					}
					files = append(files, f)
				}
			}
			p, err := doc.NewFromFiles(fset, files, "example.com/"+dir)
			if err != nil {
				t.Fatal(err)
			}
			_, api, ok := strings.Cut(p.Doc, "\n# API\n")
			if !ok {
				t.Fatalf("the package comment has no # API section")
			}
			api, _, _ = strings.Cut(api, "\n# ")
			listed := map[string]bool{}
			for _, m := range docLink.FindAllStringSubmatch(api, -1) {
				listed[m[1]] = true
			}
			exported := map[string]bool{}
			need := func(names ...string) {
				for _, n := range names {
					exported[n] = true
				}
				if !slices.ContainsFunc(names, func(n string) bool { return listed[n] }) {
					t.Errorf("the API list names none of %v", names)
				}
			}
			values := func(vs []*doc.Value) {
				for _, v := range vs {
					need(v.Names...)
				}
			}
			values(p.Consts)
			values(p.Vars)
			for _, f := range p.Funcs {
				need(f.Name)
			}
			for _, ty := range p.Types {
				need(ty.Name)
				// A type's constants and variables are its values: the
				// type's entry stands for them.
				for _, v := range append(ty.Consts, ty.Vars...) {
					for _, n := range v.Names {
						exported[n] = true
					}
				}
				for _, f := range ty.Funcs {
					need(f.Name)
				}
			}
			for n := range listed {
				if !exported[n] {
					t.Errorf("the API list names %s, which the package does not export", n)
				}
			}
		})
	}
}
