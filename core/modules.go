package core

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/module"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/parser"
	"github.com/tablerun/tablerun/udf"
)

// Script modules.
//
//	LOAD MODULE text WITH ('type' = 'python', 'path' = 'modules/text.py')
//	LOAD MODULE web  WITH ('type' = 'javascript', 'path' = 'modules/web')
//
// loads a Python or JavaScript file — or every .py / .js file of a folder —
// and makes the functions it declares system functions of module text,
// found after temporary system functions and in USE MODULES order like the
// built-ins of core. A function is exported by a declaration line with its
// SQL signature, a comment right above it:
//
//	# sql: slugify(s STRING) RETURNS STRING          (Python)
//	// sql: domain(url STRING) RETURNS STRING        (JavaScript)
//	# sql: words(s STRING) RETURNS TABLE (word STRING, pos INT)
//
// The signature uses CREATE FUNCTION's syntax; the function (or, for an
// aggregate function, the class) with that name is what the module calls.
// Functions without a declaration are private helpers. Every exported
// function is compiled when the module loads, so syntax errors are reported
// by LOAD MODULE.

// sqlDecl matches a declaration line: "# sql: …" or "// sql: …".
var sqlDecl = regexp.MustCompile(`(?m)^\s*(?:#|//)\s*sql:\s*(.+?)\s*$`)

// scriptModule is a loaded script module.
type scriptModule struct {
	defs  map[string]*function.Definition
	names []string
}

// ListFunctions implements module.Module.
func (m *scriptModule) ListFunctions() []string { return append([]string(nil), m.names...) }

// Function implements module.Module.
func (m *scriptModule) Function(name string) (*function.Definition, bool) {
	d, ok := m.defs[strings.ToLower(name)]
	return d, ok
}

// Close releases the interpreters of the module's functions (UNLOAD
// MODULE).
func (m *scriptModule) Close() {
	for _, d := range m.defs {
		udf.Release(d)
	}
}

// loadScriptModule is the module.ScriptLoader of the session.
func (e *TableEnvironment) loadScriptModule(lang, name, path string, _ map[string]string) (module.Module, error) {
	lang = strings.ToUpper(lang)
	compile := scriptCompilers[lang]
	if compile == nil {
		return nil, unsupported("LANGUAGE %s", lang)
	}
	ext := ".py"
	if lang == "JAVASCRIPT" {
		ext = ".js"
	}
	if !filepath.IsAbs(path) {
		for _, dir := range e.scriptPath() {
			if _, err := os.Stat(filepath.Join(dir, path)); err == nil {
				path = filepath.Join(dir, path)
				break
			}
		}
	}
	files, err := moduleFiles(path, ext)
	if err != nil {
		return nil, err
	}
	m := &scriptModule{defs: map[string]*function.Definition{}}
	ok := false
	defer func() {
		if !ok {
			m.Close()
		}
	}()
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		for _, decl := range sqlDecl.FindAllStringSubmatch(string(src), -1) {
			spec, err := moduleSpec(decl[1], lang, file, string(src))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			key := function.Normalize(spec.Name)
			if _, dup := m.defs[key]; dup {
				return nil, fmt.Errorf("%s: function '%s' is declared twice in module '%s'", file, spec.Name, name)
			}
			def, err := compile(spec)
			if err != nil {
				return nil, err
			}
			m.defs[key] = def
			m.names = append(m.names, key)
		}
	}
	if len(m.names) == 0 {
		return nil, fmt.Errorf("no function of %s is declared with a '%s sql: f(a TYPE, …) RETURNS TYPE' line", path, commentMark(lang))
	}
	sort.Strings(m.names)
	ok = true
	return m, nil
}

func commentMark(lang string) string {
	if lang == "JAVASCRIPT" {
		return "//"
	}
	return "#"
}

// moduleFiles returns path itself or the script files of a folder.
func moduleFiles(path, ext string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("module path: %w", err)
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	files, err := filepath.Glob(filepath.Join(path, "*"+ext))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("module folder %s has no %s files", path, ext)
	}
	return files, nil
}

// moduleSpec turns a declaration ("f(a INT) RETURNS STRING") into the spec
// of a function in file.
func moduleSpec(decl, lang, file, src string) (udf.Spec, error) {
	st, err := parser.ParseStatement("CREATE FUNCTION " + decl + " LANGUAGE " + lang + " AS 'module.entry'")
	if err != nil {
		// %v, not %w: the parse error is about the declaration, not the
		// statement, and must not be reported as a ParseException of it
		return udf.Spec{}, fmt.Errorf("declaration %q: %v", decl, err)
	}
	cf, ok := st.(*ast.CreateFunction)
	if !ok || len(cf.Name.Parts) != 1 {
		return udf.Spec{}, fmt.Errorf("declaration %q must be name(params) RETURNS type", decl)
	}
	rec, err := functionRecord(cf)
	if err != nil {
		return udf.Spec{}, fmt.Errorf("declaration %q: %w", decl, err)
	}
	name := cf.Name.Parts[0]
	spec := udf.Spec{Name: name, Params: rec.Params, Returns: rec.Returns, File: file, Func: name, Kind: function.Scalar}
	switch {
	case rec.Kind == "TABLE":
		spec.Kind = function.Table
	case definesClass(src, name):
		spec.Kind = function.Aggregate
	}
	return spec, nil
}
