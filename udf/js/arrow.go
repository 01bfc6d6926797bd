package js

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/dop251/goja"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
)

var _ udf.ArrowFunc = (*program)(nil)

// CallArrow implements udf.ArrowFunc: each argument column is converted to
// JavaScript values with a loop typed by its Arrow type, the rows are
// called in one borrowed runtime, and each result is appended to out by an
// appender chosen once for the result type.
func (p *program) CallArrow(ctx *function.EvalContext, args []udf.ArrowArg, n int, nullOnNull bool, out array.Builder) error {
	ctx = evalCtx(ctx)
	skip, done, err := udf.PrepareArrowCall("JavaScript", p.spec.Name, args, len(p.params), n, nullOnNull, out)
	if err != nil || done {
		return err
	}
	it, err := p.pool.Get()
	if err != nil {
		return err
	}
	defer p.pool.Put(it)
	loc := locOf(ctx)
	if cap(it.cols) < len(args) {
		it.cols = make([][]goja.Value, len(args))
	}
	cols := it.cols[:len(args)]
	for i, a := range args {
		if cols[i], err = it.jsColumn(cols[i], a, p.params[i], n, loc); err != nil {
			return err
		}
	}
	defer func() {
		for i := range cols {
			clear(cols[i][:n])
		}
	}()
	if cap(it.argBuf) < len(args) {
		it.argBuf = make([]goja.Value, len(args))
	}
	jsArgs := it.argBuf[:len(args)]
	defer clear(jsArgs)
	ret := p.spec.Returns
	app := jsAppender(out, ret.Kind)
	undef := goja.Undefined()
	rows := func() error {
		for r := 0; r < n; r++ {
			if skip != nil && skip[r] {
				out.AppendNull()
				continue
			}
			for i := range cols {
				jsArgs[i] = cols[i][r]
			}
			res, err := it.call(it.fn, undef, jsArgs...)
			if err != nil {
				return p.callError(err, it, udf.ArgRow(args, r, p.params), "")
			}
			if app != nil && app(res) {
				continue
			}
			v, err := udf.Coerce(ctx, lang, fromJS(res), ret)
			if err == nil {
				err = types.AppendValue(out, v, ret)
			}
			if err != nil {
				return p.resultError(err, udf.ArgRow(args, r, p.params))
			}
		}
		return nil
	}
	return p.nested(it, rows)
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

// jsColumn fills dst (grown to n) with the JavaScript values of argument a
// of type t: typed loops for the Arrow types of BOOLEAN, TINYINT…BIGINT,
// FLOAT, DOUBLE and CHAR/VARCHAR, the canonical Go value path for the
// others.
func (it *interp) jsColumn(dst []goja.Value, a udf.ArrowArg, t types.Type, n int, loc *time.Location) ([]goja.Value, error) {
	if cap(dst) < n {
		dst = make([]goja.Value, n)
	}
	dst = dst[:n]
	if a.Array == nil {
		v, err := it.toJS(a.Value, t, loc)
		if err != nil {
			return nil, err
		}
		for r := range dst {
			dst[r] = v
		}
		return dst, nil
	}
	arr := a.Array
	if arr.Len() < n {
		return nil, fmt.Errorf("internal: argument column of %d rows for %d", arr.Len(), n)
	}
	rt := it.rt
	nulls := arr.NullN() > 0
	switch x := arr.(type) {
	case *array.Int64:
		for r, v := range x.Int64Values()[:n] {
			dst[r] = rt.ToValue(v)
		}
	case *array.Int32:
		for r, v := range x.Int32Values()[:n] {
			dst[r] = rt.ToValue(int64(v))
		}
	case *array.Int16:
		for r, v := range x.Int16Values()[:n] {
			dst[r] = rt.ToValue(int64(v))
		}
	case *array.Int8:
		for r, v := range x.Int8Values()[:n] {
			dst[r] = rt.ToValue(int64(v))
		}
	case *array.Float64:
		for r, v := range x.Float64Values()[:n] {
			dst[r] = rt.ToValue(v)
		}
	case *array.Float32:
		for r, v := range x.Float32Values()[:n] {
			dst[r] = rt.ToValue(float64(v))
		}
	case *array.Boolean:
		for r := range dst {
			dst[r] = rt.ToValue(x.Value(r))
		}
	case *array.String:
		s, offs, base := udf.StringChunk(x)
		for r := range dst {
			dst[r] = rt.ToValue(s[offs[r]-base : offs[r+1]-base])
		}
	default:
		for r := range dst {
			if nulls && arr.IsNull(r) {
				dst[r] = goja.Null()
				continue
			}
			v, err := it.toJS(types.GetValue(arr, r, t), t, loc)
			if err != nil {
				return nil, err
			}
			dst[r] = v
		}
		return dst, nil
	}
	if nulls {
		null := goja.Null()
		for r := range dst {
			if arr.IsNull(r) {
				dst[r] = null
			}
		}
	}
	return dst, nil
}

// jsAppender returns a function appending a JavaScript result of the
// common primitive types directly to out; it reports false when the
// generic conversion must decide (objects, null, non-integral numbers for
// integer results, …). nil when the result type has no direct path.
func jsAppender(out array.Builder, k types.Kind) func(goja.Value) bool {
	prim := func(v goja.Value) bool {
		if v == nil {
			return false
		}
		_, isObj := v.(*goja.Object)
		return !isObj
	}
	switch k {
	case types.BigInt:
		b, ok := out.(*array.Int64Builder)
		if !ok {
			return nil
		}
		return func(v goja.Value) bool {
			if prim(v) && v.ExportType() == int64Type {
				b.Append(v.ToInteger())
				return true
			}
			return false
		}
	case types.Int:
		b, ok := out.(*array.Int32Builder)
		if !ok {
			return nil
		}
		return func(v goja.Value) bool {
			if prim(v) && v.ExportType() == int64Type {
				if i := v.ToInteger(); i >= -1<<31 && i < 1<<31 {
					b.Append(int32(i))
					return true
				}
			}
			return false
		}
	case types.Double:
		b, ok := out.(*array.Float64Builder)
		if !ok {
			return nil
		}
		return func(v goja.Value) bool {
			if prim(v) {
				if et := v.ExportType(); et == float64Type || et == int64Type {
					b.Append(v.ToFloat())
					return true
				}
			}
			return false
		}
	case types.Char, types.VarChar:
		b, ok := out.(*array.StringBuilder)
		if !ok {
			return nil
		}
		return func(v goja.Value) bool {
			if prim(v) && v.ExportType() == stringType {
				b.Append(v.String())
				return true
			}
			return false
		}
	case types.Boolean:
		b, ok := out.(*array.BooleanBuilder)
		if !ok {
			return nil
		}
		return func(v goja.Value) bool {
			if prim(v) && v.ExportType() == boolType {
				b.Append(v.ToBoolean())
				return true
			}
			return false
		}
	}
	return nil
}

var _ udf.TableChunkFunc = (*tableFunc)(nil)

// RowsArrow implements udf.TableChunkFunc: the argument columns are
// converted once, and the chunk's calls and generator steps run as nested
// calls inside one driver call (see driverSrc).
func (t *tableFunc) RowsArrow(ctx *function.EvalContext, args []udf.ArrowArg, n int, emit func(r int, row []any) error) error {
	ctx = evalCtx(ctx)
	p := t.p
	if len(args) != len(p.params) {
		return fmt.Errorf("internal: JavaScript function '%s' called with %d arguments, want %d", p.spec.Name, len(args), len(p.params))
	}
	it, err := p.pool.Get()
	if err != nil {
		return err
	}
	defer p.pool.Put(it)
	loc := locOf(ctx)
	if cap(it.cols) < len(args) {
		it.cols = make([][]goja.Value, len(args))
	}
	cols := it.cols[:len(args)]
	for i, a := range args {
		if cols[i], err = it.jsColumn(cols[i], a, p.params[i], n, loc); err != nil {
			return err
		}
	}
	defer func() {
		for i := range cols {
			clear(cols[i][:n])
		}
	}()
	jsArgs := make([]goja.Value, len(args))
	undef := goja.Undefined()
	return p.nested(it, func() error {
		for r := 0; r < n; r++ {
			for i := range cols {
				jsArgs[i] = cols[i][r]
			}
			argRow := func() []any { return udf.ArgRow(args, r, p.params) }
			res, err := it.call(it.fn, undef, jsArgs...)
			if err != nil {
				return p.callError(err, it, argRow(), "")
			}
			if err := p.iterRows(it, ctx, res, argRow, func(row []any) error { return emit(r, row) }); err != nil {
				return err
			}
		}
		return nil
	})
}
