package udf

import (
	"fmt"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

// ArrowArg is one argument column of an ArrowFunc call: an Arrow array
// with a value per row or, when Array is nil, the constant Value (a
// canonical Go value, nil for NULL) in every row.
type ArrowArg struct {
	// Array holds the argument's values (nil for a constant).
	Array arrow.Array
	// Value is the constant argument when Array is nil.
	Value any
}

// ArrowFunc calls a scalar script function on a chunk of Arrow columns:
// the runtime converts the Arrow values straight into interpreter values
// (typed loops per Arrow type, buffers kept by the interpreter across
// chunks) and appends the returned values straight to an Arrow builder.
// Scalar definitions of the script runtimes implement it next to
// BatchFunc.
type ArrowFunc interface {
	// CallArrow calls the function for rows 0..n-1 of args and appends n
	// results to out, a builder of the Arrow type of the declared result.
	// With nullOnNull a row with a NULL argument is not called and gets
	// a NULL result.
	CallArrow(ctx *function.EvalContext, args []ArrowArg, n int, nullOnNull bool, out array.Builder) error
}

// ArrowImpl returns the Arrow-chunk implementation of a script scalar
// function.
func ArrowImpl(def *function.Definition) (ArrowFunc, bool) {
	a, ok := lookup(def).(ArrowFunc)
	return a, ok
}

// ArgRow returns row r of args as canonical Go values (for error messages
// and the generic conversion path).
func ArgRow(args []ArrowArg, r int, ts []types.Type) []any {
	row := make([]any, len(args))
	for i, a := range args {
		if a.Array == nil {
			row[i] = a.Value
			continue
		}
		if a.Array.IsNull(r) {
			continue
		}
		var t types.Type
		if i < len(ts) {
			t = ts[i]
		}
		row[i] = types.GetValue(a.Array, r, t)
	}
	return row
}

// NullRows returns, for a null-on-null call, which of the n rows have a
// NULL argument (and so are not called); nil when none has. all reports
// that every row has one (a NULL constant argument).
func NullRows(args []ArrowArg, n int) (skip []bool, all bool) {
	for _, a := range args {
		if a.Array == nil {
			if a.Value == nil {
				return nil, true
			}
			continue
		}
		if a.Array.NullN() == 0 {
			continue
		}
		if skip == nil {
			skip = make([]bool, n)
		}
		for r := 0; r < n; r++ {
			if a.Array.IsNull(r) {
				skip[r] = true
			}
		}
	}
	return skip, false
}

// StringChunk returns the bytes of a string array's values between its
// first and last offset as one Go string, with the array's offsets, so a
// runtime can hand out values as substrings: one copy per chunk instead of
// one per value, and the values stay valid after the array's buffers are
// recycled. Value r is s[offs[r]-base : offs[r+1]-base].
func StringChunk(a *array.String) (s string, offs []int32, base int32) {
	offs = a.ValueOffsets()
	if len(offs) == 0 {
		return "", offs, 0
	}
	base = offs[0]
	return string(a.ValueBytes()), offs, base
}

// TableChunkFunc produces the rows of a table function for a chunk of
// input rows with one interpreter borrow and one conversion of the
// argument columns per chunk (the function itself still runs once per
// input row: a generator per row is inherent). The table functions of the
// script runtimes implement it next to TableFunc.
type TableChunkFunc interface {
	// RowsArrow calls the function for input rows 0..n-1 of args, in
	// order, and calls emit once per produced row with the input row's
	// index and the produced values (which follow the fields of
	// Spec.Returns; emit must copy row to keep it). An error from emit
	// stops the iteration and is returned.
	RowsArrow(ctx *function.EvalContext, args []ArrowArg, n int, emit func(r int, row []any) error) error
}

// PrepareArrowCall starts a chunk call of a script function (lang names
// the runtime in messages): it checks the arity and, for a NULL-on-NULL
// function, marks the rows with a NULL argument in skip; done is true when
// every row has one, and out then holds n NULLs.
func PrepareArrowCall(lang, name string, args []ArrowArg, params, n int, nullOnNull bool, out array.Builder) (skip []bool, done bool, err error) {
	if len(args) != params {
		return nil, false, fmt.Errorf("internal: %s function '%s' called with %d arguments, want %d", lang, name, len(args), params)
	}
	if !nullOnNull {
		return nil, false, nil
	}
	skip, all := NullRows(args, n)
	if all {
		out.AppendNulls(n)
		return nil, true, nil
	}
	return skip, false, nil
}
