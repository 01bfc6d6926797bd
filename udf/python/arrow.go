package python

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/go-python/gpython/py"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
)

// chunkBufs are the buffers of CallArrow, kept by an interpreter and
// reused across chunks: one column of Python values per argument and the
// argument tuple (gpython copies a plain function's arguments into the
// frame, so one tuple serves every row).
type chunkBufs struct {
	cols [][]py.Object
	tup  py.Tuple
}

// columns converts the argument columns of a chunk of n rows into the
// buffers' Python values (one column per argument, typed by params).
func (b *chunkBufs) columns(args []udf.ArrowArg, params []types.Type, n int, loc *time.Location) ([][]py.Object, error) {
	if cap(b.cols) < len(args) {
		b.cols = make([][]py.Object, len(args))
	}
	b.cols = b.cols[:len(args)]
	for i, a := range args {
		var err error
		if b.cols[i], err = pyColumn(b.cols[i], a, params[i], n, loc); err != nil {
			return nil, err
		}
	}
	return b.cols, nil
}

// clear drops the references of the last chunk's n values (so the
// interpreter's buffers do not keep them alive).
func (b *chunkBufs) clear(n int) {
	for i := range b.cols {
		clear(b.cols[i][:n])
	}
}

var _ udf.ArrowFunc = (*program)(nil)

// CallArrow implements udf.ArrowFunc: each argument column is converted to
// Python values with a loop typed by its Arrow type, the rows are called
// in one borrowed interpreter, and each result is appended to out by an
// appender chosen once for the result type.
func (p *program) CallArrow(ctx *function.EvalContext, args []udf.ArrowArg, n int, nullOnNull bool, out array.Builder) error {
	ctx = evalCtx(ctx)
	skip, done, err := udf.PrepareArrowCall("Python", p.spec.Name, args, len(p.params), n, nullOnNull, out)
	if err != nil || done {
		return err
	}
	it, err := p.pool.Get()
	if err != nil {
		return err
	}
	defer p.pool.Put(it)
	buf := &it.chunk
	loc := locOf(ctx)
	cols, err := buf.columns(args, p.params, n, loc)
	if err != nil {
		return err
	}
	defer buf.clear(n)
	if cap(buf.tup) < len(args) {
		buf.tup = make(py.Tuple, len(args))
	}
	tup := buf.tup[:len(args)]
	defer clear(tup)
	ret := p.spec.Returns
	app := pyAppender(out, ret.Kind)
	return it.run(func() error {
		for r := 0; r < n; r++ {
			if skip != nil && skip[r] {
				out.AppendNull()
				continue
			}
			for i := range cols {
				tup[i] = cols[i][r]
			}
			res, err := it.callInRun(it.entry, tup)
			if err != nil {
				return p.callError(err, it, udf.ArgRow(args, r, p.params), "")
			}
			if app != nil && app(res) {
				continue
			}
			v, err := udf.Coerce(ctx, lang, fromPy(res), ret)
			if err == nil {
				err = types.AppendValue(out, v, ret)
			}
			if err != nil {
				return p.resultError(err, udf.ArgRow(args, r, p.params))
			}
		}
		return nil
	})
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
		err = timeoutError(it.watch)
	}
	return res, err
}

// pyColumn fills dst (grown to n) with the Python values of argument a of
// type t: typed loops for the Arrow types of BOOLEAN, TINYINT…BIGINT,
// FLOAT, DOUBLE and CHAR/VARCHAR (each a distinct Arrow array type), the
// canonical Go value path for the others.
func pyColumn(dst []py.Object, a udf.ArrowArg, t types.Type, n int, loc *time.Location) ([]py.Object, error) {
	if cap(dst) < n {
		dst = make([]py.Object, n)
	}
	dst = dst[:n]
	if a.Array == nil {
		o, err := toPy(a.Value, t, loc)
		if err != nil {
			return nil, err
		}
		for r := range dst {
			dst[r] = o
		}
		return dst, nil
	}
	arr := a.Array
	if arr.Len() < n {
		return nil, fmt.Errorf("internal: argument column of %d rows for %d", arr.Len(), n)
	}
	nulls := arr.NullN() > 0
	switch x := arr.(type) {
	case *array.Int64:
		for r, v := range x.Int64Values()[:n] {
			dst[r] = py.Int(v)
		}
	case *array.Int32:
		for r, v := range x.Int32Values()[:n] {
			dst[r] = py.Int(v)
		}
	case *array.Int16:
		for r, v := range x.Int16Values()[:n] {
			dst[r] = py.Int(v)
		}
	case *array.Int8:
		for r, v := range x.Int8Values()[:n] {
			dst[r] = py.Int(v)
		}
	case *array.Float64:
		for r, v := range x.Float64Values()[:n] {
			dst[r] = py.Float(v)
		}
	case *array.Float32:
		for r, v := range x.Float32Values()[:n] {
			dst[r] = py.Float(v)
		}
	case *array.Boolean:
		for r := range dst {
			dst[r] = py.Bool(x.Value(r))
		}
	case *array.String:
		s, offs, base := udf.StringChunk(x)
		for r := range dst {
			dst[r] = py.String(s[offs[r]-base : offs[r+1]-base])
		}
	default:
		for r := range dst {
			if nulls && arr.IsNull(r) {
				dst[r] = py.None
				continue
			}
			o, err := toPy(types.GetValue(arr, r, t), t, loc)
			if err != nil {
				return nil, err
			}
			dst[r] = o
		}
		return dst, nil
	}
	if nulls {
		for r := range dst {
			if arr.IsNull(r) {
				dst[r] = py.None
			}
		}
	}
	return dst, nil
}

// pyAppender returns a function appending a Python result of the common
// primitive types directly to out; it reports false when the generic
// conversion must decide (other types, NULL, out-of-range values). nil
// when the result type has no direct path.
func pyAppender(out array.Builder, k types.Kind) func(py.Object) bool {
	switch k {
	case types.BigInt:
		b, ok := out.(*array.Int64Builder)
		if !ok {
			return nil
		}
		return func(o py.Object) bool {
			if x, ok := o.(py.Int); ok {
				b.Append(int64(x))
				return true
			}
			return false
		}
	case types.Int:
		b, ok := out.(*array.Int32Builder)
		if !ok {
			return nil
		}
		return func(o py.Object) bool {
			if x, ok := o.(py.Int); ok && x >= -1<<31 && x < 1<<31 {
				b.Append(int32(x))
				return true
			}
			return false
		}
	case types.Double:
		b, ok := out.(*array.Float64Builder)
		if !ok {
			return nil
		}
		return func(o py.Object) bool {
			switch x := o.(type) {
			case py.Float:
				b.Append(float64(x))
				return true
			case py.Int:
				b.Append(float64(x))
				return true
			}
			return false
		}
	case types.Char, types.VarChar:
		b, ok := out.(*array.StringBuilder)
		if !ok {
			return nil
		}
		return func(o py.Object) bool {
			if x, ok := o.(py.String); ok {
				b.Append(string(x))
				return true
			}
			return false
		}
	case types.Boolean:
		b, ok := out.(*array.BooleanBuilder)
		if !ok {
			return nil
		}
		return func(o py.Object) bool {
			if x, ok := o.(py.Bool); ok {
				b.Append(bool(x))
				return true
			}
			return false
		}
	}
	return nil
}

var _ udf.TableChunkFunc = (*tableFunc)(nil)

// RowsArrow implements udf.TableChunkFunc: one interpreter borrow and one
// conversion of the argument columns per chunk, then one call (and its
// generator) per input row.
func (t *tableFunc) RowsArrow(ctx *function.EvalContext, args []udf.ArrowArg, n int, emit func(r int, row []any) error) error {
	ctx = evalCtx(ctx)
	p := t.p
	if len(args) != len(p.params) {
		return fmt.Errorf("internal: Python function '%s' called with %d arguments, want %d", p.spec.Name, len(args), len(p.params))
	}
	it, err := p.pool.Get()
	if err != nil {
		return err
	}
	defer p.pool.Put(it)
	buf := &it.chunk
	loc := locOf(ctx)
	cols, err := buf.columns(args, p.params, n, loc)
	if err != nil {
		return err
	}
	defer buf.clear(n)
	for r := 0; r < n; r++ {
		// a generator keeps its argument tuple: a fresh one per row
		tup := make(py.Tuple, len(cols))
		for i := range cols {
			tup[i] = cols[i][r]
		}
		argRow := func() []any { return udf.ArgRow(args, r, p.params) }
		res, err := it.call(it.entry, tup)
		if err != nil {
			return p.callError(err, it, argRow(), "")
		}
		if err := p.iterRows(it, ctx, res, argRow, func(row []any) error { return emit(r, row) }); err != nil {
			return err
		}
	}
	return nil
}
