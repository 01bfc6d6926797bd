package udf

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

// The script driver: one implementation of scalar, table and aggregate
// script functions (Definition.Eval, BatchFunc, ArrowFunc, TableFunc,
// TableChunkFunc, AggregateFunc) shared by the runtimes. A runtime
// (udf/python, udf/js) compiles the script and supplies, per interpreter,
// what differs between languages: the conversion of values both ways, the
// call of the entry function, the stepping of a table function's result,
// the accumulator object of an aggregate and the mapping of its errors
// (Interp). Everything else — borrowing interpreters, argument buffers,
// null-on-null rows, result coercion, table rows, accumulator handles,
// messages — lives here once.

// Interp is one interpreter of a compiled script, as the driver uses it;
// V is the runtime's value type (goja.Value, py.Object). An Interp is
// used by one goroutine at a time (Script.Pool lends it).
type Interp[V any] interface {
	// Buffers are the interpreter's argument buffers, reused across calls.
	Buffers() *CallBuffers[V]
	// ToScript converts a canonical Go value of type t (nil: NULL).
	ToScript(v any, t types.Type, loc *time.Location) (V, error)
	// FromScript converts a script value to the plain Go form Coerce reads.
	FromScript(v V) any
	// Primitives convert the common primitive values both ways for the
	// driver's typed loops (script_values.go).
	Primitives[V]
	// Watch is the interpreter's call watch (time limit, cancellation).
	Watch() *Watch
	// Call calls the entry function with args under the call's time
	// limit; the error is the interpreter's (CallError maps it).
	Call(args []V) (V, error)
	// Chunk runs calls, the row loop of a chunk whose script calls are
	// made with ChunkCall (and Iterate), in one guard.
	Chunk(calls func() error) error
	// ChunkCall is Call inside Chunk.
	ChunkCall(args []V) (V, error)
	// Iterate steps through what a table function call returned and
	// calls yield per produced item; errors of the script and of the
	// result's shape come mapped (argRow gives the call's arguments),
	// errors of yield unchanged.
	Iterate(res V, argRow func() []any, yield func(item V) error) error
	// TableRow converts one produced item to the values of the function's
	// columns (returns: the ROW of Spec.Returns).
	TableRow(ctx *function.EvalContext, item V, returns types.Type) ([]any, error)
	// NewAggregate makes the object of an aggregate class.
	NewAggregate() (AggObject[V], error)
	// Export converts an accumulator to the plain Go values Import reads.
	Export(acc V) any
	// Import is the inverse of Export.
	Import(v any) (V, error)
	// CallError maps an error of a call (args: its arguments, nil when
	// none; when: what was called, "" for the entry function).
	CallError(err error, args []any, when string) error
}

// CallBuffers are an interpreter's reused argument buffers: the argument
// list of one call and the argument columns of a chunk.
type CallBuffers[V any] struct {
	Args []V
	Cols [][]V
}

// AggMethod names one method of an aggregate class.
type AggMethod int

// The methods of an aggregate class (PyFlink's and their JavaScript names).
const (
	CreateAccumulator AggMethod = iota
	Accumulate
	Retract
	Merge
	GetValue
)

// AggObject is the object of an aggregate class in one interpreter.
type AggObject[V any] interface {
	// Has reports whether the class defines m.
	Has(m AggMethod) bool
	// Call calls m: CreateAccumulator with no arguments, Accumulate and
	// Retract with the accumulator and the row's arguments, Merge with the
	// accumulator and the other accumulator, GetValue with the
	// accumulator. keep is false when the result is to be ignored (None,
	// undefined: the method updated the accumulator in place).
	Call(m AggMethod, args []V) (res V, keep bool, err error)
}

// Script is a compiled script function run by the driver.
type Script[V any, I Interp[V]] struct {
	// Lang is the runtime's value vocabulary; Lang.Name ("Python",
	// "JavaScript") names it in messages.
	Lang   *Lang
	Spec   Spec
	Source string
	Params []types.Type
	Pool   *Pool[I]
	// KeepsArgs: a call may keep its argument list after it returns (a
	// Python generator keeps its frame's arguments), so table calls get
	// a fresh one per row.
	KeepsArgs bool
	// Methods are the names of the aggregate methods in messages
	// ("create_accumulator", "createAccumulator", …), by AggMethod.
	Methods [5]string
	// CanRetract and CanMerge: the aggregate class defines retract and
	// merge (set by the runtime when it compiles).
	CanRetract, CanMerge bool
}

// Definition returns the function definition of s and registers its
// implementation (TableImpl, AggregateImpl, BatchImpl, ArrowImpl).
func (s *Script[V, I]) Definition() (*function.Definition, error) {
	def := &function.Definition{
		Name:             s.Spec.Name,
		Kind:             s.Spec.Kind,
		Infer:            Infer(s.Spec),
		Nondeterministic: true,
		Doc: function.Doc{
			Summary: fmt.Sprintf("%s %s function from %s", s.Lang.Name, KindName(s.Spec.Kind), s.Source),
			Args:    s.Spec.ParamList(),
		},
	}
	switch s.Spec.Kind {
	case function.Scalar:
		def.Eval = s.eval
		Register(def, &scalarScript[V, I]{s})
	case function.Table:
		def.Eval = NotScalar(s.Spec)
		Register(def, &tableScript[V, I]{s})
	case function.Aggregate:
		def.Eval = NotScalar(s.Spec)
		Register(def, &aggScript[V, I]{s})
	default:
		return nil, fmt.Errorf("not supported yet: %s function kind %d", s.Lang.Name, s.Spec.Kind)
	}
	return def, nil
}

// Error returns a udf.Error of s with message msg.
func (s *Script[V, I]) Error(msg string) *Error {
	return &Error{Lang: s.Lang.Name, Func: s.Spec.Name, Source: s.Source, Msg: msg}
}

// resultError reports a result that does not fit the declared type.
func (s *Script[V, I]) resultError(err error, args []any) error {
	e := s.Error(err.Error())
	e.Input = FormatInput(args, s.Params)
	return e
}

// Close releases the idle interpreters (Release calls it).
func (s *Script[V, I]) Close() { s.Pool.Clear() }

// borrow takes an interpreter from the pool for a call made in ctx: its
// watch stops the call when ctx's statement is cancelled.
func (s *Script[V, I]) borrow(ctx *function.EvalContext) (I, error) {
	it, err := s.Pool.Get()
	if err != nil {
		return it, err
	}
	var done <-chan struct{}
	if ctx != nil {
		done = ctx.Done
	}
	it.Watch().SetDone(done)
	return it, nil
}

// EvalContext returns ctx, or a UTC context when ctx is nil.
func EvalContext(ctx *function.EvalContext) *function.EvalContext {
	if ctx == nil {
		return &function.EvalContext{Loc: time.UTC}
	}
	return ctx
}

// Location returns the session time zone of ctx (UTC when unset).
func Location(ctx *function.EvalContext) *time.Location {
	if ctx == nil || ctx.Loc == nil {
		return time.UTC
	}
	return ctx.Loc
}

// args converts a row of canonical Go values into it's argument buffer.
func (s *Script[V, I]) args(it I, row []any, loc *time.Location) ([]V, error) {
	b := it.Buffers()
	if cap(b.Args) < len(row) {
		b.Args = make([]V, len(row))
	}
	out := b.Args[:len(row)]
	for i, a := range row {
		v, err := it.ToScript(a, s.Params[i], loc)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// result converts a scalar result to the canonical Go value of the
// declared type.
func (s *Script[V, I]) result(it I, ctx *function.EvalContext, res V, args func() []any) (any, error) {
	if v, ok := fastResult(it, res, s.Spec.Returns.Kind); ok {
		return v, nil
	}
	v, err := Coerce(ctx, s.Lang, it.FromScript(res), s.Spec.Returns)
	if err != nil {
		return nil, s.resultError(err, args())
	}
	return v, nil
}

// eval is the scalar Definition.Eval.
func (s *Script[V, I]) eval(ctx *function.EvalContext, _ function.CallTypes, args []any) (any, error) {
	it, err := s.borrow(ctx)
	if err != nil {
		return nil, err
	}
	v, err := s.evalIn(it, ctx, args)
	s.Pool.Put(it)
	return v, err
}

func (s *Script[V, I]) evalIn(it I, ctx *function.EvalContext, args []any) (any, error) {
	if ctx == nil {
		ctx = EvalContext(nil)
	}
	vals, err := s.args(it, args, Location(ctx))
	if err != nil {
		return nil, err
	}
	res, err := it.Call(vals)
	clear(vals)
	if err != nil {
		return nil, it.CallError(err, args, "")
	}
	return s.result(it, ctx, res, func() []any { return args })
}

// columns converts the argument columns of a chunk of n rows into it's
// column buffers; release drops their references afterwards.
func (s *Script[V, I]) columns(it I, args []ArrowArg, n int, loc *time.Location) (cols [][]V, release func(), err error) {
	b := it.Buffers()
	if cap(b.Cols) < len(args) {
		b.Cols = make([][]V, len(args))
	}
	cols = b.Cols[:len(args)]
	for i, a := range args {
		if cols[i], err = column(it, cols[i], a, s.Params[i], n, loc); err != nil {
			return nil, nil, err
		}
	}
	return cols, func() {
		for i := range cols {
			clear(cols[i][:n])
		}
	}, nil
}

// ---- scalar functions ----

// scalarScript implements BatchFunc and ArrowFunc.
type scalarScript[V any, I Interp[V]] struct{ s *Script[V, I] }

// Close releases the idle interpreters.
func (f *scalarScript[V, I]) Close() { f.s.Close() }

// CallBatch implements BatchFunc: the rows run in one borrowed
// interpreter, called from Go row by row (the per-row script call
// dominates; passing whole columns to a script-side loop measured slower).
func (f *scalarScript[V, I]) CallBatch(ctx *function.EvalContext, args [][]any, n int) ([]any, error) {
	s := f.s
	ctx = EvalContext(ctx)
	it, err := s.borrow(ctx)
	if err != nil {
		return nil, err
	}
	defer s.Pool.Put(it)
	out := make([]any, n)
	row := make([]any, len(args))
	for r := 0; r < n; r++ {
		for c := range args {
			row[c] = args[c][r]
		}
		if out[r], err = s.evalIn(it, ctx, row); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// CallArrow implements ArrowFunc: each argument column is converted with
// a loop typed by its Arrow type (Interp.Column), the rows are called in
// one borrowed interpreter inside one Chunk, and each result is appended
// to out by an appender chosen once for the result type.
func (f *scalarScript[V, I]) CallArrow(ctx *function.EvalContext, args []ArrowArg, n int, nullOnNull bool, out array.Builder) error {
	s := f.s
	ctx = EvalContext(ctx)
	skip, done, err := PrepareArrowCall(s.Lang.Name, s.Spec.Name, args, len(s.Params), n, nullOnNull, out)
	if err != nil || done {
		return err
	}
	it, err := s.borrow(ctx)
	if err != nil {
		return err
	}
	defer s.Pool.Put(it)
	cols, release, err := s.columns(it, args, n, Location(ctx))
	if err != nil {
		return err
	}
	defer release()
	b := it.Buffers()
	if cap(b.Args) < len(args) {
		b.Args = make([]V, len(args))
	}
	vals := b.Args[:len(args)]
	defer clear(vals)
	ret := s.Spec.Returns
	app := appender(it, out, ret.Kind)
	return it.Chunk(func() error {
		for r := 0; r < n; r++ {
			if skip != nil && skip[r] {
				out.AppendNull()
				continue
			}
			for i := range cols {
				vals[i] = cols[i][r]
			}
			res, err := it.ChunkCall(vals)
			if err != nil {
				return it.CallError(err, ArgRow(args, r, s.Params), "")
			}
			if app != nil && app(res) {
				continue
			}
			v, err := Coerce(ctx, s.Lang, it.FromScript(res), ret)
			if err == nil {
				err = types.AppendValue(out, v, ret)
			}
			if err != nil {
				return s.resultError(err, ArgRow(args, r, s.Params))
			}
		}
		return nil
	})
}

// ---- table functions ----

// tableScript implements TableFunc and TableChunkFunc.
type tableScript[V any, I Interp[V]] struct{ s *Script[V, I] }

// Close releases the idle interpreters.
func (f *tableScript[V, I]) Close() { f.s.Close() }

// Rows implements TableFunc.
func (f *tableScript[V, I]) Rows(ctx *function.EvalContext, args []any, emit func(row []any) error) error {
	s := f.s
	ctx = EvalContext(ctx)
	it, err := s.borrow(ctx)
	if err != nil {
		return err
	}
	defer s.Pool.Put(it)
	vals := make([]V, len(args))
	for i, a := range args {
		if vals[i], err = it.ToScript(a, s.Params[i], Location(ctx)); err != nil {
			return err
		}
	}
	res, err := it.Call(vals)
	if err != nil {
		return it.CallError(err, args, "")
	}
	return s.iterRows(it, ctx, res, func() []any { return args }, emit)
}

// iterRows emits the rows a table function call produced; argRow gives
// the call's arguments for error messages.
func (s *Script[V, I]) iterRows(it I, ctx *function.EvalContext, res V, argRow func() []any, emit func(row []any) error) error {
	return it.Iterate(res, argRow, func(item V) error {
		row, err := it.TableRow(ctx, item, s.Spec.Returns)
		if err != nil {
			return s.resultError(err, argRow())
		}
		return emit(row)
	})
}

// RowsArrow implements TableChunkFunc: one interpreter borrow and one
// conversion of the argument columns per chunk, then one call (and the
// stepping of its result) per input row, all inside one Chunk.
func (f *tableScript[V, I]) RowsArrow(ctx *function.EvalContext, args []ArrowArg, n int, emit func(r int, row []any) error) error {
	s := f.s
	ctx = EvalContext(ctx)
	if len(args) != len(s.Params) {
		return fmt.Errorf("internal: %s function '%s' called with %d arguments, want %d", s.Lang.Name, s.Spec.Name, len(args), len(s.Params))
	}
	it, err := s.borrow(ctx)
	if err != nil {
		return err
	}
	defer s.Pool.Put(it)
	cols, release, err := s.columns(it, args, n, Location(ctx))
	if err != nil {
		return err
	}
	defer release()
	vals := make([]V, len(args))
	return it.Chunk(func() error {
		for r := 0; r < n; r++ {
			if s.KeepsArgs && r > 0 {
				vals = make([]V, len(args))
			}
			for i := range cols {
				vals[i] = cols[i][r]
			}
			argRow := func() []any { return ArgRow(args, r, s.Params) }
			res, err := it.ChunkCall(vals)
			if err != nil {
				return it.CallError(err, argRow(), "")
			}
			if err := s.iterRows(it, ctx, res, argRow, func(row []any) error { return emit(r, row) }); err != nil {
				return err
			}
		}
		return nil
	})
}

// ---- aggregate functions ----

// aggScript implements AggregateFunc.
type aggScript[V any, I Interp[V]] struct{ s *Script[V, I] }

var _ AggregateFunc = (*aggScript[any, Interp[any]])(nil)

// Close releases the idle interpreters.
func (a *aggScript[V, I]) Close() { a.s.Close() }

// CanRetract implements AggregateFunc.
func (a *aggScript[V, I]) CanRetract() bool { return a.s.CanRetract }

// CanMerge implements AggregateFunc.
func (a *aggScript[V, I]) CanMerge() bool { return a.s.CanMerge }

// ResultType implements AggregateFunc.
func (a *aggScript[V, I]) ResultType() types.Type { return a.s.Spec.Returns }

// NewInstance implements AggregateFunc: the instance keeps one borrowed
// interpreter and the class's object in it until Close.
func (a *aggScript[V, I]) NewInstance(ctx *function.EvalContext) (AggInstance, error) {
	s := a.s
	it, err := s.borrow(ctx)
	if err != nil {
		return nil, err
	}
	obj, err := it.NewAggregate()
	if err != nil {
		s.Pool.Put(it)
		return nil, it.CallError(err, nil, "creating the aggregate object")
	}
	return &aggInstance[V, I]{s: s, it: it, obj: obj, ctx: EvalContext(ctx)}, nil
}

type aggInstance[V any, I Interp[V]] struct {
	s      *Script[V, I]
	it     I
	closed bool
	obj    AggObject[V]
	ctx    *function.EvalContext
}

// scriptAcc holds an accumulator; a method that returns a value (not
// None or undefined) replaces it, so immutable accumulators work too.
type scriptAcc[V any] struct{ v V }

func (in *aggInstance[V, I]) accOf(acc Acc) (*scriptAcc[V], error) {
	sa, ok := acc.(*scriptAcc[V])
	if !ok {
		return nil, fmt.Errorf("%s: internal: foreign accumulator %T", in.s.Lang.Name, acc)
	}
	return sa, nil
}

func (in *aggInstance[V, I]) CreateAccumulator() (Acc, error) {
	v, _, err := in.obj.Call(CreateAccumulator, nil)
	if err != nil {
		return nil, in.it.CallError(err, nil, in.s.Methods[CreateAccumulator])
	}
	return &scriptAcc[V]{v: v}, nil
}

func (in *aggInstance[V, I]) update(m AggMethod, acc Acc, args []any) error {
	s := in.s
	sa, err := in.accOf(acc)
	if err != nil {
		return err
	}
	vals := make([]V, len(args)+1)
	vals[0] = sa.v
	loc := Location(in.ctx)
	for i, a := range args {
		if vals[i+1], err = in.it.ToScript(a, s.Params[i], loc); err != nil {
			return err
		}
	}
	res, keep, err := in.obj.Call(m, vals)
	if err != nil {
		return in.it.CallError(err, args, s.Methods[m])
	}
	if keep {
		sa.v = res
	}
	return nil
}

func (in *aggInstance[V, I]) Accumulate(acc Acc, args []any) error {
	return in.update(Accumulate, acc, args)
}

func (in *aggInstance[V, I]) Retract(acc Acc, args []any) error {
	if !in.obj.Has(Retract) {
		return fmt.Errorf("not supported yet: retraction by %s aggregate function '%s' (its class defines no %s method)", in.s.Lang.Name, in.s.Spec.Name, in.s.Methods[Retract])
	}
	return in.update(Retract, acc, args)
}

func (in *aggInstance[V, I]) Merge(acc, other Acc) error {
	s := in.s
	if !in.obj.Has(Merge) {
		return fmt.Errorf("not supported yet: merging accumulators of %s aggregate function '%s' (its class defines no %s method)", s.Lang.Name, s.Spec.Name, s.Methods[Merge])
	}
	sa, err := in.accOf(acc)
	if err != nil {
		return err
	}
	so, err := in.accOf(other)
	if err != nil {
		return err
	}
	res, keep, err := in.obj.Call(Merge, []V{sa.v, so.v})
	if err != nil {
		return in.it.CallError(err, nil, s.Methods[Merge])
	}
	if keep {
		sa.v = res
	}
	return nil
}

func (in *aggInstance[V, I]) GetValue(acc Acc) (any, error) {
	s := in.s
	sa, err := in.accOf(acc)
	if err != nil {
		return nil, err
	}
	res, _, err := in.obj.Call(GetValue, []V{sa.v})
	if err != nil {
		return nil, in.it.CallError(err, nil, s.Methods[GetValue])
	}
	v, err := Coerce(in.ctx, s.Lang, in.it.FromScript(res), s.Spec.Returns)
	if err != nil {
		return nil, s.Error(s.Methods[GetValue] + " " + err.Error())
	}
	return v, nil
}

func (in *aggInstance[V, I]) Export(acc Acc) (any, error) {
	sa, err := in.accOf(acc)
	if err != nil {
		return nil, err
	}
	return in.it.Export(sa.v), nil
}

func (in *aggInstance[V, I]) Import(v any) (Acc, error) {
	sv, err := in.it.Import(v)
	if err != nil {
		return nil, fmt.Errorf("%s: importing an accumulator: %w", in.s.Lang.Name, err)
	}
	return &scriptAcc[V]{v: sv}, nil
}

func (in *aggInstance[V, I]) Close() {
	if !in.closed {
		in.closed = true
		in.s.Pool.Put(in.it)
	}
}
