// Package python runs Python user-defined functions with gpython: scalar
// functions, table functions (generators) and aggregate functions (classes
// with PyFlink's accumulator methods).
//
// Each definition compiles its script once and keeps a pool of
// interpreters (gpython contexts) made from the compiled code; a call
// borrows one interpreter, so module globals are per interpreter and never
// written by two goroutines at once.
//
// Value mapping (SQL → Python → SQL): NULL ↔ None; BOOLEAN ↔ bool;
// TINYINT…BIGINT ↔ int (range-checked on return); FLOAT, DOUBLE ↔ float
// (an int result is accepted); DECIMAL → float, and a result may be int,
// float or str (exact); CHAR/VARCHAR ↔ str; BINARY/VARBINARY ↔ bytes;
// DATE ↔ str 'yyyy-MM-dd' (an int result counts days since 1970-01-01);
// TIME ↔ str 'HH:mm:ss[.fff]'; TIMESTAMP ↔ str 'yyyy-MM-dd
// HH:mm:ss[.ffffff]'; TIMESTAMP_LTZ ↔ the same text in the session time
// zone; INTERVAL DAY TO SECOND ↔ int milliseconds; INTERVAL YEAR TO
// MONTH ↔ int months; ARRAY ↔ list; MAP with string keys ↔ dict, other
// MAPs ↔ list of (key, value) tuples (a dict or such a list is accepted
// on return); ROW ↔ tuple (a tuple/list by position or a dict by field
// name on return).
//
// Authoring: tablerun supplies what gpython lacks — str/list/dict
// methods, a correct round(), str.format, f-strings (rewritten to
// str.format), and the json, re and datetime modules. AUTHORING.md lists
// the supported subset for UDF authors.
//
// Safety: only the embedded modules math, time, datetime, string, json,
// re, binascii and sys can be imported (no files, no os/glob/tempfile);
// open() and input() are removed; print() writes to stderr; recursion is
// limited to 400 frames; a call that runs longer than the spec's timeout
// raises TimeoutError at its next function call or loop iteration.
package python

import (
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strings"

	"github.com/go-python/gpython/py"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
)

// program is one compiled script function.
type program struct {
	spec   udf.Spec
	source string
	code   *py.Code
	params []types.Type
	pool   *udf.Pool[*interp]
}

// interp is one interpreter running the program; it is the
// udf.Interp of the shared script driver (driver.go).
type interp struct {
	p     *program
	sb    *sandbox
	entry py.Object
	// pyflink is the declaration of a PyFlink function wrapper (pyflink.go)
	// when the script's object is one; entry is then its _tablerun_entry.
	pyflink *pyflinkDecl
	watch   *udf.Watch
	// bufs holds the argument buffers of the driver, reused across calls.
	bufs udf.CallBuffers[py.Object]
}

// compileProgram compiles the script of spec (syntax errors are reported
// here); its interpreters run the module body.
func compileProgram(spec udf.Spec) (*program, error) {
	if err := udf.ValidateSpec(spec); err != nil {
		return nil, err
	}
	src := spec.Body
	if src == "" {
		b, err := os.ReadFile(spec.File)
		if err != nil {
			return nil, fmt.Errorf("Python function '%s': reading the script: %w", spec.Name, err)
		}
		src = string(b)
	}
	p := &program{spec: spec, source: spec.Source(), params: spec.ParamTypes()}
	code, err := py.Compile(instrument(rewriteFStrings(src), p.source)+"\n", p.source, py.ExecMode, 0, true)
	if err != nil {
		return nil, p.syntaxError(err)
	}
	if code, err = guardCode(code); err != nil { // guard.go
		return nil, &udf.Error{Lang: "Python", Func: spec.Name, Source: p.source, Msg: err.Error()}
	}
	p.code = code
	p.pool = udf.NewPool(p.newInterp, (*interp).close)
	return p, nil
}

// Compile compiles a Python function declared by spec into a definition.
// Syntax errors, a failing module body and a missing or ill-shaped entry
// (function or class named spec.Name / spec.Func, or a PyFlink function
// of spec's kind) are reported here.
func Compile(spec udf.Spec) (*function.Definition, error) {
	p, err := compileProgram(spec)
	if err != nil {
		return nil, err
	}
	first, err := p.newInterp()
	if err != nil {
		return nil, err
	}
	if err := p.checkEntry(first); err != nil {
		return nil, err
	}
	p.pool.Put(first)

	script := &udf.Script[py.Object, *interp]{Lang: lang, Spec: spec, Source: p.source, Params: p.params, Pool: p.pool,
		KeepsArgs: true, // a generator keeps its argument tuple
		Methods:   [5]string{"create_accumulator", "accumulate", "retract", "merge", "get_value"}}
	if spec.Kind == function.Aggregate {
		cls := first.entry
		if first.pyflink != nil {
			// the wrapper's entry makes the object with the methods
			if cls, err = first.call(first.entry, nil); err != nil {
				return nil, p.callError(err, first, nil, "creating the aggregate function")
			}
		}
		_, errR := py.GetAttrString(cls, "retract")
		_, errM := py.GetAttrString(cls, "merge")
		script.CanRetract, script.CanMerge = errR == nil, errM == nil
	}
	return script.Definition()
}

// newInterp starts an interpreter and runs the module body.
func (p *program) newInterp() (*interp, error) {
	sb, err := newSandbox()
	if err != nil {
		return nil, err
	}
	it := &interp{p: p, sb: sb}
	it.watch = udf.NewWatch(p.spec.CallTimeout(), func() {})
	it.watch.SetMemoryLimit(p.spec.CallMemoryLimit())
	sb.watch = it.watch
	it.watch.Begin()
	mod, err := p.safeRun(func() (*py.Module, error) { return py.RunCode(sb, p.code, p.source, nil) })
	it.watch.End()
	if err != nil {
		it.close()
		return nil, p.callError(err, it, nil, "running the module body")
	}
	entry, ok := findGlobal(mod.Globals, p.spec.Entry())
	if !ok {
		it.close()
		what := "function"
		if p.spec.Kind == function.Aggregate {
			what = "class"
		}
		return nil, &udf.Error{Lang: "Python", Func: p.spec.Name, Source: p.source,
			Msg: fmt.Sprintf("the script defines no %s named '%s'", what, p.spec.Entry())}
	}
	it.entry = entry
	if d, ok, err := it.pyflinkWrapper(entry); ok || err != nil {
		if err != nil {
			it.close()
			return nil, p.callError(err, it, nil, "reading the PyFlink function")
		}
		it.pyflink, it.entry = &d, d.entry
	}
	// An interpreter the pool lets the GC drop unregisters its watch.
	runtime.AddCleanup(it, func(w *udf.Watch) { w.Close() }, it.watch)
	return it, nil
}

func (it *interp) close() {
	it.watch.Close()
	_ = it.sb.Close()
}

func (p *program) safeRun(f func() (*py.Module, error)) (m *py.Module, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("internal error in the Python interpreter: %v", r)
		}
	}()
	return f()
}

// findGlobal looks name up exactly, then case-insensitively (SQL names
// are case-insensitive).
func findGlobal(g py.StringDict, name string) (py.Object, bool) {
	if o, ok := g[name]; ok {
		return o, true
	}
	for k, o := range g {
		if strings.EqualFold(k, name) {
			return o, true
		}
	}
	return nil, false
}

func (p *program) checkEntry(it *interp) error {
	entry := it.entry
	bad := func(msg string) error {
		return &udf.Error{Lang: "Python", Func: p.spec.Name, Source: p.source, Msg: msg}
	}
	if d := it.pyflink; d != nil {
		if d.kind != p.spec.Kind {
			return bad(fmt.Sprintf("'%s' is a PyFlink %s function, declared here as a %s function", p.spec.Entry(), udf.KindName(d.kind), udf.KindName(p.spec.Kind)))
		}
		return nil
	}
	if p.spec.Kind == function.Aggregate {
		cls, ok := entry.(*py.Type)
		if !ok {
			return bad(fmt.Sprintf("'%s' must be a class with create_accumulator, accumulate and get_value, not a %s", p.spec.Entry(), entry.Type().Name))
		}
		for _, m := range []string{"create_accumulator", "accumulate", "get_value"} {
			if _, err := py.GetAttrString(cls, m); err != nil {
				return bad(fmt.Sprintf("class '%s' has no method %s", p.spec.Entry(), m))
			}
		}
		return nil
	}
	if _, ok := entry.(*py.Function); !ok {
		return bad(fmt.Sprintf("'%s' must be a function, not a %s", p.spec.Entry(), entry.Type().Name))
	}
	return nil
}

// call runs f on an interpreter under the watch, converting panics.
func (it *interp) call(fn py.Object, args py.Tuple) (res py.Object, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("internal error in the Python interpreter: %v", r)
		}
	}()
	it.watch.Begin()
	res, err = py.Call(fn, args, nil)
	if it.watch.End() && err == nil {
		err = watchError(it.watch)
	}
	return res, err
}

// next steps an iterator under the watch, converting panics (py.Next
// calls a generator's __next__ directly, where looking the method up as an
// attribute goes through reflection).
func (it *interp) next(iter py.Object) (res py.Object, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("internal error in the Python interpreter: %v", r)
		}
	}()
	it.watch.Begin()
	res, err = py.Next(iter)
	if it.watch.End() && err == nil {
		err = watchError(it.watch)
	}
	return res, err
}

// syntaxError maps a compile error.
func (p *program) syntaxError(err error) error {
	e := &udf.Error{Lang: "Python", Func: p.spec.Name, Source: p.source, Msg: err.Error()}
	var exc *py.Exception
	if ei, ok := err.(py.ExceptionInfo); ok {
		exc, _ = ei.Value.(*py.Exception)
	} else {
		exc, _ = err.(*py.Exception)
	}
	if exc != nil {
		e.Msg = exc.Base.Name + ": " + excMessage(exc)
		if l, ok := exc.Dict["lineno"].(py.Int); ok {
			e.Line = int(l)
		}
		if t, ok := exc.Dict["line"].(py.String); ok && asyncSyntax.MatchString(string(t)) {
			// PyFlink's asynchronous scalar functions
			e.Msg = "not supported yet: async def and await (asynchronous Python functions): tablerun runs Python UDFs in gpython, a Python 3.4 without them"
		}
	}
	return e
}

// asyncSyntax matches a line that uses async def or await.
var asyncSyntax = regexp.MustCompile(`^\s*async\s+def\b|\bawait\b`)

func excMessage(exc *py.Exception) string {
	switch a := exc.Args.(type) {
	case py.Tuple:
		switch len(a) {
		case 0:
			return ""
		case 1:
			if s, ok := a[0].(py.String); ok {
				return string(s)
			}
			s, _ := py.StrAsString(a[0])
			return s
		}
	}
	s, _ := py.StrAsString(exc)
	return s
}

// callError maps an error raised by the script.
func (p *program) callError(err error, it *interp, args []any, when string) error {
	e := &udf.Error{Lang: "Python", Func: p.spec.Name, Source: p.source}
	if args != nil {
		e.Input = udf.FormatInput(args, p.params)
	}
	ei, isInfo := err.(py.ExceptionInfo)
	switch {
	case isInfo:
		var trace strings.Builder
		for tb := ei.Traceback; tb != nil; tb = tb.Next {
			fmt.Fprintf(&trace, "  File %q, line %d, in %s\n", tb.Frame.Code.Filename, tb.Lineno, tb.Frame.Code.Name)
			if tb.Frame.Code.Filename == p.source {
				e.Line = int(tb.Lineno)
			}
		}
		e.Trace = trace.String()
		if exc, ok := ei.Value.(*py.Exception); ok {
			e.Msg = exc.Base.Name
			if m := excMessage(exc); m != "" {
				e.Msg += ": " + m
			}
		} else {
			e.Msg = ei.Error()
		}
	default:
		if exc, ok := err.(*py.Exception); ok {
			e.Msg = exc.Base.Name + ": " + excMessage(exc)
		} else {
			e.Msg = err.Error()
		}
	}
	if it != nil && it.watch.Fired() {
		switch {
		case it.watch.OverMemory():
			e.Msg = "MemoryError: " + (&udf.MemoryError{Limit: it.watch.MemoryLimit()}).Error()
		case it.watch.Canceled():
			e.Msg = "cancelled: the statement was cancelled during the call"
		default:
			e.Msg = fmt.Sprintf("timed out: the call ran longer than %s", it.watch.Limit())
		}
	}
	if when != "" {
		e.Msg = when + ": " + e.Msg
	}
	return e
}

func (p *program) resultError(err error, args []any) error {
	return &udf.Error{Lang: "Python", Func: p.spec.Name, Source: p.source, Msg: err.Error(),
		Input: udf.FormatInput(args, p.params)}
}

// CheckSyntax compiles a Python module's source without running it and
// returns its syntax error, if any, as a *udf.Error whose Line (and Col
// when known) are within src. name names the source in the message; func
// is the SQL function the error is reported for ("" when the module is not
// yet bound to one).
func CheckSyntax(src, name, fn string) error {
	p := &program{spec: udf.Spec{Name: fn}, source: name}
	if _, err := py.Compile(instrument(rewriteFStrings(src), name)+"\n", name, py.ExecMode, 0, true); err != nil {
		return p.syntaxError(err)
	}
	return nil
}
