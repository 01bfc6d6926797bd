package udf

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/types"
)

// The typed loops of the script driver: Arrow argument columns to script
// values and common primitive results straight to canonical Go values or
// Arrow builders. A runtime supplies only the primitive conversions
// (Primitives); the loops are shared.

// Primitives are a runtime's conversions of the common primitive values,
// both ways. The FromX make script values; the others report whether a
// script value is of the primitive kind and return it (Float accepts
// integral numbers too).
type Primitives[V any] interface {
	FromInt(v int64) V
	FromFloat(v float64) V
	FromBool(v bool) V
	FromString(s string) V
	Null() V
	Int(v V) (int64, bool)
	Float(v V) (float64, bool)
	String(v V) (string, bool)
	Bool(v V) (bool, bool)
}

// column fills dst (grown to n) with the script values of argument a of
// type t: typed loops for the Arrow types of BOOLEAN, TINYINT…BIGINT,
// FLOAT, DOUBLE and CHAR/VARCHAR (each a distinct Arrow array type), the
// canonical Go value path (ToScript) for the others.
func column[V any, I Interp[V]](it I, dst []V, a ArrowArg, t types.Type, n int, loc *time.Location) ([]V, error) {
	if cap(dst) < n {
		dst = make([]V, n)
	}
	dst = dst[:n]
	if a.Array == nil {
		v, err := it.ToScript(a.Value, t, loc)
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
	nulls := arr.NullN() > 0
	switch x := arr.(type) {
	case *array.Int64:
		for r, v := range x.Int64Values()[:n] {
			dst[r] = it.FromInt(v)
		}
	case *array.Int32:
		for r, v := range x.Int32Values()[:n] {
			dst[r] = it.FromInt(int64(v))
		}
	case *array.Int16:
		for r, v := range x.Int16Values()[:n] {
			dst[r] = it.FromInt(int64(v))
		}
	case *array.Int8:
		for r, v := range x.Int8Values()[:n] {
			dst[r] = it.FromInt(int64(v))
		}
	case *array.Float64:
		for r, v := range x.Float64Values()[:n] {
			dst[r] = it.FromFloat(v)
		}
	case *array.Float32:
		for r, v := range x.Float32Values()[:n] {
			dst[r] = it.FromFloat(float64(v))
		}
	case *array.Boolean:
		for r := range dst {
			dst[r] = it.FromBool(x.Value(r))
		}
	case *array.String:
		s, offs, base := StringChunk(x)
		for r := range dst {
			dst[r] = it.FromString(s[offs[r]-base : offs[r+1]-base])
		}
	default:
		for r := range dst {
			if nulls && arr.IsNull(r) {
				dst[r] = it.Null()
				continue
			}
			v, err := it.ToScript(types.GetValue(arr, r, t), t, loc)
			if err != nil {
				return nil, err
			}
			dst[r] = v
		}
		return dst, nil
	}
	if nulls {
		null := it.Null()
		for r := range dst {
			if arr.IsNull(r) {
				dst[r] = null
			}
		}
	}
	return dst, nil
}

// fastResult converts a result of a common primitive type straight to the
// canonical Go value of kind k; ok is false when Coerce must decide.
func fastResult[V any, I Interp[V]](it I, v V, k types.Kind) (any, bool) {
	switch k {
	case types.BigInt:
		if i, ok := it.Int(v); ok {
			return i, true
		}
	case types.Int:
		if i, ok := it.Int(v); ok && i >= -1<<31 && i < 1<<31 {
			return int32(i), true
		}
	case types.Double:
		if f, ok := it.Float(v); ok {
			return f, true
		}
	case types.VarChar:
		if s, ok := it.String(v); ok {
			return s, true
		}
	case types.Boolean:
		if b, ok := it.Bool(v); ok {
			return b, true
		}
	}
	return nil, false
}

// appender returns a function appending a result of a common primitive
// type straight to out; it reports false when the generic conversion must
// decide (other types, NULL, out-of-range values). nil when the result
// type has no direct path.
func appender[V any, I Interp[V]](it I, out array.Builder, k types.Kind) func(V) bool {
	switch k {
	case types.BigInt:
		b, ok := out.(*array.Int64Builder)
		if !ok {
			return nil
		}
		return func(v V) bool {
			i, ok := it.Int(v)
			if ok {
				b.Append(i)
			}
			return ok
		}
	case types.Int:
		b, ok := out.(*array.Int32Builder)
		if !ok {
			return nil
		}
		return func(v V) bool {
			if i, ok := it.Int(v); ok && i >= -1<<31 && i < 1<<31 {
				b.Append(int32(i))
				return true
			}
			return false
		}
	case types.Double:
		b, ok := out.(*array.Float64Builder)
		if !ok {
			return nil
		}
		return func(v V) bool {
			f, ok := it.Float(v)
			if ok {
				b.Append(f)
			}
			return ok
		}
	case types.Char, types.VarChar:
		b, ok := out.(*array.StringBuilder)
		if !ok {
			return nil
		}
		return func(v V) bool {
			s, ok := it.String(v)
			if ok {
				b.Append(s)
			}
			return ok
		}
	case types.Boolean:
		b, ok := out.(*array.BooleanBuilder)
		if !ok {
			return nil
		}
		return func(v V) bool {
			x, ok := it.Bool(v)
			if ok {
				b.Append(x)
			}
			return ok
		}
	}
	return nil
}
