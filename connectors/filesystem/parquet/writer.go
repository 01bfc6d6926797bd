package parquet

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/tablerun/tablerun/core/types"
)

// CheckTypes rejects the columns Flink's Parquet format cannot hold.
func CheckTypes(schema types.Schema) error {
	for _, f := range schema {
		if err := checkType(f.Type); err != nil {
			return fmt.Errorf("not supported yet: parquet format for column %s of type %s: %w", f.Name, f.Type, err)
		}
	}
	return nil
}

func checkType(t types.Type) error {
	switch t.Kind {
	case types.Null, types.IntervalDayTime, types.IntervalYearMonth:
		return fmt.Errorf("Unsupported type: %s", t)
	case types.Array:
		return checkType(*t.Elem)
	case types.Map:
		if err := checkType(*t.Elem); err != nil {
			return err
		}
		return checkType(*t.Value)
	case types.Row:
		for _, f := range t.Fields {
			if err := checkType(f.Type); err != nil {
				return err
			}
		}
	}
	return nil
}

// optional returns dt with every nested field nullable: Flink writes
// every Parquet field OPTIONAL (map keys stay required, as Parquet wants).
func optional(dt arrow.DataType) arrow.DataType {
	switch d := dt.(type) {
	case *arrow.StructType:
		fs := make([]arrow.Field, d.NumFields())
		for i, f := range d.Fields() {
			fs[i] = arrow.Field{Name: f.Name, Type: optional(f.Type), Nullable: true}
		}
		return arrow.StructOf(fs...)
	case *arrow.ListType:
		return arrow.ListOfField(arrow.Field{Name: d.ElemField().Name, Type: optional(d.Elem()), Nullable: true})
	case *arrow.MapType:
		m := arrow.MapOf(optional(d.KeyType()), optional(d.ItemType()))
		m.SetItemNullable(true)
		return m
	}
	return dt
}

// Relabel gives data the type dt, which has the same layout (optional).
func Relabel(data arrow.ArrayData, dt arrow.DataType) arrow.ArrayData {
	var children []arrow.ArrayData
	switch d := dt.(type) {
	case *arrow.StructType:
		for i, c := range data.Children() {
			children = append(children, Relabel(c, d.Field(i).Type))
		}
	case *arrow.ListType:
		children = []arrow.ArrayData{Relabel(data.Children()[0], d.Elem())}
	case *arrow.MapType:
		children = []arrow.ArrayData{Relabel(data.Children()[0], d.Elem())}
	default:
		data.Retain()
		return data
	}
	out := array.NewData(dt, data.Len(), data.Buffers(), children, data.NullN(), data.Offset())
	for _, c := range children {
		c.Release()
	}
	return out
}

// Writer writes record batches of a table's schema into one Parquet file.
// Rows are buffered into a row group until it holds Options.BlockSize
// bytes (encoded); Close writes the last row group and the footer.
type Writer struct {
	fw     *pqarrow.FileWriter
	schema *arrow.Schema // the file's arrow schema (all optional)
	types  types.Schema
	opts   Options
	mem    memory.Allocator
	rows   int
	// buffered estimates the bytes of the row group in progress: the
	// Arrow size of the rows written into it (pages are encoded, and
	// counted by arrow-go, only when they fill up).
	buffered int64
	// full: the row group in progress reached the block size; the next
	// Write starts another (not Close: no empty last group).
	full bool
}

// NewWriter starts a Parquet file on w for rows of schema.
func NewWriter(w io.Writer, schema types.Schema, opts Options) (*Writer, error) {
	if err := CheckTypes(schema); err != nil {
		return nil, err
	}
	as, err := types.ArrowSchema(schema)
	if err != nil {
		return nil, err
	}
	fs := make([]arrow.Field, len(as.Fields()))
	for i, f := range as.Fields() {
		fs[i] = arrow.Field{Name: f.Name, Type: optional(f.Type), Nullable: true}
	}
	fileSchema := arrow.NewSchema(fs, nil)
	aprops := []pqarrow.WriterOption{pqarrow.WithTruncatedTimestamps(true)}
	if opts.Int64Timestamp {
		aprops = append(aprops, pqarrow.WithCoerceTimestamps(opts.TimeUnit))
	} else {
		aprops = append(aprops, pqarrow.WithCoerceTimestamps(arrow.Nanosecond), pqarrow.WithDeprecatedInt96Timestamps(true))
	}
	fw, err := pqarrow.NewFileWriter(fileSchema, w, opts.writerProperties(), pqarrow.NewArrowWriterProperties(aprops...))
	if err != nil {
		return nil, fmt.Errorf("parquet writer: %w", err)
	}
	return &Writer{fw: fw, schema: fileSchema, types: schema, opts: opts, mem: memory.DefaultAllocator}, nil
}

// Write buffers a batch into the row group in progress, starting a new
// row group when it has reached the block size.
func (w *Writer) Write(rec arrow.RecordBatch) error {
	if rec.NumRows() == 0 {
		return nil
	}
	cols := make([]arrow.Array, rec.NumCols())
	for i := range cols {
		c, err := w.toFile(i, rec.Column(i))
		if err != nil {
			for _, d := range cols[:i] {
				d.Release()
			}
			return err
		}
		cols[i] = c
	}
	out := array.NewRecordBatch(w.schema, cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	defer out.Release()
	if w.full {
		if err := w.fw.NewBufferedRowGroupChecked(); err != nil {
			return fmt.Errorf("parquet writer: %w", err)
		}
		w.full, w.buffered = false, 0
	}
	if err := w.fw.WriteBuffered(out); err != nil {
		return fmt.Errorf("parquet writer: %w", err)
	}
	w.rows += int(rec.NumRows())
	w.buffered += approxSize(rec)
	w.full = w.rowGroupSize() >= w.opts.BlockSize
	return nil
}

func (w *Writer) rowGroupSize() int64 {
	return max(w.fw.RowGroupTotalCompressedBytes(), w.buffered)
}

// approxSize is the Arrow size of rec's rows (a slice counts its share of
// the buffers).
func approxSize(rec arrow.RecordBatch) int64 {
	if rec.NumCols() == 0 {
		return 0
	}
	var size int64
	for _, c := range rec.Columns() {
		size += dataSize(c.Data())
	}
	c := rec.Column(0).Data()
	if full := int64(c.Offset() + c.Len()); full > rec.NumRows() && full > 0 {
		size = size * rec.NumRows() / full
	}
	return size
}

// toFile converts column i to the file's representation: nested fields
// optional, and TIMESTAMP values (wall clock) to the instants INT96 holds
// when 'parquet.utc-timezone' is false.
func (w *Writer) toFile(i int, col arrow.Array) (arrow.Array, error) {
	t := w.types[i].Type
	if !w.opts.Int64Timestamp || w.opts.TimeUnit == arrow.Nanosecond {
		if err := checkNanoRange(col); err != nil {
			return nil, fmt.Errorf("column %s: %w", w.types[i].Name, err)
		}
	}
	if t.Kind == types.Timestamp && !w.opts.UTCTimezone && !w.opts.Int64Timestamp && w.opts.loc() != nil {
		return shiftTimestamps(w.mem, col, w.opts.loc(), false), nil
	}
	ft := w.schema.Field(i).Type
	if arrow.TypeEqual(ft, col.DataType()) {
		col.Retain()
		return col, nil
	}
	d := Relabel(col.Data(), ft)
	defer d.Release()
	return array.MakeFromData(d), nil
}

// Flush does nothing: a Parquet file is complete only when closed.
func (w *Writer) Flush() error { return nil }

// Size is the bytes written so far plus the encoded size of the row group
// in progress: what the file will roughly hold if closed now.
func (w *Writer) Size() int64 {
	return w.fw.TotalBytesWritten() + w.rowGroupSize()
}

// Close writes the row group in progress and the footer (not the
// underlying writer).
func (w *Writer) Close() error {
	if err := w.fw.Close(); err != nil {
		return fmt.Errorf("parquet writer: %w", err)
	}
	return nil
}

func dataSize(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataSize(c)
	}
	return n
}
