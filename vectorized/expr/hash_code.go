package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// hashCodeNode is HASH_CODE(x) (core/function/hash_code.go): Java's
// hashCode over integers, else the key hash vectorized.HashColumns of the
// one column folded by function.HashCodeFold; NULL where x is NULL.
type hashCodeNode struct {
	arg node
	t   types.Type
}

func (n *hashCodeNode) typ() types.Type { return n.t }
func (n *hashCodeNode) canFail() bool   { return n.arg.canFail() }

func (n *hashCodeNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	a, err := n.arg.eval(rec, scratch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	rows := a.Len()
	if out, ok := javaIntHashes(mem, a); ok {
		return out, nil
	}
	one := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "x", Type: a.DataType(), Nullable: true}}, nil), []arrow.Array{a}, int64(rows))
	defer one.Release()
	hs := make([]uint64, rows)
	vectorized.HashColumns(one, []int{0}, hs)
	buf, out := newFixed[int32](mem, rows)
	for i, h := range hs {
		out[i] = function.HashCodeFold(h)
	}
	validity, nulls := validityOf(mem, rows, a)
	return finish(arrow.PrimitiveTypes.Int32, rows, validity, nulls, []*memory.Buffer{buf}, nil), nil
}

// javaIntHashes returns Java's hashCode of every value of an integer
// column (function.JavaIntHash); ok is false for other columns.
func javaIntHashes(mem memory.Allocator, a arrow.Array) (arrow.Array, bool) {
	rows := a.Len()
	var get func(i int) int64
	switch c := a.(type) {
	case *array.Int8:
		get = func(i int) int64 { return int64(c.Value(i)) }
	case *array.Int16:
		get = func(i int) int64 { return int64(c.Value(i)) }
	case *array.Int32:
		get = func(i int) int64 { return int64(c.Value(i)) }
	case *array.Int64:
		buf, out := newFixed[int32](mem, rows)
		for i, v := range c.Int64Values() {
			out[i] = int32(v ^ int64(uint64(v)>>32))
		}
		validity, nulls := validityOf(mem, rows, a)
		return finish(arrow.PrimitiveTypes.Int32, rows, validity, nulls, []*memory.Buffer{buf}, nil), true
	default:
		return nil, false
	}
	buf, out := newFixed[int32](mem, rows)
	for i := range out {
		out[i] = int32(get(i))
	}
	validity, nulls := validityOf(mem, rows, a)
	return finish(arrow.PrimitiveTypes.Int32, rows, validity, nulls, []*memory.Buffer{buf}, nil), true
}
