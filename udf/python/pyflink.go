package python

import (
	"embed"
	"fmt"
	"strings"

	"github.com/go-python/gpython/py"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/udf"
)

// PyFlink's API for UDF files (pyflink/*.py, run by gpython): a file
// written for PyFlink — `from pyflink.table.udf import udf`,
// `@udf(result_type=DataTypes.BIGINT())`, ScalarFunction, udtf, udaf,
// DataTypes, Row — is registered the Flink way (python.files and
// CREATE FUNCTION f AS 'module.f' LANGUAGE PYTHON) and runs here. A
// wrapper object (UserDefinedFunctionWrapper) declares its kind and types
// through _tablerun_udf() and is called through _tablerun_entry.

//go:embed pyflink/*.py
var pyflinkSources embed.FS

// pyflinkModules maps the module names to their sources.
var pyflinkModules = map[string]string{
	"pyflink":              "pyflink.py",
	"pyflink.common":       "common.py",
	"pyflink.common.types": "common_types.py",
	"pyflink.table":        "table.py",
	"pyflink.table.types":  "table_types.py",
	"pyflink.table.udf":    "table_udf.py",
}

// isClass tells a class from an instance (gpython's instances of
// classes are *py.Type values too, whose type is their class).
func isClass(o py.Object) bool {
	t, ok := o.(*py.Type)
	return ok && t.Type() == py.TypeType
}

// The introspection gpython lacks (no callable, issubclass, __func__ or
// __mro__), for the pyflink modules.
var pyflinkIntrospection = &py.ModuleImpl{
	Info: py.ModuleInfo{Name: "_tablerun_pyflink", Doc: "introspection for tablerun's pyflink modules"},
	Methods: []*py.Method{
		py.MustNewMethod("is_class", func(_ py.Object, args py.Tuple) (py.Object, error) {
			if len(args) != 1 {
				return nil, py.ExceptionNewf(py.TypeError, "is_class takes 1 argument")
			}
			return py.NewBool(isClass(args[0])), nil
		}, 0, "is_class(o): o is a class"),
		py.MustNewMethod("overrides", func(_ py.Object, args py.Tuple) (py.Object, error) {
			if len(args) != 3 {
				return nil, py.ExceptionNewf(py.TypeError, "overrides takes 3 arguments")
			}
			name, ok := args[1].(py.String)
			base, ok2 := args[2].(*py.Type)
			if !ok || !ok2 {
				return nil, py.ExceptionNewf(py.TypeError, "overrides(obj, name, base)")
			}
			m, err := py.GetAttrString(args[0], string(name))
			if err != nil {
				return py.False, nil
			}
			bm, ok := m.(*py.BoundMethod)
			if !ok {
				return py.True, nil // an attribute of the instance itself
			}
			return py.NewBool(bm.Method != base.Dict[string(name)]), nil
		}, 0, "overrides(obj, name, base): obj's method name is not base's"),
	},
}

func init() {
	py.RegisterModule(pyflinkIntrospection)
	allowedModules[pyflinkIntrospection.Info.Name] = true
	for name, file := range pyflinkModules {
		src, err := pyflinkSources.ReadFile("pyflink/" + file)
		if err != nil {
			panic(err)
		}
		code, err := py.Compile(string(src), "<"+name+">", py.ExecMode, 0, true)
		if err != nil {
			panic(fmt.Sprintf("pyflink module %s: %v", name, err))
		}
		py.RegisterModule(&py.ModuleImpl{Info: py.ModuleInfo{Name: name, FileDesc: "<" + name + ">"}, Code: code})
		allowedModules[name] = true
	}
}

// linkPackages makes a loaded pyflink module an attribute of its loaded
// parent, and its loaded children attributes of it (pyflink.table.udf of
// pyflink.table). It loads nothing: loading a parent here would run a
// module a second time while its first run is still importing.
func (s *sandbox) linkPackages(name string, m *py.Module) {
	if i := strings.LastIndex(name, "."); i > 0 {
		if parent, err := s.store.GetModule(name[:i]); err == nil {
			parent.Globals[name[i+1:]] = m
		}
	}
	for child := range pyflinkModules {
		if strings.HasPrefix(child, name+".") && !strings.Contains(child[len(name)+1:], ".") {
			if c, err := s.store.GetModule(child); err == nil {
				m.Globals[child[len(name)+1:]] = c
			}
		}
	}
}

// pyflinkDecl is what a PyFlink wrapper declares.
type pyflinkDecl struct {
	kind      function.Kind
	result    []string // SQL types; a table function's columns
	inputs    []string // nil: any arguments
	mergeable bool
	entry     py.Object
}

// pyflinkWrapper reads the declaration of a PyFlink wrapper object; ok is
// false for any other object.
func (it *interp) pyflinkWrapper(o py.Object) (pyflinkDecl, bool, error) {
	// gpython's instances of Python classes are *py.Type values too: a
	// class (an aggregate's) is the one whose type is type
	if t, isType := o.(*py.Type); isType && t.Type() == py.TypeType {
		return pyflinkDecl{}, false, nil
	}
	m, err := py.GetAttrString(o, "_tablerun_udf")
	if err != nil {
		return pyflinkDecl{}, false, nil
	}
	res, err := it.call(m, nil)
	if err != nil {
		return pyflinkDecl{}, true, err
	}
	t, ok := res.(py.Tuple)
	if !ok || len(t) != 4 {
		return pyflinkDecl{}, true, fmt.Errorf("internal: a malformed PyFlink function wrapper")
	}
	var d pyflinkDecl
	switch t[0] {
	case py.String("scalar"):
		d.kind = function.Scalar
	case py.String("table"):
		d.kind = function.Table
	case py.String("aggregate"):
		d.kind = function.Aggregate
	}
	strs := func(o py.Object) []string {
		switch x := o.(type) {
		case py.String:
			return []string{string(x)}
		case *py.List:
			out := make([]string, 0, len(x.Items))
			for _, it := range x.Items {
				if s, ok := it.(py.String); ok {
					out = append(out, string(s))
				}
			}
			return out
		}
		return nil
	}
	d.result = strs(t[1])
	if t[2] != py.None {
		d.inputs = strs(t[2])
		if d.inputs == nil {
			d.inputs = []string{}
		}
	}
	d.mergeable = t[3] == py.True
	if d.entry, err = py.GetAttrString(o, "_tablerun_entry"); err != nil {
		return pyflinkDecl{}, true, err
	}
	return d, true, nil
}

// Declared is a script function as its file declares it (PyFlink's
// wrappers): the SQL types are text, for the caller to parse.
type Declared struct {
	Kind function.Kind
	// Result is the result type; a table function's column types.
	Result []string
	// Inputs are the argument types; nil when the file declares none
	// (the function takes arguments of any type).
	Inputs []string
	// Mergeable: an aggregate that overrides merge.
	Mergeable bool
}

// Describe runs the script file of spec (File, Func; Body empty) and
// returns what the object named spec.Func declares, if it is a PyFlink
// function (udf, udtf, udaf); ok is false for a plain function or class.
func Describe(spec udf.Spec) (d Declared, ok bool, err error) {
	spec.Kind = function.Scalar
	p, err := compileProgram(spec)
	if err != nil {
		return Declared{}, false, err
	}
	it, err := p.newInterp()
	if err != nil {
		return Declared{}, false, err
	}
	defer it.close()
	if it.pyflink == nil {
		return Declared{}, false, nil
	}
	w := it.pyflink
	return Declared{Kind: w.kind, Result: w.result, Inputs: w.inputs, Mergeable: w.mergeable}, true, nil
}
