package core

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/module"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/validate"
	"github.com/tablerun/tablerun/udf"
)

// This file is the session side of functions and modules: CREATE / DROP /
// ALTER FUNCTION, SHOW [USER] FUNCTIONS, DESCRIBE FUNCTION, the module
// statements and ADD / REMOVE / SHOW JARS.
//
// Languages. LANGUAGE PYTHON and LANGUAGE JAVASCRIPT functions run in the
// script runtimes registered with RegisterScriptLanguage (udf/python,
// udf/js). JAVA and SCALA functions (the default language, as in Flink)
// can be created, listed, described, altered and dropped — the catalog
// only stores their class name — but tablerun has no JVM, so calling one
// fails with "not supported yet". ADD JAR and REMOVE JAR are not supported
// for the same reason; SHOW JARS is always empty.

// ScriptCompiler compiles a script function declaration into a definition
// (udf/python.Compile, udf/js.Compile).
type ScriptCompiler func(spec udf.Spec) (*function.Definition, error)

var scriptCompilers = map[string]ScriptCompiler{}

// RegisterScriptLanguage makes LANGUAGE lang (PYTHON, JAVASCRIPT) run
// through c. Call it from an init function.
func RegisterScriptLanguage(lang string, c ScriptCompiler) {
	scriptCompilers[strings.ToUpper(lang)] = c
}

// functionState is the session's function catalog and modules.
type functionState struct {
	// cat is the catalog manager the catalog was built for.
	cat     *catalog.Manager
	modules *module.Manager
	catalog *function.Catalog
	// scriptPath lists the directories searched for the script files of
	// CREATE FUNCTION f AS 'file.func' LANGUAGE PYTHON|JAVASCRIPT.
	scriptPath []string
}

// functions returns the session's function state, creating it on first use.
func (e *TableEnvironment) functions() *functionState {
	e.state.Lock()
	defer e.state.Unlock()
	if e.fn != nil && e.fn.cat == e.cat {
		return e.fn
	}
	// the core module and the collision checks read a registry of the
	// built-ins that user functions are never registered in
	pristine := function.Builtins()
	mods := module.NewManager(pristine)
	st := &functionState{cat: e.cat, modules: mods, scriptPath: []string{"."}}
	mods.SetScriptLoader(e.loadScriptModule)
	st.catalog = function.NewCatalog(e.cat, mods, e.fns, pristine, e.compileFunction)
	st.catalog.SetRelease(udf.Release)
	e.fn = st
	return st
}

// functionResolver returns what the validator resolves calls with.
func (e *TableEnvironment) functionResolver() validate.FunctionResolver {
	return e.functions().catalog
}

// FunctionCatalog returns the session's function catalog (temporary and
// catalog functions, resolution).
func (e *TableEnvironment) FunctionCatalog() *function.Catalog { return e.functions().catalog }

// Modules returns the session's module manager.
func (e *TableEnvironment) Modules() *module.Manager { return e.functions().modules }

// SetScriptPath sets the directories searched for the script files of
// CREATE FUNCTION f AS 'file.func' LANGUAGE PYTHON|JAVASCRIPT (default: the
// working directory).
func (e *TableEnvironment) SetScriptPath(dirs ...string) {
	st := e.functions()
	e.state.Lock()
	defer e.state.Unlock()
	st.scriptPath = append([]string(nil), dirs...)
}

// scriptPath returns the directories SetScriptPath set.
func (e *TableEnvironment) scriptPath() []string {
	st := e.functions()
	e.state.Lock()
	defer e.state.Unlock()
	return st.scriptPath
}

// CreateTemporarySystemFunction registers a Go function definition as a
// temporary system function (Flink's createTemporarySystemFunction).
func (e *TableEnvironment) CreateTemporarySystemFunction(name string, def *function.Definition) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.functions().catalog.RegisterTemporarySystemFunction(name, def, false); err != nil {
		return classify(KindValidation, err)
	}
	return nil
}

// languageOf returns a record's language, JAVA when none was written.
func languageOf(rec *catalog.Function) string {
	if rec.Language == "" {
		return "JAVA"
	}
	return strings.ToUpper(rec.Language)
}

// fileRef matches the 'file.func' reference to a function in a script
// file (a dotted name), as opposed to an inline body.
var fileRef = regexp.MustCompile(`^\s*[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+\s*$`)

// definesClass finds a class definition named after the function in a script
// body: such a body declares an aggregate function.
func definesClass(body, name string) bool {
	re := regexp.MustCompile(`(?m)^\s*class\s+` + regexp.QuoteMeta(name) + `\b`)
	return re.MatchString(body)
}

// compileFunction turns a stored function record into a definition whose
// Name is key.
func (e *TableEnvironment) compileFunction(key, display string, rec *catalog.Function) (*function.Definition, error) {
	lang := languageOf(rec)
	switch lang {
	case "JAVA", "SCALA":
		return nil, unsupported("calling %s function '%s' (class '%s'): tablerun has no JVM; write the function in PYTHON or JAVASCRIPT",
			strings.ToLower(lang), display, rec.ClassName)
	case "PYTHON", "JAVASCRIPT":
	default:
		return nil, fmt.Errorf("Unsupported function language: %s", rec.Language)
	}
	compile := scriptCompilers[lang]
	if compile == nil {
		return nil, unsupported("LANGUAGE %s", lang)
	}
	spec := udf.Spec{Name: rec.Name, Params: rec.Params, Returns: rec.Returns, Body: rec.Body, Timeout: e.cfg.UDFTimeout(), MemoryLimit: e.cfg.UDFMemoryLimit()}
	if spec.Name == "" {
		spec.Name = display[strings.LastIndex(display, ".")+1:]
	}
	switch rec.Kind {
	case "TABLE":
		spec.Kind = function.Table
	case "AGGREGATE":
		spec.Kind = function.Aggregate
	default:
		spec.Kind = function.Scalar
	}
	if !rec.Inline() {
		if rec.Kind == "" {
			// Flink's form without a signature: the file's "sql:" line
			// declares it (functions_filedecl.go), or PyFlink's udf,
			// udtf or udaf (functions_pyflink.go).
			file, fn, err := e.scriptFile(rec.ClassName, lang)
			if err == nil {
				if ds, ok, err := declaredSpec(file, fn, lang); ok || err != nil {
					if err != nil {
						return nil, err
					}
					ds.Name = spec.Name
					def, err := compile(ds)
					if err != nil {
						return nil, err
					}
					def.Name = key
					return def, nil
				}
				if lang == "PYTHON" {
					if def, ok, err := e.pyflinkDefinition(spec, file, fn); ok || err != nil {
						if err != nil {
							return nil, err
						}
						def.Name = key
						return def, nil
					}
				}
			} else if _, set := e.cfg.Get("python.files"); lang == "PYTHON" && set {
				return nil, err
			}
			return nil, unsupported("%s function '%s' AS '%s' without a SQL signature; declare it as CREATE FUNCTION f(a INT, …) RETURNS type LANGUAGE %s AS '%s'",
				strings.ToLower(lang), display, rec.ClassName, lang, rec.ClassName)
		}
		file, fn, err := e.scriptFile(rec.ClassName, lang)
		if err != nil {
			return nil, err
		}
		spec.File, spec.Func = file, fn
		if spec.Kind == function.Scalar {
			if src, err := os.ReadFile(file); err == nil && definesClass(string(src), fn) {
				spec.Kind = function.Aggregate
			}
		}
	}
	def, err := compile(spec)
	if err != nil {
		return nil, err
	}
	def.Name = key
	return def, nil
}

// scriptFile resolves AS 'file.func' to a script file on the search path.
func (e *TableEnvironment) scriptFile(ref, lang string) (string, string, error) {
	i := strings.LastIndex(ref, ".")
	if i <= 0 || i == len(ref)-1 {
		return "", "", fmt.Errorf("%s function '%s' must be written as 'file.function'", strings.ToLower(lang), ref)
	}
	base, fn := ref[:i], ref[i+1:]
	ext := ".py"
	if lang == "JAVASCRIPT" {
		ext = ".js"
	}
	rel := filepath.FromSlash(strings.ReplaceAll(base, ".", "/")) + ext
	path := e.scriptPath()
	if lang == "PYTHON" {
		dirs, err := e.pythonFilesDirs() // functions_pyflink.go
		if err != nil {
			return "", "", err
		}
		path = append(dirs, path...)
	}
	for _, dir := range path {
		p := filepath.Join(dir, rel)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, fn, nil
		}
	}
	return "", "", fmt.Errorf("script file %s for function '%s' not found in %s", rel, ref, strings.Join(path, ", "))
}

// functionRecord builds the stored record of CREATE FUNCTION.
func functionRecord(s *ast.CreateFunction) (*catalog.Function, error) {
	rec := &catalog.Function{
		Name:      s.Name.Parts[len(s.Name.Parts)-1],
		ClassName: s.ClassName,
		Language:  strings.ToUpper(s.Language),
		Resources: append([]string(nil), s.Jars...),
	}
	if !s.Inline {
		return rec, nil
	}
	if rec.Language != "PYTHON" && rec.Language != "JAVASCRIPT" {
		return nil, fmt.Errorf("A function with an inline body needs LANGUAGE PYTHON or LANGUAGE JAVASCRIPT, not %q", s.Language)
	}
	if strings.TrimSpace(s.Body) == "" {
		return nil, fmt.Errorf("The inline body of function '%s' is empty", rec.Name)
	}
	if fileRef.MatchString(s.Body) {
		// CREATE FUNCTION f(a INT) RETURNS INT LANGUAGE PYTHON AS
		// 'file.func': a signature for a function in a script file
		rec.ClassName = strings.TrimSpace(s.Body)
	} else {
		rec.Body = s.Body
	}
	for _, p := range s.Params {
		t, err := validate.ResolveType(p.Type)
		if err != nil {
			return nil, err
		}
		rec.Params = append(rec.Params, types.Field{Name: p.Name, Type: t})
	}
	switch {
	case len(s.ReturnsTable) > 0:
		rec.Kind = "TABLE"
		fields := make([]types.Field, len(s.ReturnsTable))
		for i, c := range s.ReturnsTable {
			t, err := validate.ResolveType(c.Type)
			if err != nil {
				return nil, err
			}
			fields[i] = types.Field{Name: c.Name, Type: t, Description: c.Description}
		}
		rec.Returns = types.Type{Kind: types.Row, Fields: fields}
	case s.Returns != nil:
		t, err := validate.ResolveType(s.Returns)
		if err != nil {
			return nil, err
		}
		rec.Returns = t
		rec.Kind = "SCALAR"
		if rec.Body != "" && definesClass(s.Body, rec.Name) {
			rec.Kind = "AGGREGATE"
		}
	default:
		return nil, fmt.Errorf("Function '%s' with an inline body needs RETURNS type or RETURNS TABLE (...)", rec.Name)
	}
	return rec, nil
}

func (e *TableEnvironment) createFunction(s *ast.CreateFunction) (*TableResult, error) {
	rec, err := functionRecord(s)
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	fc := e.functions().catalog
	parts := s.Name.Parts
	switch {
	case s.Temporary && s.System:
		if len(parts) != 1 {
			return nil, classify(KindValidation, fmt.Errorf("Temporary system function name must be a simple identifier, got '%s'", strings.Join(parts, ".")))
		}
		err = fc.CreateTemporarySystemFunction(parts[0], rec, s.IfNotExists)
	case s.Temporary:
		err = fc.CreateTemporaryCatalogFunction(parts, rec, s.IfNotExists)
	default:
		err = fc.CreateCatalogFunction(parts, rec, s.IfNotExists)
	}
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	return okResult(), nil
}

func (e *TableEnvironment) dropFunction(s *ast.DropFunction) (*TableResult, error) {
	fc := e.functions().catalog
	parts := s.Name.Parts
	var err error
	switch {
	case s.Temporary && s.System:
		if len(parts) != 1 {
			return nil, classify(KindValidation, fmt.Errorf("Temporary system function name must be a simple identifier, got '%s'", strings.Join(parts, ".")))
		}
		err = fc.DropTemporarySystemFunction(parts[0], s.IfExists)
	case s.Temporary:
		err = fc.DropTemporaryCatalogFunction(parts, s.IfExists)
	default:
		err = fc.DropCatalogFunction(parts, s.IfExists)
	}
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	return okResult(), nil
}

func (e *TableEnvironment) alterFunction(s *ast.AlterFunction) (*TableResult, error) {
	if s.Temporary {
		kind := "catalog"
		if s.System {
			kind = "system"
		}
		return nil, classify(KindValidation, fmt.Errorf("Alter temporary %s function is not supported", kind))
	}
	rec := &catalog.Function{
		Name:      s.Name.Parts[len(s.Name.Parts)-1],
		ClassName: s.ClassName,
		Language:  strings.ToUpper(s.Language),
	}
	if err := e.functions().catalog.AlterCatalogFunction(s.Name.Parts, rec, s.IfExists); err != nil {
		return nil, classify(KindValidation, err)
	}
	return okResult(), nil
}

// showFunctionList runs SHOW [USER] FUNCTIONS [FROM|IN [cat.]db] [[NOT]
// LIKE|ILIKE p].
func (e *TableEnvironment) showFunctionList(s *ast.ShowFunctions) (*TableResult, error) {
	cat, db := e.cat.Current()
	switch p := s.From.Name.Parts; len(p) {
	case 0:
	case 1:
		db = p[0]
	case 2:
		cat, db = p[0], p[1]
	default:
		return nil, classify(KindValidation, fmt.Errorf("SHOW FUNCTIONS from/in identifier [ %s ] format error, it should be [catalog_name.]database_name.", strings.Join(p, ".")))
	}
	if len(s.From.Name.Parts) > 0 {
		c, ok := e.cat.Catalog(cat)
		if !ok {
			return nil, classify(KindValidation, fmt.Errorf("Catalog %s does not exist", cat))
		}
		if _, err := c.GetDatabase(db); err != nil {
			if !errors.Is(err, catalog.ErrNotFound) {
				return nil, classify(KindCatalog, err)
			}
			return nil, classify(KindValidation, fmt.Errorf("Database '%s'.'%s' doesn't exist.", cat, db))
		}
	}
	fc := e.functions().catalog
	var names []string
	var err error
	if s.User {
		names, err = fc.UserFunctions(cat, db)
	} else {
		names, err = fc.Functions(cat, db)
	}
	if err != nil {
		return nil, classify(KindCatalog, err)
	}
	return stringResult("function name", filterLike(names, s.Like)), nil
}

// describeFunction runs DESCRIBE FUNCTION [EXTENDED] in Flink's layout:
// rows of (info name, info value).
func (e *TableEnvironment) describeFunction(s *ast.DescribeFunction) (*TableResult, error) {
	r, err := e.functions().catalog.Lookup(s.Name.Parts)
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	if r == nil {
		return nil, classify(KindValidation, fmt.Errorf("Function with the identifier '%s' doesn't exist.", strings.Join(s.Name.Parts, ".")))
	}
	rows := [][]any{
		{"is system function", fmt.Sprint(r.Record == nil)},
		{"is temporary", fmt.Sprint(r.Temporary())},
	}
	if rec := r.Record; rec != nil {
		if rec.Inline() {
			rows = append(rows, []any{"class name", ""})
		} else {
			rows = append(rows, []any{"class name", rec.ClassName})
		}
		rows = append(rows, []any{"function language", languageOf(rec)})
		res := make([]string, len(rec.Resources))
		for i, u := range rec.Resources {
			res[i] = fmt.Sprintf("ResourceUri{resourceType=JAR, uri='%s'}", u)
		}
		rows = append(rows, []any{"resource uris", "[" + strings.Join(res, ", ") + "]"})
	}
	if s.Extended {
		d := r.Def
		if d == nil {
			if r.Err != nil {
				return nil, classify(KindValidation, r.Err)
			}
			return nil, unsupported("DESCRIBE FUNCTION EXTENDED %s", r.Display())
		}
		rows = append(rows,
			[]any{"kind", kindString(d.Kind)},
			[]any{"requirements", "[]"},
			[]any{"is deterministic", fmt.Sprint(!d.Nondeterministic)},
			[]any{"supports constant folding", "true"},
			[]any{"signature", signature(r, d)},
		)
		if d.Doc.Summary != "" {
			rows = append(rows, []any{"description", d.Doc.Summary})
		}
		if d.Doc.Example != "" {
			rows = append(rows, []any{"example", d.Doc.Example})
		}
	}
	return &TableResult{kind: SuccessWithContent, schema: types.Schema{
		{Name: "info name", Type: types.StringT}, {Name: "info value", Type: types.StringT},
	}, rows: rows}, nil
}

func kindString(k function.Kind) string {
	switch k {
	case function.Table:
		return "TABLE"
	case function.Aggregate:
		return "AGGREGATE"
	}
	return "SCALAR"
}

// signature prints a function's call signature: the declared parameters of
// a script function, the documented arguments of a built-in.
func signature(r *function.Resolved, d *function.Definition) string {
	name := r.Display()
	if r.Kind == function.System && r.Module == "core" {
		name = strings.ToUpper(r.Name)
	}
	if rec := r.Record; rec != nil && rec.Inline() {
		ps := make([]string, len(rec.Params))
		for i, p := range rec.Params {
			ps[i] = catalog.Quote(p.Name) + " " + p.Type.String()
		}
		ret := rec.Returns.String()
		if rec.Kind == "TABLE" {
			cols := make([]string, len(rec.Returns.Fields))
			for i, f := range rec.Returns.Fields {
				cols[i] = catalog.Quote(f.Name) + " " + f.Type.String()
			}
			ret = "TABLE (" + strings.Join(cols, ", ") + ")"
		}
		return name + "(" + strings.Join(ps, ", ") + ") RETURNS " + ret
	}
	return name + "(" + d.Doc.Args + ")"
}

func (e *TableEnvironment) showModules(s *ast.ShowModules) (*TableResult, error) {
	m := e.functions().modules
	if !s.Full {
		return stringResult("module name", m.Used()), nil
	}
	res := &TableResult{kind: SuccessWithContent, schema: types.Schema{
		{Name: "module name", Type: types.StringT}, {Name: "used", Type: types.BooleanT},
	}}
	for _, en := range m.Full() {
		res.rows = append(res.rows, []any{en.Name, en.Used})
	}
	return res, nil
}

func (e *TableEnvironment) loadModule(s *ast.LoadModule) (*TableResult, error) {
	opts := map[string]string{}
	for _, o := range s.Options {
		opts[o.Key] = o.Value
	}
	if err := e.functions().modules.Load(s.Name, opts); err != nil {
		return nil, classify(KindValidation, err)
	}
	return okResult(), nil
}

// executeFunctionStatement runs the function, module and jar statements;
// ok is false for any other statement.
func (e *TableEnvironment) executeFunctionStatement(st ast.Statement) (res *TableResult, ok bool, err error) {
	switch s := st.(type) {
	case *ast.CreateFunction:
		res, err = e.createFunction(s)
	case *ast.DropFunction:
		res, err = e.dropFunction(s)
	case *ast.AlterFunction:
		res, err = e.alterFunction(s)
	case *ast.DescribeFunction:
		res, err = e.describeFunction(s)
	case *ast.ShowModules:
		res, err = e.showModules(s)
	case *ast.LoadModule:
		res, err = e.loadModule(s)
	case *ast.UnloadModule:
		if err = e.functions().modules.Unload(s.Name); err != nil {
			return nil, true, classify(KindValidation, err)
		}
		res = okResult()
	case *ast.UseModules:
		if err = e.functions().modules.Use(s.Names...); err != nil {
			return nil, true, classify(KindValidation, err)
		}
		res = okResult()
	case *ast.AddJar:
		err = unsupported("ADD JAR: tablerun has no JVM to load Java classes; write functions in PYTHON or JAVASCRIPT")
	case *ast.RemoveJar:
		err = unsupported("REMOVE JAR: tablerun has no JVM and never adds jars")
	case *ast.ShowJars:
		// ADD JAR never succeeds, so no jar is ever listed.
		res = stringResult("jars", nil)
	default:
		return nil, false, nil
	}
	return res, true, err
}
