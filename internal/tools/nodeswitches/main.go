// Command nodeswitches counts the type switches over physical plan node
// types outside the files that declare them (issue 15's measure of how
// spread out what a plan node is stays). Run from the module root:
//
//	go run ./internal/tools/nodeswitches [-v]
//
// A physical node type is a type of planner/physical with a Children
// method. A switch counts when one of its cases names such a type
// (*physical.X outside the package, *X inside it) declared in another
// file; -v lists the switches and, per node type, the files that know it.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	verbose := flag.Bool("v", false, "list the switches and the files per node type")
	flag.Parse()
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files[path] = f
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// node types: planner/physical types with a Children method, and the
	// file declaring each
	nodes := map[string]string{}
	decl := map[string]string{}
	for path, f := range files {
		if filepath.Dir(path) != filepath.Join("planner", "physical") {
			continue
		}
		for _, d := range f.Decls {
			switch x := d.(type) {
			case *ast.GenDecl:
				for _, s := range x.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						decl[ts.Name.Name] = path
					}
				}
			case *ast.FuncDecl:
				if x.Recv != nil && x.Name.Name == "Children" && len(x.Recv.List) == 1 {
					t := x.Recv.List[0].Type
					if st, ok := t.(*ast.StarExpr); ok {
						t = st.X
					}
					if id, ok := t.(*ast.Ident); ok {
						nodes[id.Name] = ""
					}
				}
			}
		}
	}
	for n := range nodes {
		nodes[n] = decl[n]
	}
	type hit struct {
		pos   string
		names []string
	}
	var hits []hit
	knownIn := map[string]map[string]bool{}
	mentions := 0
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, path := range paths {
		f := files[path]
		inPhysical := filepath.Dir(path) == filepath.Join("planner", "physical")
		ast.Inspect(f, func(n ast.Node) bool {
			sw, ok := n.(*ast.TypeSwitchStmt)
			if !ok {
				return true
			}
			seen := map[string]bool{}
			for _, c := range sw.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					if st, ok := e.(*ast.StarExpr); ok {
						e = st.X
					}
					name := ""
					switch x := e.(type) {
					case *ast.SelectorExpr:
						if id, ok := x.X.(*ast.Ident); ok && id.Name == "physical" && !inPhysical {
							name = x.Sel.Name
						}
					case *ast.Ident:
						if inPhysical {
							name = x.Name
						}
					}
					if file, ok := nodes[name]; ok && file != path && !seen[name] {
						seen[name] = true
					}
				}
			}
			if len(seen) == 0 {
				return true
			}
			var names []string
			for nm := range seen {
				names = append(names, nm)
				if knownIn[nm] == nil {
					knownIn[nm] = map[string]bool{}
				}
				knownIn[nm][path] = true
			}
			sort.Strings(names)
			mentions += len(names)
			hits = append(hits, hit{pos: fset.Position(sw.Pos()).String(), names: names})
			return true
		})
	}
	fileSet := map[string]bool{}
	for _, h := range hits {
		fileSet[strings.SplitN(h.pos, ":", 2)[0]] = true
	}
	fmt.Printf("%d physical node types; %d type switches in %d files name node types declared in another file (%d node-type cases)\n",
		len(nodes), len(hits), len(fileSet), mentions)
	if !*verbose {
		return
	}
	for _, h := range hits {
		fmt.Printf("  %s %s\n", h.pos, strings.Join(h.names, " "))
	}
	var names []string
	for n := range nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		var fs []string
		for p := range knownIn[n] {
			fs = append(fs, p)
		}
		sort.Strings(fs)
		fmt.Printf("%s (%s): known in %d other files: %s\n", n, nodes[n], len(fs), strings.Join(fs, ", "))
	}
}
