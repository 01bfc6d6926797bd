// Package js runs JavaScript user-defined functions with goja: scalar
// functions, table functions (generator functions, or functions returning
// an array) and aggregate functions (classes with createAccumulator,
// accumulate, retract, merge and getValue).
//
// Each definition compiles its script once (*goja.Program) and keeps a
// pool of runtimes that ran it; a call borrows one runtime, so global
// state is per runtime and never touched by two goroutines at once.
//
// Value mapping (SQL → JavaScript → SQL): NULL ↔ null (undefined is NULL
// too on return); BOOLEAN ↔ boolean; TINYINT…BIGINT ↔ number (BIGINT is
// exact up to 2^53; a BigInt result is accepted), integral numbers on
// return; FLOAT, DOUBLE ↔ number; DECIMAL → number, and a result may be a
// number or a string (exact); CHAR/VARCHAR ↔ string; BINARY/VARBINARY ↔
// Uint8Array (an ArrayBuffer is accepted); DATE ↔ Date at UTC midnight
// (a 'yyyy-MM-dd' string is accepted); TIME ↔ string 'HH:mm:ss[.fff]';
// TIMESTAMP ↔ Date whose UTC fields are the wall-clock time (milliseconds;
// a string is accepted); TIMESTAMP_LTZ ↔ Date at the instant (a string is
// read in the session time zone); INTERVAL DAY TO SECOND ↔ number of
// milliseconds; INTERVAL YEAR TO MONTH ↔ number of months; ARRAY ↔ Array;
// MAP with string keys ↔ plain object, other MAPs ↔ Map (either, or an
// array of [key, value] pairs, is accepted on return); ROW ↔ object keyed
// by field name (an array by position is accepted on return).
//
// Safety: goja has no file, network or process access (no require, no
// timers); console.log/info/warn/error/debug write to stderr; calls nest
// at most 1000 deep; a call that runs longer than the spec's timeout is
// interrupted.
package js

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/dop251/goja"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
)

// program is one compiled script function.
type program struct {
	spec   udf.Spec
	source string
	prog   *goja.Program
	getter *goja.Program // evaluates the entry identifier
	params []types.Type
	pool   *udf.Pool[*interp]
}

// interp is one runtime running the program; it is the udf.Interp of the
// shared script driver (driver.go).
type interp struct {
	p     *program
	rt    *goja.Runtime
	entry goja.Value
	fn    goja.Callable
	watch *udf.Watch
	// constructors used by conversions
	dateCtor, mapCtor, u8Ctor goja.Value
	// bufs holds the argument buffers of the driver, reused across calls.
	bufs udf.CallBuffers[goja.Value]
	// driver runs a chunk's row loop as nested calls (arrow.go).
	driver goja.Callable
}

var (
	identRE    = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)
	parseErrRE = regexp.MustCompile(`Line (\d+):(\d+) (.*?)(?: \(and \d+ more errors?\))?$`)
	declRE     = regexp.MustCompile(`(?m)(?:function\*?|class|let|const|var)\s+([A-Za-z_$][A-Za-z0-9_$]*)`)
)

// maxCallStack bounds JavaScript call nesting.
const maxCallStack = 1000

// Compile compiles a JavaScript function declared by spec into a
// definition. Syntax errors, a throwing script body and a missing or
// ill-shaped entry are reported here.
func Compile(spec udf.Spec) (*function.Definition, error) {
	if err := udf.ValidateSpec(spec); err != nil {
		return nil, err
	}
	src := spec.Body
	if src == "" {
		b, err := os.ReadFile(spec.File)
		if err != nil {
			return nil, fmt.Errorf("JavaScript function '%s': reading the script: %w", spec.Name, err)
		}
		src = string(b)
	}
	p := &program{spec: spec, source: spec.Source(), params: spec.ParamTypes()}
	if !identRE.MatchString(spec.Entry()) {
		return nil, p.plainError(fmt.Sprintf("'%s' is not a JavaScript identifier: use the AS 'file.func' form to name the function", spec.Entry()))
	}
	prog, err := goja.Compile(p.source, rewritePow(src), false) // guard.go
	if err != nil {
		return nil, p.syntaxError(err)
	}
	p.prog = prog
	// SQL names are case-insensitive: accept a declaration that differs
	// in case only.
	entryName := spec.Entry()
	decls := declRE.FindAllStringSubmatch(src, -1)
	exact := false
	for _, m := range decls {
		exact = exact || m[1] == entryName
	}
	if !exact {
		for _, m := range decls {
			if strings.EqualFold(m[1], entryName) {
				entryName = m[1]
				break
			}
		}
	}
	p.getter, err = goja.Compile("<tablerun>", entryName, false)
	if err != nil {
		return nil, fmt.Errorf("js: internal: %w", err)
	}
	p.pool = udf.NewPool(p.newInterp, (*interp).close)
	first, err := p.newInterp()
	if err != nil {
		return nil, err
	}
	p.pool.Put(first)

	script := &udf.Script[goja.Value, *interp]{Lang: lang, Spec: spec, Source: p.source, Params: p.params, Pool: p.pool,
		Methods: [5]string{"createAccumulator", "accumulate", "retract", "merge", "getValue"}}
	if spec.Kind == function.Aggregate {
		proto := first.entry.ToObject(first.rt).Get("prototype").ToObject(first.rt)
		script.CanRetract = isFunc(proto.Get("retract"))
		script.CanMerge = isFunc(proto.Get("merge"))
	}
	return script.Definition()
}

func isFunc(v goja.Value) bool {
	_, ok := goja.AssertFunction(v)
	return ok
}

func (p *program) newInterp() (*interp, error) {
	rt := goja.New()
	rt.SetMaxCallStackSize(maxCallStack)
	it := &interp{p: p, rt: rt}
	it.watch = udf.NewWatch(p.spec.CallTimeout(), func() { rt.Interrupt("timeout") })
	it.watch.SetMemoryLimit(p.spec.CallMemoryLimit())
	if err := installGuards(rt, p.spec.CallMemoryLimit()); err != nil { // guard.go
		it.close()
		return nil, p.plainError("installing the memory guards: " + err.Error())
	}
	installConsole(rt)
	if _, err := it.run(func() (goja.Value, error) { return rt.RunProgram(p.prog) }); err != nil {
		it.close()
		return nil, p.callError(err, it, nil, "running the script body")
	}
	entry, err := rt.RunProgram(p.getter)
	if err != nil {
		entry = nil
		{
			it.close()
			what := "function"
			if p.spec.Kind == function.Aggregate {
				what = "class"
			}
			return nil, p.plainError(fmt.Sprintf("the script defines no %s named '%s'", what, p.spec.Entry()))
		}
	}
	fn, ok := goja.AssertFunction(entry)
	if !ok {
		it.close()
		return nil, p.plainError(fmt.Sprintf("'%s' must be a %s, not a %s", p.spec.Entry(), map[bool]string{true: "class", false: "function"}[p.spec.Kind == function.Aggregate], typeOf(entry)))
	}
	if p.spec.Kind == function.Aggregate {
		proto := entry.ToObject(rt).Get("prototype")
		if proto == nil || goja.IsUndefined(proto) {
			it.close()
			return nil, p.plainError(fmt.Sprintf("'%s' must be a class with createAccumulator, accumulate and getValue", p.spec.Entry()))
		}
		for _, m := range []string{"createAccumulator", "accumulate", "getValue"} {
			if !isFunc(proto.ToObject(rt).Get(m)) {
				it.close()
				return nil, p.plainError(fmt.Sprintf("class '%s' has no method %s", p.spec.Entry(), m))
			}
		}
	}
	it.entry, it.fn = entry, fn
	// An interpreter the pool lets the GC drop unregisters its watch.
	runtime.AddCleanup(it, func(w *udf.Watch) { w.Close() }, it.watch)
	it.dateCtor = rt.Get("Date")
	it.mapCtor = rt.Get("Map")
	it.u8Ctor = rt.Get("Uint8Array")
	return it, nil
}

func (it *interp) close() { it.watch.Close() }

// consoleOut receives console.log output (stderr unless SetOutput).
var (
	consoleMu  sync.Mutex
	consoleOut io.Writer = os.Stderr
)

// SetOutput sets where the console.log/info/warn/error/debug lines of
// every JavaScript UDF go (default: the process's stderr); it returns the
// previous writer.
func SetOutput(w io.Writer) io.Writer {
	consoleMu.Lock()
	defer consoleMu.Unlock()
	old := consoleOut
	consoleOut = w
	return old
}

// installConsole defines console.log/info/warn/error/debug writing one
// line to stderr, so debugging output never mixes with query results.
func installConsole(rt *goja.Runtime) {
	c := rt.NewObject()
	logFn := func(call goja.FunctionCall) goja.Value {
		parts := make([]string, len(call.Arguments))
		for i, a := range call.Arguments {
			parts[i] = a.String()
		}
		consoleMu.Lock()
		w := consoleOut
		consoleMu.Unlock()
		fmt.Fprintln(w, strings.Join(parts, " "))
		return goja.Undefined()
	}
	for _, name := range []string{"log", "info", "warn", "error", "debug"} {
		_ = c.Set(name, logFn)
	}
	_ = rt.Set("console", c)
}

// run executes f under the watch; a timeout surfaces as an error.
func (it *interp) run(f func() (goja.Value, error)) (v goja.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("internal error in the JavaScript runtime: %v", r)
		}
	}()
	it.watch.Begin()
	v, err = f()
	if it.watch.End() {
		it.rt.ClearInterrupt()
	}
	return v, err
}

// call calls fn under the watch (the hot path: no closure).
func (it *interp) call(fn goja.Callable, this goja.Value, args ...goja.Value) (v goja.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("internal error in the JavaScript runtime: %v", r)
		}
	}()
	it.watch.Begin()
	v, err = fn(this, args...)
	if it.watch.End() {
		it.rt.ClearInterrupt()
	}
	return v, err
}

func (p *program) plainError(msg string) error {
	return &udf.Error{Lang: "JavaScript", Func: p.spec.Name, Source: p.source, Msg: msg}
}

func (p *program) syntaxError(err error) error {
	e := &udf.Error{Lang: "JavaScript", Func: p.spec.Name, Source: p.source, Msg: err.Error()}
	var se *goja.CompilerSyntaxError
	if errors.As(err, &se) {
		e.Msg = "SyntaxError: " + se.Message
		if se.File != nil {
			pos := se.File.Position(se.Offset)
			e.Line, e.Col = pos.Line, pos.Column
		}
		// Parser errors carry the position in the text:
		// "<file>: Line 2:15 Unexpected token ; (and 2 more errors)".
		if m := parseErrRE.FindStringSubmatch(se.Message); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Col, _ = strconv.Atoi(m[2])
			e.Msg = "SyntaxError: " + m[3]
		}
	}
	return e
}

// callError maps an error thrown by the script.
func (p *program) callError(err error, it *interp, args []any, when string) error {
	e := &udf.Error{Lang: "JavaScript", Func: p.spec.Name, Source: p.source, Msg: err.Error()}
	if args != nil {
		e.Input = udf.FormatInput(args, p.params)
	}
	var ex *goja.Exception
	var ie *goja.InterruptedError
	var so *goja.StackOverflowError
	switch {
	case errors.As(err, &so):
		e.Msg = fmt.Sprintf("RangeError: Maximum call stack size exceeded (%d calls)", maxCallStack)
		for _, f := range so.Stack() {
			if f.SrcName() == p.source {
				e.Line = f.Position().Line
				break
			}
		}
	case (errors.As(err, &ie) || (it != nil && it.watch.Fired())) && it != nil && it.watch.OverMemory():
		e.Msg = "RangeError: " + (&udf.MemoryError{Limit: it.watch.MemoryLimit()}).Error()
		e.Line = p.lineOf(ie)
	case (errors.As(err, &ie) || (it != nil && it.watch.Fired())) && it != nil && it.watch.Canceled():
		e.Msg = "cancelled: the statement was cancelled during the call"
		e.Line = p.lineOf(ie)
	case errors.As(err, &ie) || (it != nil && it.watch.Fired()):
		e.Msg = fmt.Sprintf("timed out: the call ran longer than %s", it.watch.Limit())
		e.Line = p.lineOf(ie)
	case errors.As(err, &ex):
		e.Msg = exceptionText(ex.Value())
		var trace strings.Builder
		for _, f := range ex.Stack() {
			pos := f.Position()
			fmt.Fprintf(&trace, "  at %s (%s:%d:%d)\n", f.FuncName(), pos.Filename, pos.Line, pos.Column)
			if e.Line == 0 && f.SrcName() == p.source {
				e.Line, e.Col = pos.Line, pos.Column
			}
		}
		e.Trace = trace.String()
	}
	if when != "" {
		e.Msg = when + ": " + e.Msg
	}
	return e
}

func (p *program) lineOf(ie *goja.InterruptedError) int {
	if ie == nil {
		return 0
	}
	for _, f := range ie.Stack() {
		if f.SrcName() == p.source {
			return f.Position().Line
		}
	}
	return 0
}

// exceptionText renders a thrown value: "TypeError: x is not a function",
// "Error: bad input", or the thrown string.
func exceptionText(v goja.Value) string {
	if v == nil {
		return "exception"
	}
	if o, ok := v.(*goja.Object); ok {
		name := o.Get("name")
		msg := o.Get("message")
		if name != nil && msg != nil && !goja.IsUndefined(name) {
			if ms := msg.String(); ms != "" {
				return name.String() + ": " + ms
			}
			return name.String()
		}
	}
	return "Uncaught " + v.String()
}

func (p *program) resultError(err error, args []any) error {
	return &udf.Error{Lang: "JavaScript", Func: p.spec.Name, Source: p.source, Msg: err.Error(),
		Input: udf.FormatInput(args, p.params)}
}

// CheckSyntax compiles a JavaScript module's source without running it
// and returns its syntax error, if any, as a *udf.Error whose Line and Col
// are within src. name names the source in the message; fn is the SQL
// function the error is reported for ("" when there is none yet).
func CheckSyntax(src, name, fn string) error {
	p := &program{spec: udf.Spec{Name: fn}, source: name}
	if _, err := goja.Compile(name, src, false); err != nil {
		return p.syntaxError(err)
	}
	return nil
}
