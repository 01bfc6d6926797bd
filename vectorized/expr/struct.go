package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
)

// structFieldNode reads field idx of a ROW value (r.f) without
// materialising rows: the struct's child array is returned as is, with the
// struct's own NULLs folded into the child's validity (a field of a NULL
// row is NULL). Nexmark's views read every event field this way.
type structFieldNode struct {
	arg node
	idx int
	t   types.Type
}

func (n *structFieldNode) typ() types.Type { return n.t }
func (n *structFieldNode) canFail() bool   { return n.arg.canFail() }

func (n *structFieldNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	a, err := n.arg.eval(rec, mem)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	s, ok := a.(*array.Struct)
	if !ok {
		if a.NullN() == a.Len() {
			at, err := types.ArrowType(n.t)
			if err != nil {
				return nil, err
			}
			return array.MakeArrayOfNull(mem, at, a.Len()), nil
		}
		return nil, fmt.Errorf("internal: field access on %s", a.DataType())
	}
	if n.idx < 0 || n.idx >= s.NumField() {
		return nil, fmt.Errorf("internal: field %d of a row with %d fields", n.idx, s.NumField())
	}
	child := s.Field(n.idx)
	if s.NullN() == 0 {
		child.Retain()
		return child, nil
	}
	return withParentNulls(mem, child, s), nil
}

// withParentNulls returns child with every row that is NULL in parent made
// NULL too. Both arrays have the same length; the child may have an
// offset, which the new validity bitmap keeps.
func withParentNulls(mem memory.Allocator, child arrow.Array, parent arrow.Array) arrow.Array {
	cd := child.Data()
	n, off := cd.Len(), cd.Offset()
	bits := memory.NewResizableBuffer(mem)
	bits.Resize(int(bitutil.BytesForBits(int64(off + n))))
	out := bits.Bytes()
	nulls := 0
	for i := 0; i < n; i++ {
		valid := child.IsValid(i) && parent.IsValid(i)
		bitutil.SetBitTo(out, off+i, valid)
		if !valid {
			nulls++
		}
	}
	bufs := append([]*memory.Buffer{bits}, cd.Buffers()[1:]...)
	data := array.NewData(cd.DataType(), n, bufs, cd.Children(), nulls, off)
	defer data.Release()
	bits.Release()
	return array.MakeFromData(data)
}
