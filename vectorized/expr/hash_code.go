package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// hashCodeNode is HASH_CODE(x) (core/function/hash_code.go): the key hash
// vectorized.HashColumns of the one column, folded by
// function.HashCodeFold; NULL where x is NULL.
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
