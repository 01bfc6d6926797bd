package python

import (
	"fmt"
	"time"

	"github.com/go-python/gpython/py"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
)

// The Python side of the shared script driver (udf/script.go): value
// conversion, calls and error mapping of one interpreter.

var _ udf.Interp[py.Object] = (*interp)(nil)

// Buffers implements udf.Interp.
func (it *interp) Buffers() *udf.CallBuffers[py.Object] { return &it.bufs }

// ToScript implements udf.Interp.
func (it *interp) ToScript(v any, t types.Type, loc *time.Location) (py.Object, error) {
	return toPy(v, t, loc)
}

// FromScript implements udf.Interp.
func (it *interp) FromScript(o py.Object) any { return fromPy(o) }

// The primitive conversions (udf.Primitives).

func (it *interp) FromInt(v int64) py.Object     { return py.Int(v) }
func (it *interp) FromFloat(v float64) py.Object { return py.Float(v) }
func (it *interp) FromBool(v bool) py.Object     { return py.Bool(v) }
func (it *interp) FromString(s string) py.Object { return py.String(s) }
func (it *interp) Null() py.Object               { return py.None }

func (it *interp) Int(o py.Object) (int64, bool) {
	x, ok := o.(py.Int)
	return int64(x), ok
}

func (it *interp) Float(o py.Object) (float64, bool) {
	switch x := o.(type) {
	case py.Float:
		return float64(x), true
	case py.Int:
		return float64(x), true
	}
	return 0, false
}

func (it *interp) String(o py.Object) (string, bool) {
	x, ok := o.(py.String)
	return string(x), ok
}

func (it *interp) Bool(o py.Object) (bool, bool) {
	x, ok := o.(py.Bool)
	return bool(x), ok
}

// Call implements udf.Interp. gpython copies a plain function's arguments
// into its frame, so the driver may reuse args after the call.
func (it *interp) Call(args []py.Object) (py.Object, error) { return it.call(it.entry, py.Tuple(args)) }

// Chunk implements udf.Interp: one watch and one panic guard for the
// chunk (run).
func (it *interp) Chunk(calls func() error) error { return it.run(calls) }

// ChunkCall implements udf.Interp.
func (it *interp) ChunkCall(args []py.Object) (py.Object, error) {
	return it.callInRun(it.entry, py.Tuple(args))
}

// Iterate implements udf.Interp: a table function returns a generator or
// any iterable; None produces no rows.
func (it *interp) Iterate(res py.Object, argRow func() []any, yield func(py.Object) error) error {
	if res == py.None {
		return nil
	}
	iter, err := py.Iter(res)
	if err != nil {
		return it.p.resultError(fmt.Errorf("returned %s, not a generator or iterable", res.Type().Name), argRow())
	}
	for {
		item, err := it.next(iter)
		if err != nil {
			if py.IsException(py.StopIteration, err) {
				return nil
			}
			return it.p.callError(err, it, argRow(), "")
		}
		if err := yield(item); err != nil {
			return err
		}
	}
}

// TableRow implements udf.Interp: a one-column function may yield the
// bare value or a 1-tuple; others a tuple, a list or a dict by name.
func (it *interp) TableRow(ctx *function.EvalContext, item py.Object, returns types.Type) ([]any, error) {
	fields := returns.Fields
	if len(fields) == 1 {
		v := item
		if tu, ok := item.(py.Tuple); ok && len(tu) == 1 {
			v = tu[0]
		}
		c, err := udf.Coerce(ctx, lang, fromPy(v), fields[0].Type)
		if err != nil {
			return nil, fmt.Errorf("column '%s': %w", fields[0].Name, err)
		}
		return []any{c}, nil
	}
	c, err := udf.Coerce(ctx, lang, fromPy(item), returns.WithNullable(false))
	if err != nil {
		return nil, err
	}
	return c.([]any), nil
}

// pyAggregate is an object of an aggregate class with its bound methods.
type pyAggregate struct {
	it      *interp
	methods [5]py.Object // by udf.AggMethod; nil when the class lacks one
}

// NewAggregate implements udf.Interp.
func (it *interp) NewAggregate() (udf.AggObject[py.Object], error) {
	obj, err := it.call(it.entry, nil)
	if err != nil {
		return nil, err
	}
	a := &pyAggregate{it: it}
	for m, name := range []string{"create_accumulator", "accumulate", "retract", "merge", "get_value"} {
		if f, err := py.GetAttrString(obj, name); err == nil {
			a.methods[m] = f
		}
	}
	return a, nil
}

// Has implements udf.AggObject.
func (a *pyAggregate) Has(m udf.AggMethod) bool { return a.methods[m] != nil }

// Call implements udf.AggObject: merge takes the other accumulators as a
// list (PyFlink's merge(acc, accumulators)).
func (a *pyAggregate) Call(m udf.AggMethod, args []py.Object) (py.Object, bool, error) {
	tup := py.Tuple(args)
	if m == udf.Merge {
		tup = py.Tuple{args[0], py.NewListFromItems(args[1:])}
	}
	res, err := a.it.call(a.methods[m], tup)
	if err != nil {
		return nil, false, err
	}
	return res, res != py.None, nil
}

// Export implements udf.Interp: plain values as themselves, other objects
// (class instances) opaque, usable within the process only.
func (it *interp) Export(o py.Object) any {
	v := fromPy(o)
	if isPlain(v) {
		return v
	}
	return opaque{obj: o}
}

// Import implements udf.Interp.
func (it *interp) Import(v any) (py.Object, error) { return plainToPy(v) }

// CallError implements udf.Interp.
func (it *interp) CallError(err error, args []any, when string) error {
	return it.p.callError(err, it, args, when)
}

// run runs a chunk's calls (made with callInRun) under one watch and one
// panic guard.
func (it *interp) run(calls func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error in the Python interpreter: %v", r)
		}
	}()
	it.watch.Begin()
	defer it.watch.End()
	return calls()
}

// callInRun calls fn inside run: the per-call timeout restarts with a
// Touch of the watch.
func (it *interp) callInRun(fn py.Object, args py.Tuple) (py.Object, error) {
	it.watch.Touch()
	res, err := py.Call(fn, args, nil)
	if err == nil && it.watch.Fired() {
		err = watchError(it.watch)
	}
	return res, err
}

// Watch implements udf.Interp.
func (it *interp) Watch() *udf.Watch { return it.watch }
