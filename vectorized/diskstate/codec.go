package diskstate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The value encoding of the store: the values of one row of Arrow
// columns, each a presence byte (0: NULL) and then the value — fixed-width
// numbers little-endian in their width, strings and binaries as a uvarint
// length and the bytes, lists and maps as a uvarint count and the
// elements, structs as their fields. It is compact (no schema, no
// padding) and decodes straight into Arrow builders, a batch of rows at a
// time.

// ErrType reports a column type the encoding does not cover.
var ErrType = errors.New("type not supported by the disk state encoding")

// CheckTypes reports the first type of ts the encoding cannot hold.
func CheckTypes(ts []arrow.DataType) error {
	for _, t := range ts {
		if err := checkType(t); err != nil {
			return err
		}
	}
	return nil
}

func checkType(t arrow.DataType) error {
	switch t.ID() {
	case arrow.NULL, arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64, arrow.FLOAT32, arrow.FLOAT64,
		arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY, arrow.FIXED_SIZE_BINARY,
		arrow.DECIMAL128, arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64, arrow.TIMESTAMP,
		arrow.DURATION, arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME, arrow.INTERVAL_MONTH_DAY_NANO:
		return nil
	case arrow.LIST:
		return checkType(t.(*arrow.ListType).Elem())
	case arrow.LARGE_LIST:
		return checkType(t.(*arrow.LargeListType).Elem())
	case arrow.MAP:
		m := t.(*arrow.MapType)
		if err := checkType(m.KeyType()); err != nil {
			return err
		}
		return checkType(m.ItemType())
	case arrow.STRUCT:
		for _, f := range t.(*arrow.StructType).Fields() {
			if err := checkType(f.Type); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%s: %w", t, ErrType)
}

// AppendRow appends the encoding of row i of cols to buf.
func AppendRow(buf []byte, cols []arrow.Array, i int) ([]byte, error) {
	var err error
	for _, c := range cols {
		if buf, err = appendValue(buf, c, i); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

func appendValue(buf []byte, a arrow.Array, i int) ([]byte, error) {
	if a.IsNull(i) {
		return append(buf, 0), nil
	}
	buf = append(buf, 1)
	switch a := a.(type) {
	case *array.Null:
		return buf, nil
	case *array.Boolean:
		if a.Value(i) {
			return append(buf, 1), nil
		}
		return append(buf, 0), nil
	case *array.String:
		return appendBytes(buf, []byte(a.Value(i))), nil
	case *array.LargeString:
		return appendBytes(buf, []byte(a.Value(i))), nil
	case *array.Binary:
		return appendBytes(buf, a.Value(i)), nil
	case *array.LargeBinary:
		return appendBytes(buf, a.Value(i)), nil
	case *array.FixedSizeBinary:
		return append(buf, a.Value(i)...), nil
	case *array.Map:
		lo, hi := a.ValueOffsets(i)
		buf = binary.AppendUvarint(buf, uint64(hi-lo))
		keys, items := a.Keys(), a.Items()
		var err error
		for j := int(lo); j < int(hi); j++ {
			if buf, err = appendValue(buf, keys, j); err != nil {
				return buf, err
			}
			if buf, err = appendValue(buf, items, j); err != nil {
				return buf, err
			}
		}
		return buf, nil
	case *array.List:
		lo, hi := a.ValueOffsets(i)
		return appendElems(buf, a.ListValues(), int(lo), int(hi))
	case *array.LargeList:
		lo, hi := a.ValueOffsets(i)
		return appendElems(buf, a.ListValues(), int(lo), int(hi))
	case *array.Struct:
		var err error
		for f := 0; f < a.NumField(); f++ {
			if buf, err = appendValue(buf, a.Field(f), i); err != nil {
				return buf, err
			}
		}
		return buf, nil
	}
	if w := fixedWidth(a.DataType()); w > 0 {
		d := a.Data()
		raw := d.Buffers()[1].Bytes()
		off := (d.Offset() + i) * w
		return append(buf, raw[off:off+w]...), nil
	}
	return buf, fmt.Errorf("%s: %w", a.DataType(), ErrType)
}

func appendBytes(buf, v []byte) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(v)))
	return append(buf, v...)
}

func appendElems(buf []byte, vals arrow.Array, lo, hi int) ([]byte, error) {
	buf = binary.AppendUvarint(buf, uint64(hi-lo))
	var err error
	for j := lo; j < hi; j++ {
		if buf, err = appendValue(buf, vals, j); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// fixedWidth is the byte width of the fixed-width number types.
func fixedWidth(t arrow.DataType) int {
	switch t.ID() {
	case arrow.INT8, arrow.UINT8:
		return 1
	case arrow.INT16, arrow.UINT16:
		return 2
	case arrow.INT32, arrow.UINT32, arrow.FLOAT32, arrow.DATE32, arrow.TIME32, arrow.INTERVAL_MONTHS:
		return 4
	case arrow.INT64, arrow.UINT64, arrow.FLOAT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP,
		arrow.DURATION, arrow.INTERVAL_DAY_TIME:
		return 8
	case arrow.DECIMAL128, arrow.INTERVAL_MONTH_DAY_NANO:
		return 16
	}
	return 0
}

// Decoder decodes encoded rows of a schema into Arrow arrays.
type Decoder struct {
	types []arrow.DataType
	bs    []array.Builder
}

// NewDecoder returns a decoder of rows of columns of types ts.
func NewDecoder(mem memory.Allocator, ts []arrow.DataType) (*Decoder, error) {
	if err := CheckTypes(ts); err != nil {
		return nil, err
	}
	d := &Decoder{types: ts}
	for _, t := range ts {
		d.bs = append(d.bs, array.NewBuilder(mem, t))
	}
	return d, nil
}

// Append decodes one row and appends its values; it returns the bytes
// after the row.
func (d *Decoder) Append(row []byte) ([]byte, error) {
	var err error
	for _, b := range d.bs {
		if row, err = decodeValue(row, b); err != nil {
			return row, err
		}
	}
	return row, nil
}

// AppendColumns decodes the values of columns [lo, hi) of one row (a row
// split over several encodings: a key and a value) and returns the bytes
// after them.
func (d *Decoder) AppendColumns(row []byte, lo, hi int) ([]byte, error) {
	var err error
	for _, b := range d.bs[lo:hi] {
		if row, err = decodeValue(row, b); err != nil {
			return row, err
		}
	}
	return row, nil
}

// Finish returns the decoded columns (the caller releases them) and
// resets the decoder.
func (d *Decoder) Finish() []arrow.Array {
	out := make([]arrow.Array, len(d.bs))
	for i, b := range d.bs {
		out[i] = b.NewArray()
	}
	return out
}

// Release frees the builders.
func (d *Decoder) Release() {
	for _, b := range d.bs {
		b.Release()
	}
}

var errShort = errors.New("corrupt disk state value (truncated)")

func decodeValue(p []byte, b array.Builder) ([]byte, error) {
	if len(p) == 0 {
		return p, errShort
	}
	present := p[0] != 0
	p = p[1:]
	if !present {
		b.AppendNull()
		return p, nil
	}
	take := func(n int) ([]byte, error) {
		if n < 0 || len(p) < n {
			return nil, errShort
		}
		v := p[:n]
		p = p[n:]
		return v, nil
	}
	count := func() (int, error) {
		n, k := binary.Uvarint(p)
		if k <= 0 || n > uint64(len(p)) {
			return 0, errShort
		}
		p = p[k:]
		return int(n), nil
	}
	var err error
	switch b := b.(type) {
	case *array.NullBuilder:
		b.AppendNull()
		return p, nil
	case *array.BooleanBuilder:
		v, err := take(1)
		if err != nil {
			return p, err
		}
		b.Append(v[0] != 0)
		return p, nil
	case *array.StringBuilder:
		n, err := count()
		if err != nil {
			return p, err
		}
		v, err := take(n)
		if err != nil {
			return p, err
		}
		b.Append(string(v))
		return p, nil
	case *array.LargeStringBuilder:
		n, err := count()
		if err != nil {
			return p, err
		}
		v, err := take(n)
		if err != nil {
			return p, err
		}
		b.Append(string(v))
		return p, nil
	case *array.BinaryBuilder: // binary and large binary
		n, err := count()
		if err != nil {
			return p, err
		}
		v, err := take(n)
		if err != nil {
			return p, err
		}
		b.Append(v)
		return p, nil
	case *array.FixedSizeBinaryBuilder:
		v, err := take(b.Type().(*arrow.FixedSizeBinaryType).ByteWidth)
		if err != nil {
			return p, err
		}
		b.Append(v)
		return p, nil
	case *array.MapBuilder:
		n, err := count()
		if err != nil {
			return p, err
		}
		b.Append(true)
		kb, ib := b.KeyBuilder(), b.ItemBuilder()
		for j := 0; j < n; j++ {
			if p, err = decodeValue(p, kb); err != nil {
				return p, err
			}
			if p, err = decodeValue(p, ib); err != nil {
				return p, err
			}
		}
		return p, nil
	case *array.ListBuilder:
		n, err := count()
		if err != nil {
			return p, err
		}
		b.Append(true)
		for j := 0; j < n; j++ {
			if p, err = decodeValue(p, b.ValueBuilder()); err != nil {
				return p, err
			}
		}
		return p, nil
	case *array.LargeListBuilder:
		n, err := count()
		if err != nil {
			return p, err
		}
		b.Append(true)
		for j := 0; j < n; j++ {
			if p, err = decodeValue(p, b.ValueBuilder()); err != nil {
				return p, err
			}
		}
		return p, nil
	case *array.StructBuilder:
		b.Append(true)
		for f := 0; f < b.NumField(); f++ {
			if p, err = decodeValue(p, b.FieldBuilder(f)); err != nil {
				return p, err
			}
		}
		return p, nil
	}
	w := fixedWidth(b.Type())
	v, err := take(w)
	if err != nil || w == 0 {
		if w == 0 {
			err = fmt.Errorf("%s: %w", b.Type(), ErrType)
		}
		return p, err
	}
	switch b := b.(type) {
	case *array.Int8Builder:
		b.Append(int8(v[0]))
	case *array.Uint8Builder:
		b.Append(v[0])
	case *array.Int16Builder:
		b.Append(int16(binary.LittleEndian.Uint16(v)))
	case *array.Uint16Builder:
		b.Append(binary.LittleEndian.Uint16(v))
	case *array.Int32Builder:
		b.Append(int32(binary.LittleEndian.Uint32(v)))
	case *array.Uint32Builder:
		b.Append(binary.LittleEndian.Uint32(v))
	case *array.Int64Builder:
		b.Append(int64(binary.LittleEndian.Uint64(v)))
	case *array.Uint64Builder:
		b.Append(binary.LittleEndian.Uint64(v))
	case *array.Float32Builder:
		b.Append(math.Float32frombits(binary.LittleEndian.Uint32(v)))
	case *array.Float64Builder:
		b.Append(math.Float64frombits(binary.LittleEndian.Uint64(v)))
	case *array.Date32Builder:
		b.Append(arrow.Date32(binary.LittleEndian.Uint32(v)))
	case *array.Date64Builder:
		b.Append(arrow.Date64(binary.LittleEndian.Uint64(v)))
	case *array.Time32Builder:
		b.Append(arrow.Time32(binary.LittleEndian.Uint32(v)))
	case *array.Time64Builder:
		b.Append(arrow.Time64(binary.LittleEndian.Uint64(v)))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(binary.LittleEndian.Uint64(v)))
	case *array.DurationBuilder:
		b.Append(arrow.Duration(binary.LittleEndian.Uint64(v)))
	case *array.MonthIntervalBuilder:
		b.Append(arrow.MonthInterval(binary.LittleEndian.Uint32(v)))
	case *array.DayTimeIntervalBuilder:
		b.Append(arrow.DayTimeInterval{Days: int32(binary.LittleEndian.Uint32(v)), Milliseconds: int32(binary.LittleEndian.Uint32(v[4:]))})
	case *array.MonthDayNanoIntervalBuilder:
		b.Append(arrow.MonthDayNanoInterval{Months: int32(binary.LittleEndian.Uint32(v)), Days: int32(binary.LittleEndian.Uint32(v[4:])), Nanoseconds: int64(binary.LittleEndian.Uint64(v[8:]))})
	case *array.Decimal128Builder:
		b.Append(decimal128.New(int64(binary.LittleEndian.Uint64(v[8:])), binary.LittleEndian.Uint64(v)))
	default:
		return p, fmt.Errorf("%s: %w", b.Type(), ErrType)
	}
	return p, nil
}
