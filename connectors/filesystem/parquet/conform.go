package parquet

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Conform converts an array read from a file into the arrow type that
// carries the declared column type: structs by field name (missing fields
// NULL), lists and maps element-wise, leaves by a safe cast (timestamps
// change unit, truncating as Flink does). It returns a new reference.
func Conform(mem memory.Allocator, arr arrow.Array, target arrow.DataType) (arrow.Array, error) {
	src := arr.DataType()
	if arrow.TypeEqual(src, target) {
		arr.Retain()
		return arr, nil
	}
	switch t := target.(type) {
	case *arrow.StructType:
		s, ok := arr.(*array.Struct)
		if !ok {
			break
		}
		st := src.(*arrow.StructType)
		full := s.Data().Len() + s.Data().Offset()
		children := make([]arrow.ArrayData, t.NumFields())
		defer func() {
			for _, c := range children {
				if c != nil {
					c.Release()
				}
			}
		}()
		for i, f := range t.Fields() {
			j := fieldIndex(st, f.Name)
			if j < 0 {
				n := array.MakeArrayOfNull(mem, f.Type, full)
				children[i] = n.Data()
				children[i].Retain()
				n.Release()
				continue
			}
			child := array.MakeFromData(s.Data().Children()[j])
			c, err := Conform(mem, child, f.Type)
			child.Release()
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			children[i] = c.Data()
			children[i].Retain()
			c.Release()
		}
		d := array.NewData(t, s.Data().Len(), s.Data().Buffers()[:1], children, s.Data().NullN(), s.Data().Offset())
		defer d.Release()
		return array.MakeFromData(d), nil
	case *arrow.MapType:
		m, ok := arr.(*array.Map)
		if !ok {
			break
		}
		// key and value by position: writers name them differently.
		entries := m.Data().Children()[0]
		ek := array.MakeFromData(entries.Children()[0])
		ev := array.MakeFromData(entries.Children()[1])
		k, err := Conform(mem, ek, t.KeyType())
		ek.Release()
		if err != nil {
			ev.Release()
			return nil, fmt.Errorf("map key: %w", err)
		}
		v, err := Conform(mem, ev, t.ItemType())
		ev.Release()
		if err != nil {
			k.Release()
			return nil, fmt.Errorf("map value: %w", err)
		}
		ed := array.NewData(t.Elem(), entries.Len(), entries.Buffers()[:1], []arrow.ArrayData{k.Data(), v.Data()}, entries.NullN(), entries.Offset())
		k.Release()
		v.Release()
		d := array.NewData(t, m.Data().Len(), m.Data().Buffers()[:2], []arrow.ArrayData{ed}, m.Data().NullN(), m.Data().Offset())
		ed.Release()
		defer d.Release()
		return array.MakeFromData(d), nil
	case *arrow.ListType:
		var values arrow.ArrayData
		switch l := arr.(type) {
		case *array.List:
			values = l.Data().Children()[0]
		default:
			return castLeaf(mem, arr, target)
		}
		ev := array.MakeFromData(values)
		v, err := Conform(mem, ev, t.Elem())
		ev.Release()
		if err != nil {
			return nil, fmt.Errorf("array element: %w", err)
		}
		d := array.NewData(t, arr.Data().Len(), arr.Data().Buffers()[:2], []arrow.ArrayData{v.Data()}, arr.Data().NullN(), arr.Data().Offset())
		v.Release()
		defer d.Release()
		return array.MakeFromData(d), nil
	}
	return castLeaf(mem, arr, target)
}

func fieldIndex(st *arrow.StructType, name string) int {
	if i, ok := st.FieldIdx(name); ok {
		return i
	}
	for i, f := range st.Fields() {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

func castLeaf(mem memory.Allocator, arr arrow.Array, target arrow.DataType) (arrow.Array, error) {
	src := arr.DataType()
	opts := compute.SafeCastOptions(target)
	opts.AllowTimeTruncate = true
	ctx := compute.WithAllocator(context.Background(), mem)
	out, err := compute.CastArray(ctx, arr, opts)
	if err != nil {
		return nil, fmt.Errorf("cannot read Parquet values of type %s as %s: %w", src, target, err)
	}
	return out, nil
}
