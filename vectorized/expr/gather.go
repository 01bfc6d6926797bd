package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/vectorized"
)

// Take gathers the rows sel (indexes into rec, in any order, repeats
// allowed) into a new record batch with the same schema. The caller owns
// (and must Release) the result. Every Arrow type the engine uses is
// supported: fixed-width values (integers, floats, decimals, dates, times,
// timestamps, intervals) and strings take fast paths; lists, maps and
// structs are gathered recursively.
func Take(rec arrow.RecordBatch, sel []int32) (arrow.RecordBatch, error) {
	n := int(rec.NumRows())
	for _, r := range sel {
		if r < 0 || int(r) >= n {
			return nil, fmt.Errorf("internal: take index %d out of range [0, %d)", r, n)
		}
	}
	cols := make([]arrow.Array, rec.NumCols())
	for c := range cols {
		a, err := takeArray(rec.Column(c), sel)
		if err != nil {
			for _, x := range cols[:c] {
				x.Release()
			}
			return nil, err
		}
		cols[c] = a
	}
	out := array.NewRecordBatch(rec.Schema(), cols, int64(len(sel)))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// takeArray gathers rows of one array.
func takeArray(a arrow.Array, sel []int32) (arrow.Array, error) {
	src := make([]int16, len(sel))
	return gather(vectorized.Mem, a.DataType(), []arrow.Array{a}, src, sel)
}

// gather builds an array of type dt whose row i is row rowIdx[i] of
// srcs[srcIdx[i]], or NULL when srcIdx[i] < 0. All sources have type dt.
func gather(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, srcIdx []int16, rowIdx []int32) (arrow.Array, error) {
	n := len(srcIdx)
	// Validity.
	var validity *memory.Buffer
	nulls := 0
	needValid := false
	for i, s := range srcIdx {
		if s < 0 || srcs[s].IsNull(int(rowIdx[i])) {
			needValid = true
			break
		}
	}
	if needValid {
		validity = memory.NewResizableBuffer(mem)
		validity.Resize(int(bitutil.BytesForBits(int64(n))))
		vb := validity.Bytes()
		clear(vb)
		for i, s := range srcIdx {
			if s >= 0 && srcs[s].IsValid(int(rowIdx[i])) {
				bitutil.SetBit(vb, i)
			} else {
				nulls++
			}
		}
	}
	release := func() {
		if validity != nil {
			validity.Release()
		}
	}
	switch t := dt.(type) {
	case *arrow.NullType:
		release()
		return array.NewNull(n), nil
	case *arrow.BooleanType:
		buf := memory.NewResizableBuffer(mem)
		buf.Resize(int(bitutil.BytesForBits(int64(n))))
		out := buf.Bytes()
		clear(out)
		for i, s := range srcIdx {
			if s < 0 {
				continue
			}
			b := srcs[s].(*array.Boolean)
			if b.Value(int(rowIdx[i])) {
				bitutil.SetBit(out, i)
			}
		}
		return finish(dt, n, validity, nulls, []*memory.Buffer{buf}, nil), nil
	case *arrow.StringType, *arrow.BinaryType:
		return gatherBinary(mem, dt, srcs, srcIdx, rowIdx, validity, nulls), nil
	case *arrow.StructType:
		children := make([]arrow.ArrayData, t.NumFields())
		for f := range children {
			fs := make([]arrow.Array, len(srcs))
			for j, s := range srcs {
				fs[j] = s.(*array.Struct).Field(f)
			}
			c, err := gather(mem, t.Field(f).Type, fs, srcIdx, rowIdx)
			if err != nil {
				release()
				return nil, err
			}
			children[f] = c.Data()
			defer c.Release()
		}
		return finish(dt, n, validity, nulls, nil, children), nil
	case *arrow.ListType, *arrow.MapType:
		offBuf := memory.NewResizableBuffer(mem)
		offBuf.Resize((n + 1) * 4)
		offs := arrow.GetData[int32](offBuf.Bytes())
		var csrc []int16
		var crow []int32
		children := make([]arrow.Array, len(srcs))
		for j, s := range srcs {
			children[j] = s.(array.ListLike).ListValues()
		}
		offs[0] = 0
		for i, s := range srcIdx {
			if s >= 0 && srcs[s].IsValid(int(rowIdx[i])) {
				st, en := srcs[s].(array.ListLike).ValueOffsets(int(rowIdx[i]))
				for k := st; k < en; k++ {
					csrc = append(csrc, s)
					crow = append(crow, int32(k))
				}
			}
			offs[i+1] = int32(len(crow))
		}
		var elemType arrow.DataType
		if lt, ok := dt.(*arrow.ListType); ok {
			elemType = lt.Elem()
		} else {
			elemType = dt.(*arrow.MapType).Elem()
		}
		c, err := gather(mem, elemType, children, csrc, crow)
		if err != nil {
			offBuf.Release()
			release()
			return nil, err
		}
		defer c.Release()
		return finish(dt, n, validity, nulls, []*memory.Buffer{offBuf}, []arrow.ArrayData{c.Data()}), nil
	}
	if fw, ok := dt.(arrow.FixedWidthDataType); ok && fw.BitWidth()%8 == 0 {
		width := fw.BitWidth() / 8
		buf := memory.NewResizableBuffer(mem)
		buf.Resize(n * width)
		switch width {
		case 1:
			gatherFixed[uint8](buf.Bytes(), srcs, srcIdx, rowIdx)
		case 2:
			gatherFixed[uint16](buf.Bytes(), srcs, srcIdx, rowIdx)
		case 4:
			gatherFixed[uint32](buf.Bytes(), srcs, srcIdx, rowIdx)
		case 8:
			gatherFixed[uint64](buf.Bytes(), srcs, srcIdx, rowIdx)
		default:
			out := buf.Bytes()
			for i, s := range srcIdx {
				if s < 0 {
					clear(out[i*width : (i+1)*width])
					continue
				}
				d := srcs[s].Data()
				raw := d.Buffers()[1].Bytes()
				o := (d.Offset() + int(rowIdx[i])) * width
				copy(out[i*width:(i+1)*width], raw[o:o+width])
			}
		}
		return finish(dt, n, validity, nulls, []*memory.Buffer{buf}, nil), nil
	}
	release()
	return nil, fmt.Errorf("not supported yet: gathering Arrow type %s", dt)
}

type fixedWord interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

func gatherFixed[T fixedWord](outBytes []byte, srcs []arrow.Array, srcIdx []int16, rowIdx []int32) {
	out := arrow.GetData[T](outBytes)
	if len(srcs) == 1 {
		in := rawValues[T](srcs[0])
		if in == nil {
			clear(out)
			return
		}
		for i, r := range rowIdx {
			out[i] = in[r]
		}
		return
	}
	ins := make([][]T, len(srcs))
	for j, s := range srcs {
		ins[j] = rawValues[T](s)
	}
	for i, s := range srcIdx {
		if s < 0 || ins[s] == nil {
			out[i] = 0
			continue
		}
		out[i] = ins[s][rowIdx[i]]
	}
}

// rawValues reinterprets the value buffer of a fixed-width array (offset
// applied).
func rawValues[T fixedWord](a arrow.Array) []T {
	d := a.Data()
	b := d.Buffers()[1]
	if b == nil || b.Len() == 0 {
		return nil
	}
	return arrow.GetData[T](b.Bytes())[d.Offset() : d.Offset()+d.Len()]
}

func gatherBinary(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, srcIdx []int16, rowIdx []int32, validity *memory.Buffer, nulls int) arrow.Array {
	n := len(srcIdx)
	offBuf := memory.NewResizableBuffer(mem)
	offBuf.Resize((n + 1) * 4)
	offs := arrow.GetData[int32](offBuf.Bytes())
	type bin interface {
		ValueOffsets() []int32
		ValueBytes() []byte
	}
	total := 0
	for i, s := range srcIdx {
		if s >= 0 {
			o := srcs[s].(bin).ValueOffsets()
			total += int(o[rowIdx[i]+1] - o[rowIdx[i]])
		}
	}
	dataBuf := memory.NewResizableBuffer(mem)
	dataBuf.Resize(total)
	data := dataBuf.Bytes()
	pos := int32(0)
	offs[0] = 0
	for i, s := range srcIdx {
		if s >= 0 {
			b := srcs[s].(bin)
			o := b.ValueOffsets()
			st, en := o[rowIdx[i]]-o[0], o[rowIdx[i]+1]-o[0]
			pos += int32(copy(data[pos:], b.ValueBytes()[st:en]))
		}
		offs[i+1] = pos
	}
	return finish(dt, n, validity, nulls, []*memory.Buffer{offBuf, dataBuf}, nil)
}

// finish wraps buffers into an array, taking ownership of them.
func finish(dt arrow.DataType, n int, validity *memory.Buffer, nulls int, bufs []*memory.Buffer, children []arrow.ArrayData) arrow.Array {
	all := append([]*memory.Buffer{validity}, bufs...)
	d := array.NewData(dt, n, all, children, nulls, 0)
	for _, b := range all {
		if b != nil {
			b.Release()
		}
	}
	a := array.MakeFromData(d)
	d.Release()
	return a
}
