package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// Go scalar functions registered with function.FromGo run row by row
// through reflection in the generic adapter, except these signatures,
// which get a vectorized kernel: one typed loop over the argument
// columns, no boxing.
//
//	func(int64) int64            func(int64, int64) int64
//	func(float64) float64        func(float64, float64) float64
//
// The hook for the compiler is goCall, placed before the generic adapter:
//
//	if n, ok := c.goCall(x, def, args); ok {
//		return n, nil
//	}

// goNum is the element type of a vectorized Go function.
type goNum interface{ int64 | float64 }

// goNode calls a Go function of one or two goNum arguments per row.
type goNode[T goNum] struct {
	name string
	f1   func(T) T
	f2   func(T, T) T
	args []node
	t    types.Type
	at   arrow.DataType
}

// goCall returns a vectorized node when def is a Go function with a
// kernel signature whose argument and result columns have the matching
// types; ok is false otherwise.
func (c *compiler) goCall(x *logical.Call, def *function.Definition, args []node) (node, bool) {
	fn, ok := function.GoImpl(def)
	if !ok || !def.NullOnNull {
		return nil, false
	}
	kinds := func(k types.Kind) bool {
		if x.T.Kind != k {
			return false
		}
		for _, a := range args {
			if a.typ().Kind != k {
				return false
			}
		}
		return true
	}
	at, err := types.ArrowType(x.T)
	if err != nil {
		return nil, false
	}
	switch f := fn.(type) {
	case func(int64) int64:
		if len(args) == 1 && kinds(types.BigInt) {
			return &goNode[int64]{name: x.Name, f1: f, args: args, t: x.T, at: at}, true
		}
	case func(int64, int64) int64:
		if len(args) == 2 && kinds(types.BigInt) {
			return &goNode[int64]{name: x.Name, f2: f, args: args, t: x.T, at: at}, true
		}
	case func(float64) float64:
		if len(args) == 1 && kinds(types.Double) {
			return &goNode[float64]{name: x.Name, f1: f, args: args, t: x.T, at: at}, true
		}
	case func(float64, float64) float64:
		if len(args) == 2 && kinds(types.Double) {
			return &goNode[float64]{name: x.Name, f2: f, args: args, t: x.T, at: at}, true
		}
	}
	return nil, false
}

func (n *goNode[T]) typ() types.Type { return n.t }

// canFail: the Go function may panic.
func (n *goNode[T]) canFail() bool { return true }

func (n *goNode[T]) eval(rec arrow.RecordBatch, mem memory.Allocator) (out arrow.Array, err error) {
	rows := int(rec.NumRows())
	arrs := make([]arrow.Array, len(n.args))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, a := range n.args {
		if arrs[i], err = a.eval(rec, scratch); err != nil {
			return nil, err
		}
	}
	validity, nulls := validityOf(mem, rows, arrs...)
	buf, res := newFixed[T](mem, rows)
	defer func() {
		if p := recover(); p != nil {
			buf.Release()
			if validity != nil {
				validity.Release()
			}
			out, err = nil, fmt.Errorf("Go function '%s' panicked: %v", n.name, p)
		}
	}()
	if rows > 0 && nulls < rows {
		// NULL rows are skipped: the function never sees their values.
		var valid []byte
		if validity != nil {
			valid = validity.Bytes()
		}
		x := numValues[T](arrs[0])
		if n.f1 != nil {
			for i, v := range x {
				if valid == nil || bitutil.BitIsSet(valid, i) {
					res[i] = n.f1(v)
				}
			}
		} else {
			y := numValues[T](arrs[1])
			for i, v := range x {
				if valid == nil || bitutil.BitIsSet(valid, i) {
					res[i] = n.f2(v, y[i])
				}
			}
		}
	}
	return finish(n.at, rows, validity, nulls, []*memory.Buffer{buf}, nil), nil
}
