package core

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/parser"
	"github.com/tablerun/tablerun/planner/validate"
	"github.com/tablerun/tablerun/udf"
	"github.com/tablerun/tablerun/udf/python"
)

// PyFlink's way to register a Python function of a file:
//
//	SET 'python.files' = 'udfs.py';
//	CREATE TEMPORARY FUNCTION add AS 'udfs.add' LANGUAGE PYTHON;
//
// where udfs.py declares add with PyFlink's udf/udtf/udaf (udf/python's
// pyflink modules). The declaration gives the kind and the types; without
// input_types the function takes arguments of any type, and each call
// signature gets its own instance (udf.NewPoly).

// pythonFilesDirs returns the directories python.files adds to the
// search path of script files: a .py file's directory, a directory
// itself (archives are not supported yet).
func (e *TableEnvironment) pythonFilesDirs() ([]string, error) {
	v, ok := e.cfg.Get("python.files")
	if !ok || strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var dirs []string
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		f = strings.TrimPrefix(f, "file://")
		st, err := os.Stat(f)
		switch {
		case err != nil:
			return nil, fmt.Errorf("python.files: %w", err)
		case st.IsDir():
			dirs = append(dirs, f)
		case strings.HasSuffix(f, ".py"):
			dirs = append(dirs, filepath.Dir(f))
		default:
			return nil, unsupported("python.files entry %s: only .py files and directories (no .zip, .whl or .egg archives)", f)
		}
	}
	return dirs, nil
}

// pyflinkDefinition compiles the PyFlink function fn of file, or reports
// ok = false when the file's object is no PyFlink wrapper.
func (e *TableEnvironment) pyflinkDefinition(spec udf.Spec, file, fn string) (def *function.Definition, ok bool, err error) {
	spec.File, spec.Func = file, fn
	d, ok, err := python.Describe(spec)
	if err != nil || !ok {
		return nil, ok, err
	}
	parse := func(what, sql string) (types.Type, error) {
		at, err := parser.ParseDataType(sql)
		if err != nil {
			return types.Type{}, fmt.Errorf("Python function '%s' in %s: %s type '%s': %w", spec.Name, file, what, sql, err)
		}
		t, err := validate.ResolveType(at)
		if err != nil {
			return types.Type{}, fmt.Errorf("Python function '%s' in %s: %s type '%s': %w", spec.Name, file, what, sql, err)
		}
		return t, nil
	}
	spec.Kind = d.Kind
	switch d.Kind {
	case function.Table:
		fields := make([]types.Field, len(d.Result))
		for i, r := range d.Result {
			t, err := parse("result", r)
			if err != nil {
				return nil, true, err
			}
			fields[i] = types.Field{Name: fmt.Sprintf("f%d", i), Type: t}
		}
		spec.Returns = types.Type{Kind: types.Row, Fields: fields}
	default:
		if len(d.Result) != 1 {
			return nil, true, fmt.Errorf("Python function '%s' in %s declares no result type", spec.Name, file)
		}
		if spec.Returns, err = parse("result", d.Result[0]); err != nil {
			return nil, true, err
		}
	}
	compile := scriptCompilers["PYTHON"]
	if d.Inputs == nil {
		return udf.NewPoly(spec, compile, d.Mergeable), true, nil
	}
	spec.Params = make([]types.Field, len(d.Inputs))
	for i, in := range d.Inputs {
		t, err := parse("input", in)
		if err != nil {
			return nil, true, err
		}
		spec.Params[i] = types.Field{Name: fmt.Sprintf("arg%d", i), Type: t}
	}
	def, err = compile(spec)
	return def, true, err
}
