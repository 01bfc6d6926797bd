package js

import (
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/dop251/goja"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
)

// The JavaScript side of the shared script driver (udf/script.go): value
// conversion, calls and error mapping of one runtime.

var _ udf.Interp[goja.Value] = (*interp)(nil)

// Buffers implements udf.Interp.
func (it *interp) Buffers() *udf.CallBuffers[goja.Value] { return &it.bufs }

// ToScript implements udf.Interp.
func (it *interp) ToScript(v any, t types.Type, loc *time.Location) (goja.Value, error) {
	return it.toJS(v, t, loc)
}

// FromScript implements udf.Interp.
func (it *interp) FromScript(v goja.Value) any { return fromJS(v) }

// The primitive conversions (udf.Primitives). Numbers are doubles in
// JavaScript; goja keeps integral ones as int64 values.

func (it *interp) FromInt(v int64) goja.Value     { return it.rt.ToValue(v) }
func (it *interp) FromFloat(v float64) goja.Value { return it.rt.ToValue(v) }
func (it *interp) FromBool(v bool) goja.Value     { return it.rt.ToValue(v) }
func (it *interp) FromString(s string) goja.Value { return it.rt.ToValue(s) }
func (it *interp) Null() goja.Value               { return goja.Null() }

// primType returns the Go type a primitive value exports as; nil for
// objects and missing values.
func primType(v goja.Value) reflect.Type {
	if v == nil {
		return nil
	}
	if _, isObj := v.(*goja.Object); isObj {
		return nil
	}
	return v.ExportType()
}

func (it *interp) Int(v goja.Value) (int64, bool) {
	if primType(v) == int64Type {
		return v.ToInteger(), true
	}
	return 0, false
}

func (it *interp) Float(v goja.Value) (float64, bool) {
	if et := primType(v); et == float64Type || et == int64Type {
		return v.ToFloat(), true
	}
	return 0, false
}

func (it *interp) String(v goja.Value) (string, bool) {
	if primType(v) == stringType {
		return v.String(), true
	}
	return "", false
}

func (it *interp) Bool(v goja.Value) (bool, bool) {
	if primType(v) == boolType {
		return v.ToBoolean(), true
	}
	return false, false
}

// Call implements udf.Interp: goja copies the arguments, so the driver
// may reuse args after the call.
func (it *interp) Call(args []goja.Value) (goja.Value, error) {
	return it.call(it.fn, goja.Undefined(), args...)
}

// Chunk implements udf.Interp: the chunk's calls run nested inside one
// call of the driver function (arrow.go), which keeps goja's value stack.
func (it *interp) Chunk(calls func() error) error { return it.p.nested(it, calls) }

// ChunkCall implements udf.Interp.
func (it *interp) ChunkCall(args []goja.Value) (goja.Value, error) {
	return it.call(it.fn, goja.Undefined(), args...)
}

// Iterate implements udf.Interp: a table function returns a generator
// (any iterator) or an array; null and undefined produce no rows.
func (it *interp) Iterate(res goja.Value, argRow func() []any, yield func(goja.Value) error) error {
	p := it.p
	if res == nil || goja.IsUndefined(res) || goja.IsNull(res) {
		return nil
	}
	obj, ok := res.(*goja.Object)
	if !ok {
		return p.resultError(fmt.Errorf("returned %s, not a generator or array", typeOf(res)), argRow())
	}
	if obj.ClassName() == "Array" {
		n := int(obj.Get("length").ToInteger())
		for i := 0; i < n; i++ {
			if err := yield(obj.Get(strconv.Itoa(i))); err != nil {
				return err
			}
		}
		return nil
	}
	next, ok := goja.AssertFunction(obj.Get("next"))
	if !ok {
		return p.resultError(fmt.Errorf("returned %s, not a generator or array", typeOf(res)), argRow())
	}
	for {
		r, err := it.call(next, obj)
		if err != nil {
			return p.callError(err, it, argRow(), "")
		}
		ro, ok := r.(*goja.Object)
		if !ok {
			return p.resultError(fmt.Errorf("iterator returned %s", typeOf(r)), argRow())
		}
		if ro.Get("done").ToBoolean() {
			return nil
		}
		if err := yield(ro.Get("value")); err != nil {
			return err
		}
	}
}

// TableRow implements udf.Interp: a one-column function may yield the
// bare value, a one-element array or an object keyed by the column name;
// others an object keyed by field name or an array by position.
func (it *interp) TableRow(ctx *function.EvalContext, item goja.Value, returns types.Type) ([]any, error) {
	fields := returns.Fields
	v := fromJS(item)
	if len(fields) == 1 {
		if a, ok := v.([]any); ok && len(a) == 1 && fields[0].Type.Kind != types.Array && fields[0].Type.Kind != types.Row {
			v = a[0]
		}
		if m, ok := v.(*udf.Map); ok && fields[0].Type.Kind != types.Map && fields[0].Type.Kind != types.Row {
			c, err := udf.Coerce(ctx, lang, m, returns.WithNullable(false))
			if err != nil {
				return nil, err
			}
			return c.([]any), nil
		}
		c, err := udf.Coerce(ctx, lang, v, fields[0].Type)
		if err != nil {
			return nil, fmt.Errorf("column '%s': %w", fields[0].Name, err)
		}
		return []any{c}, nil
	}
	c, err := udf.Coerce(ctx, lang, v, returns.WithNullable(false))
	if err != nil {
		return nil, err
	}
	return c.([]any), nil
}

// jsAggregate is an object of an aggregate class with its methods.
type jsAggregate struct {
	it      *interp
	obj     *goja.Object
	methods [5]goja.Callable // by udf.AggMethod; nil when the class lacks one
}

// NewAggregate implements udf.Interp.
func (it *interp) NewAggregate() (udf.AggObject[goja.Value], error) {
	var obj *goja.Object
	_, err := it.run(func() (goja.Value, error) {
		o, err := it.rt.New(it.entry)
		obj = o
		return o, err
	})
	if err != nil {
		return nil, err
	}
	a := &jsAggregate{it: it, obj: obj}
	for m, name := range []string{"createAccumulator", "accumulate", "retract", "merge", "getValue"} {
		a.methods[m], _ = goja.AssertFunction(obj.Get(name))
	}
	return a, nil
}

// Has implements udf.AggObject.
func (a *jsAggregate) Has(m udf.AggMethod) bool { return a.methods[m] != nil }

// Call implements udf.AggObject: the methods run with this = the object;
// a result other than undefined replaces the accumulator.
func (a *jsAggregate) Call(m udf.AggMethod, args []goja.Value) (goja.Value, bool, error) {
	res, err := a.it.call(a.methods[m], a.obj, args...)
	if err != nil {
		return nil, false, err
	}
	return res, res != nil && !goja.IsUndefined(res), nil
}

// Export implements udf.Interp.
func (it *interp) Export(v goja.Value) any { return fromJS(v) }

// Import implements udf.Interp.
func (it *interp) Import(v any) (goja.Value, error) { return it.plainToJS(v) }

// CallError implements udf.Interp.
func (it *interp) CallError(err error, args []any, when string) error {
	return it.p.callError(err, it, args, when)
}

// driverSrc calls its argument: nested runs a chunk's row loop (Go) inside
// it, so every row's call is a nested call. goja drops its value stack
// after each top-level call and allocates a new one for the next; a nested
// call reuses the stack of the running driver.
const driverSrc = "(function (g) { return g(); })"

var driverProg = goja.MustCompile("<tablerun driver>", driverSrc, false)

// nested runs loop inside the driver function (see driverSrc) and returns
// its error.
func (p *program) nested(it *interp, loop func() error) error {
	if it.driver == nil {
		v, err := it.rt.RunProgram(driverProg)
		if err != nil {
			return fmt.Errorf("js: internal: %w", err)
		}
		fn, ok := goja.AssertFunction(v)
		if !ok {
			return fmt.Errorf("js: internal: the driver is not a function")
		}
		it.driver = fn
	}
	var loopErr error
	g := it.rt.ToValue(func(goja.FunctionCall) goja.Value {
		loopErr = loop()
		return goja.Undefined()
	})
	if _, err := it.call(it.driver, goja.Undefined(), g); err != nil && loopErr == nil {
		return p.callError(err, it, nil, "")
	}
	return loopErr
}

// Watch implements udf.Interp.
func (it *interp) Watch() *udf.Watch { return it.watch }
