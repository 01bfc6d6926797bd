package csv

import (
	"bytes"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/connectors/format/textconv"
	"github.com/tablerun/tablerun/core/types"
)

// column parses the text of one field and appends it to a typed builder.
// The reader calls reserve once per batch, then exactly one of add or null
// per row, then finish.
type column interface {
	reserve(n int)
	add(f []byte) error
	null()
	finish() arrow.Array
}

func newColumn(mem memory.Allocator, t types.Type, opts *Options) (column, error) {
	switch t.Kind {
	case types.BigInt:
		return &int64Col{dt: arrow.PrimitiveTypes.Int64}, nil
	case types.Int:
		return &int32Col{dt: arrow.PrimitiveTypes.Int32}, nil
	case types.Double:
		return &float64Col{b: array.NewFloat64Builder(mem)}, nil
	case types.Char, types.VarChar:
		return &stringCol{}, nil
	case types.Date:
		return &dateCol{intCol[int32]{dt: arrow.FixedWidthTypes.Date32}}, nil
	case types.Decimal:
		return &decimalCol{dt: &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}, t: t}, nil
	case types.Boolean:
		return &boolCol{b: array.NewBooleanBuilder(mem)}, nil
	case types.Array:
		if !Holds(t) {
			return nil, fmt.Errorf("not supported yet: csv format for %s", t)
		}
		at, err := types.ArrowType(t)
		if err != nil {
			return nil, err
		}
		return &arrayCol{b: array.NewBuilder(mem, at).(*array.ListBuilder), t: t, opts: opts}, nil
	case types.Map, types.Row:
		return nil, fmt.Errorf("not supported yet: csv format for %s", t)
	}
	at, err := types.ArrowType(t)
	if err != nil {
		return nil, err
	}
	return &genericCol{b: array.NewBuilder(mem, at), t: t}, nil
}

// intCol collects integers in a plain slice plus a validity bitmap made
// only once a NULL appears, and hands both to Arrow without copying.
type intCol[T int32 | int64] struct {
	dt    arrow.DataType
	vals  []T
	valid []byte
	n     int
	nulls int
}

type int64Col = intCol[int64]
type int32Col = intCol[int32]

func (c *intCol[T]) reserve(n int) {
	c.vals = make([]T, n)
	c.valid, c.n, c.nulls = nil, 0, 0
}

func (c *intCol[T]) add(f []byte) error {
	v, ok := parseUint(f)
	if !ok {
		v, ok = textconv.ParseInt64(f)
	}
	if !ok || int64(T(v)) != v {
		return fmt.Errorf("For input string: %q", f)
	}
	c.vals[c.n] = T(v)
	if c.valid != nil {
		bitutil.SetBit(c.valid, c.n)
	}
	c.n++
	return nil
}

func (c *intCol[T]) null() {
	if c.valid == nil {
		c.valid = make([]byte, bitutil.BytesForBits(int64(len(c.vals))))
		bitutil.SetBitsTo(c.valid, 0, int64(c.n), true)
	}
	c.n++
	c.nulls++
}

func (c *intCol[T]) finish() arrow.Array {
	var bitmap *memory.Buffer
	if c.nulls > 0 {
		bitmap = memory.NewBufferBytes(c.valid)
	}
	var raw []byte
	if c.n > 0 {
		raw = unsafe.Slice((*byte)(unsafe.Pointer(&c.vals[0])), c.n*int(unsafe.Sizeof(c.vals[0])))
	}
	data := array.NewData(c.dt, c.n, []*memory.Buffer{bitmap, memory.NewBufferBytes(raw)}, nil, c.nulls, 0)
	defer data.Release()
	c.vals, c.valid, c.n, c.nulls = nil, nil, 0, 0
	return array.MakeFromData(data)
}

type float64Col struct{ b *array.Float64Builder }

func (c *float64Col) reserve(n int) { c.b.Reserve(n) }
func (c *float64Col) add(f []byte) error {
	v, err := textconv.ParseFloat(f, 64)
	if err != nil {
		return err
	}
	c.b.UnsafeAppend(v)
	return nil
}
func (c *float64Col) null()               { c.b.UnsafeAppendBoolToBitmap(false) }
func (c *float64Col) finish() arrow.Array { return c.b.NewArray() }

// stringCol copies field bytes into one data buffer with Arrow's int32
// offsets, sized from the previous batch, and hands both to Arrow.
type stringCol struct {
	offs  []int32
	data  []byte
	valid []byte
	n     int
	nulls int
	hint  int // data bytes of the previous batch
}

func (c *stringCol) reserve(n int) {
	c.offs = make([]int32, n+1)
	c.data = make([]byte, 0, max(c.hint+c.hint/8, 64))
	c.valid, c.n, c.nulls = nil, 0, 0
}

func (c *stringCol) add(f []byte) error {
	c.data = append(c.data, f...)
	if c.valid != nil {
		bitutil.SetBit(c.valid, c.n)
	}
	c.n++
	c.offs[c.n] = int32(len(c.data))
	return nil
}

func (c *stringCol) null() {
	if c.valid == nil {
		c.valid = make([]byte, bitutil.BytesForBits(int64(len(c.offs)-1)))
		bitutil.SetBitsTo(c.valid, 0, int64(c.n), true)
	}
	c.n++
	c.offs[c.n] = int32(len(c.data))
	c.nulls++
}

func (c *stringCol) finish() arrow.Array {
	var bitmap *memory.Buffer
	if c.nulls > 0 {
		bitmap = memory.NewBufferBytes(c.valid)
	}
	c.hint = len(c.data)
	offs := unsafe.Slice((*byte)(unsafe.Pointer(&c.offs[0])), (c.n+1)*4)
	data := array.NewData(arrow.BinaryTypes.String, c.n, []*memory.Buffer{bitmap, memory.NewBufferBytes(offs), memory.NewBufferBytes(c.data)}, nil, c.nulls, 0)
	defer data.Release()
	c.offs, c.data, c.valid, c.n, c.nulls = nil, nil, nil, 0, 0
	return array.MakeFromData(data)
}

// dateCol is DATE as int32 days: yyyy-MM-dd parsed in place, the lenient
// forms and the message through textconv.ParseDate.
type dateCol struct{ intCol[int32] }

func (c *dateCol) add(f []byte) error {
	v, ok := textconv.ParseDateISO(f)
	if !ok {
		d, err := textconv.ParseDate(f)
		if err != nil {
			return err
		}
		v = d
	}
	c.vals[c.n] = v
	if c.valid != nil {
		bitutil.SetBit(c.valid, c.n)
	}
	c.n++
	return nil
}

// decimalCol is DECIMAL(p, s) as decimal128 pairs (low word, then high
// word) in a plain slice: plain text of up to 18 digits is scaled in an
// int64, anything else goes through textconv.ParseDecimal (BigDecimal's
// forms). A value wider than the precision is NULL, as in Flink.
type decimalCol struct {
	dt    arrow.DataType
	t     types.Type
	vals  []uint64
	valid []byte
	n     int
	nulls int
}

func (c *decimalCol) reserve(n int) {
	c.vals = make([]uint64, 2*n)
	c.valid, c.n, c.nulls = nil, 0, 0
}

func (c *decimalCol) add(f []byte) error {
	v, fits, ok := textconv.ParseDecimalInt64(f, c.t.Precision, c.t.Scale)
	if ok && fits {
		c.vals[2*c.n], c.vals[2*c.n+1] = uint64(v), uint64(v>>63)
	} else if ok {
		c.null()
		return nil
	} else {
		n, fits, err := textconv.ParseDecimal(f, c.t.Precision, c.t.Scale)
		if err != nil {
			return err
		}
		if !fits {
			c.null()
			return nil
		}
		c.vals[2*c.n], c.vals[2*c.n+1] = n.LowBits(), uint64(n.HighBits())
	}
	if c.valid != nil {
		bitutil.SetBit(c.valid, c.n)
	}
	c.n++
	return nil
}

func (c *decimalCol) null() {
	if c.valid == nil {
		c.valid = make([]byte, bitutil.BytesForBits(int64(len(c.vals)/2)))
		bitutil.SetBitsTo(c.valid, 0, int64(c.n), true)
	}
	c.n++
	c.nulls++
}

func (c *decimalCol) finish() arrow.Array {
	var bitmap *memory.Buffer
	if c.nulls > 0 {
		bitmap = memory.NewBufferBytes(c.valid)
	}
	var raw []byte
	if c.n > 0 {
		raw = unsafe.Slice((*byte)(unsafe.Pointer(&c.vals[0])), c.n*16)
	}
	data := array.NewData(c.dt, c.n, []*memory.Buffer{bitmap, memory.NewBufferBytes(raw)}, nil, c.nulls, 0)
	defer data.Release()
	c.vals, c.valid, c.n, c.nulls = nil, nil, 0, 0
	return array.MakeFromData(data)
}

type boolCol struct{ b *array.BooleanBuilder }

func (c *boolCol) reserve(n int)       { c.b.Reserve(n) }
func (c *boolCol) add(f []byte) error  { c.b.UnsafeAppend(textconv.ParseBool(f)); return nil }
func (c *boolCol) null()               { c.b.UnsafeAppendBoolToBitmap(false) }
func (c *boolCol) finish() arrow.Array { return c.b.NewArray() }

// genericCol covers the remaining scalar types through the canonical
// value path (not a hot path).
type genericCol struct {
	b array.Builder
	t types.Type
}

func (c *genericCol) reserve(n int) { c.b.Reserve(n) }
func (c *genericCol) add(f []byte) error {
	v, err := textconv.ParseScalar(f, c.t, textconv.SQL)
	if err != nil {
		return err
	}
	return types.AppendValue(c.b, v, c.t)
}
func (c *genericCol) null()               { c.b.AppendNull() }
func (c *genericCol) finish() arrow.Array { return c.b.NewArray() }

// arrayCol splits a field on the array element delimiter.
type arrayCol struct {
	b    *array.ListBuilder
	t    types.Type
	opts *Options
}

func (c *arrayCol) reserve(n int) { c.b.Reserve(n) }
func (c *arrayCol) add(f []byte) error {
	// Parse all elements first so a bad element leaves the builder clean.
	var elems []any
	if len(f) > 0 {
		for _, e := range bytes.Split(f, []byte(c.opts.ArrayElementDelimiter)) {
			if c.opts.NullLiteral != nil && string(e) == *c.opts.NullLiteral {
				elems = append(elems, nil)
				continue
			}
			v, err := textconv.ParseScalar(e, *c.t.Elem, textconv.SQL)
			if err != nil {
				if c.opts.IgnoreParseErrors {
					v = nil
				} else {
					return err
				}
			}
			elems = append(elems, v)
		}
	} else {
		elems = []any{}
	}
	return types.AppendValue(c.b, elems, c.t)
}
func (c *arrayCol) null()               { c.b.AppendNull() }
func (c *arrayCol) finish() arrow.Array { return c.b.NewArray() }

// parseUint is the common case of an unsigned integer of at most 18
// digits, small enough to be inlined into the column loops.
func parseUint(f []byte) (int64, bool) {
	if len(f) == 0 || len(f) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range f {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		v = v*10 + int64(d)
	}
	return v, true
}
