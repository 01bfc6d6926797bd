package python

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-python/gpython/py"
	// The embedded modules UDF code may import. os, glob and tempfile
	// (gpython/stdlib) are deliberately not linked in by this package and
	// refused by the context even when another package links them.
	_ "github.com/go-python/gpython/stdlib/binascii"
	_ "github.com/go-python/gpython/stdlib/builtin"
	_ "github.com/go-python/gpython/stdlib/math"
	_ "github.com/go-python/gpython/stdlib/string"
	_ "github.com/go-python/gpython/stdlib/sys"
	_ "github.com/go-python/gpython/stdlib/time"
	"github.com/go-python/gpython/vm"

	"github.com/tablerun/tablerun/udf"
)

// allowedModules are the embedded modules UDF code may import.
var allowedModules = map[string]bool{
	"":         true, // __main__: the UDF's own script
	"__main__": true,
	"builtins": true,
	"sys":      true,
	"math":     true,
	"time":     true,
	"string":   true,
	"binascii": true,
	"json":     true,
	"datetime": true,
	"re":       true,
}

// removedBuiltins are builtins that reach outside the process.
var removedBuiltins = []string{"open", "input"}

// maxDepth bounds Python call nesting: gpython has no recursion limit and
// a runaway recursion would overflow the Go stack, which kills the
// process.
const maxDepth = 400

// sandbox is a py.Context that cannot import files, only the allowed
// embedded modules, and that counts call depth and honours timeouts.
type sandbox struct {
	store *py.ModuleStore
	depth int
	watch *udf.Watch
	// loopErr is the exception a guarded iterator's inner iterator
	// raised (gpython's FOR_ITER drops it and ends the loop); the loop's
	// exit stub raises it (guard.go).
	loopErr   error
	closeOnce sync.Once
	done      chan struct{}
}

var _ py.Context = (*sandbox)(nil)

func init() {
	// Every Python call and generator resumption goes through these two
	// hooks; wrap them to bound recursion and to stop timed-out calls.
	evalCode := py.VmEvalCode
	py.VmEvalCode = func(ctx py.Context, code *py.Code, globals, locals py.StringDict, args []py.Object, kws py.StringDict, defs []py.Object, kwdefs py.StringDict, closure py.Tuple) (py.Object, error) {
		if s, ok := ctx.(*sandbox); ok {
			if err := s.enter(); err != nil {
				return nil, err
			}
			defer s.leave()
		}
		return evalCode(ctx, code, globals, locals, args, kws, defs, kwdefs, closure)
	}
	runFrame := py.VmRunFrame
	py.VmRunFrame = func(frame *py.Frame) (py.Object, error) {
		if s, ok := frame.Context.(*sandbox); ok {
			if err := s.enter(); err != nil {
				return nil, err
			}
			defer s.leave()
		}
		return runFrame(frame)
	}
}

func (s *sandbox) enter() error {
	s.depth++
	if s.depth > maxDepth {
		return py.ExceptionNewf(py.RuntimeError, "maximum recursion depth exceeded (%d)", maxDepth)
	}
	if s.watch != nil && s.watch.Fired() {
		return watchError(s.watch)
	}
	return nil
}

func (s *sandbox) leave() { s.depth-- }

// tick is the __tablerun_tick__ builtin called by instrumented loops.
func (s *sandbox) tick() error {
	if s.watch != nil && s.watch.Fired() {
		return watchError(s.watch)
	}
	return nil
}

func timeoutError(w *udf.Watch) error {
	if w.Canceled() {
		return py.ExceptionNewf(py.KeyboardInterrupt, "the statement was cancelled during the call")
	}
	return py.ExceptionNewf(py.TimeoutError, "call exceeded the time limit of %s", w.Limit())
}

// tickRange is what range() makes in a UDF: Python's range, whose
// iterators check the watch at every step, so that for loops,
// comprehensions and built-ins that consume a range (sum, list, sorted,
// max…) stop at the time limit and on cancellation. (while loops are
// instrumented at compile time, calls and generators at every frame.)
type tickRange struct {
	*py.Range
	sb *sandbox
}

func (r tickRange) M__iter__() (py.Object, error) {
	it, err := r.Range.M__iter__()
	if err != nil {
		return nil, err
	}
	return &tickIter{inner: it.(py.I__next__), sb: r.sb}, nil
}

// tickIter is a range iterator that checks the watch.
type tickIter struct {
	inner py.I__next__
	sb    *sandbox
}

func (it *tickIter) Type() *py.Type                { return py.RangeIteratorType }
func (it *tickIter) M__iter__() (py.Object, error) { return it, nil }
func (it *tickIter) M__next__() (py.Object, error) {
	if w := it.sb.watch; w != nil && w.Fired() {
		return nil, watchError(w)
	}
	return it.inner.M__next__()
}

// loopIter is the iterator of a for loop or a comprehension in a UDF
// (GET_ITER is rewritten to __tablerun_iter__, guard.go): it checks the
// watch at every step, whatever it iterates, and keeps the inner
// iterator's exception for the loop's exit stub (__tablerun_loop_end__),
// because gpython's FOR_ITER takes any error as the end of the loop.
type loopIter struct {
	inner py.Object
	sb    *sandbox
}

func (it *loopIter) Type() *py.Type                { return it.inner.Type() }
func (it *loopIter) M__iter__() (py.Object, error) { return it, nil }
func (it *loopIter) M__next__() (py.Object, error) {
	if w := it.sb.watch; w != nil && w.Fired() {
		return nil, watchError(w)
	}
	r, err := py.Next(it.inner)
	if err != nil && !py.IsException(py.StopIteration, err) {
		it.sb.loopErr = err
	}
	return r, err
}

// loopEnd is __tablerun_loop_end__, run when a for loop or comprehension
// ends by its iterator: it raises, at the line of the loop, the watch's
// error (time limit, cancellation, memory limit) or the exception the
// iterator raised.
func (s *sandbox) loopEnd() error {
	err := s.loopErr
	s.loopErr = nil
	if s.watch != nil && s.watch.Fired() {
		return watchError(s.watch)
	}
	return err
}

// sleep is time.sleep in a UDF: it sleeps in steps and stops at the time
// limit and on cancellation.
func (s *sandbox) sleep(self py.Object, args py.Tuple) (py.Object, error) {
	var secsObj py.Object
	if err := py.UnpackTuple(args, nil, "sleep", 1, 1, &secsObj); err != nil {
		return nil, err
	}
	secs, err := py.FloatAsFloat64(secsObj)
	if err != nil {
		return nil, err
	}
	if secs < 0 {
		return nil, py.ExceptionNewf(py.ValueError, "sleep length must be non-negative")
	}
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	for {
		if s.watch != nil && s.watch.Fired() {
			return nil, watchError(s.watch)
		}
		left := time.Until(end)
		if left <= 0 {
			return py.None, nil
		}
		time.Sleep(min(left, 5*time.Millisecond))
	}
}

// newSandbox makes a context with builtins and sys imported, open/input
// removed, an empty sys.path and print() going to stderr.
func newSandbox() (*sandbox, error) {
	s := &sandbox{store: py.NewModuleStore(), done: make(chan struct{})}
	if err := py.Import(s, "builtins", "sys"); err != nil {
		return nil, fmt.Errorf("python: starting an interpreter: %w", err)
	}
	b := s.store.Builtins
	for _, name := range removedBuiltins {
		delete(b.Globals, name)
	}
	b.Globals["__tablerun_tick__"] = py.MustNewMethod("__tablerun_tick__", func(self py.Object, args py.Tuple) (py.Object, error) {
		if err := s.tick(); err != nil {
			return nil, err
		}
		return py.True, nil
	}, 0, "")
	b.Globals["__tablerun_iter__"] = py.MustNewMethod("__tablerun_iter__", func(self py.Object, args py.Tuple) (py.Object, error) {
		if len(args) != 1 {
			return nil, py.ExceptionNewf(py.TypeError, "__tablerun_iter__ takes 1 argument")
		}
		it, err := py.Iter(args[0])
		if err != nil {
			return nil, err
		}
		if t, ok := it.(*tickIter); ok { // range: already checks the watch
			return t, nil
		}
		return &loopIter{inner: it, sb: s}, nil
	}, 0, "")
	b.Globals["__tablerun_loop_end__"] = py.MustNewMethod("__tablerun_loop_end__", func(self py.Object, args py.Tuple) (py.Object, error) {
		if err := s.loopEnd(); err != nil {
			return nil, err
		}
		return py.None, nil
	}, 0, "")
	b.Globals["range"] = py.MustNewMethod("range", func(self py.Object, args py.Tuple, kwargs py.StringDict) (py.Object, error) {
		r, err := py.RangeNew(py.RangeType, args, kwargs)
		if err != nil {
			return nil, err
		}
		return tickRange{Range: r.(*py.Range), sb: s}, nil
	}, 0, "range(stop) -> range object\nrange(start, stop[, step]) -> range object")
	installExtras(b)
	installGuards(b, s) // guard.go
	sys, err := s.store.GetModule("sys")
	if err != nil {
		return nil, err
	}
	sys.Globals["path"] = py.NewList()
	sys.Globals["argv"] = py.NewList()
	installStreams(sys.Globals) // streams.go
	return s, nil
}

// ResolveAndCompile refuses every file: UDF code cannot import files.
func (s *sandbox) ResolveAndCompile(pathname string, opts py.CompileOpts) (py.CompileOut, error) {
	return py.CompileOut{}, py.ExceptionNewf(py.ImportError, "No module named '%s' (UDFs may import only %s)", pathname, allowedList())
}

func allowedList() string {
	return "math, time, datetime, string, json, re, binascii, sys and pyflink's UDF API"
}

// ModuleInit instantiates an allowed embedded module.
func (s *sandbox) ModuleInit(impl *py.ModuleImpl) (*py.Module, error) {
	if !allowedModules[impl.Info.Name] {
		return nil, py.ExceptionNewf(py.ImportError, "No module named '%s' (UDFs may import only %s)", impl.Info.Name, allowedList())
	}
	if impl.Code == nil && len(impl.CodeSrc) > 0 {
		code, err := py.Compile(impl.CodeSrc, impl.Info.FileDesc, py.ExecMode, 0, true)
		if err != nil {
			return nil, err
		}
		impl.Code = code
	}
	if impl.Code == nil && len(impl.CodeBuf) > 0 {
		return nil, py.ExceptionNewf(py.ImportError, "No module named '%s'", impl.Info.Name)
	}
	m, err := s.store.NewModule(s, impl)
	if err != nil {
		return nil, err
	}
	if impl.Code != nil {
		if _, err := s.RunCode(impl.Code, m.Globals, m.Globals, nil); err != nil {
			return nil, err
		}
	}
	if strings.HasPrefix(impl.Info.Name, "pyflink") {
		s.linkPackages(impl.Info.Name, m) // pyflink.go
	}
	if impl.Info.Name == "time" {
		m.Globals["sleep"] = py.MustNewMethod("sleep", s.sleep, 0, "sleep(seconds): delay execution for a given number of seconds")
	}
	return m, nil
}

// RunCode executes code.
func (s *sandbox) RunCode(code *py.Code, globals, locals py.StringDict, closure py.Tuple) (py.Object, error) {
	return vm.EvalCode(s, code, globals, locals, nil, nil, nil, nil, closure)
}

// GetModule returns an imported module.
func (s *sandbox) GetModule(name string) (*py.Module, error) { return s.store.GetModule(name) }

// Store returns the module store.
func (s *sandbox) Store() *py.ModuleStore { return s.store }

// Close closes the context.
func (s *sandbox) Close() error {
	s.closeOnce.Do(func() {
		s.store.OnContextClosed()
		close(s.done)
	})
	return nil
}

// Done is closed after Close.
func (s *sandbox) Done() <-chan struct{} { return s.done }
