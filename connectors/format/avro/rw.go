package avro

import (
	"fmt"
	"io"
	"math/big"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	havro "github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"

	"github.com/tablerun/tablerun/core/types"
)

// CheckTypes rejects the columns the Avro format cannot hold.
func CheckTypes(schema types.Schema, opts Options) error {
	_, err := Schema(schema, opts)
	return err
}

// Writer writes rows into one Avro object container file.
type Writer struct {
	enc    *ocf.Encoder
	types  types.Schema
	schema *havro.RecordSchema
	cw     *countWriter
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// NewWriter starts an object container file on w.
func NewWriter(w io.Writer, schema types.Schema, opts Options) (*Writer, error) {
	js, err := Schema(schema, opts)
	if err != nil {
		return nil, err
	}
	s, err := havro.Parse(js)
	if err != nil {
		return nil, fmt.Errorf("avro schema: %w", err)
	}
	cw := &countWriter{w: w}
	enc, err := ocf.NewEncoderWithSchema(s, cw, ocf.WithCodec(opts.Codec))
	if err != nil {
		return nil, fmt.Errorf("avro writer: %w", err)
	}
	return &Writer{enc: enc, types: schema, schema: s.(*havro.RecordSchema), cw: cw}, nil
}

// Write appends the rows of a batch.
func (w *Writer) Write(rec arrow.RecordBatch) error {
	rows := types.RecordRows(rec, w.types)
	for _, row := range rows {
		m := make(map[string]any, len(row))
		for i, f := range w.schema.Fields() {
			v, err := toAvro(row[i], w.types[i].Type, f.Type())
			if err != nil {
				return fmt.Errorf("column %s: %w", w.types[i].Name, err)
			}
			m[f.Name()] = v
		}
		if err := w.enc.Encode(m); err != nil {
			return fmt.Errorf("avro writer: %w", err)
		}
	}
	return nil
}

// Flush does nothing: blocks are written as they fill and on Close.
func (w *Writer) Flush() error { return nil }

// Size is the bytes written so far (the block in progress not counted
// until it is flushed).
func (w *Writer) Size() int64 { return w.cw.n }

// Close writes the last block.
func (w *Writer) Close() error {
	if err := w.enc.Close(); err != nil {
		return fmt.Errorf("avro writer: %w", err)
	}
	return nil
}

// branchName is the key hamba/avro uses for a union branch.
func branchName(s havro.Schema) string {
	if n, ok := s.(havro.NamedSchema); ok {
		return n.FullName()
	}
	if l, ok := s.(havro.LogicalTypeSchema); ok && l.Logical() != nil {
		return string(s.Type()) + "." + string(l.Logical().Type())
	}
	return string(s.Type())
}

// nonNull returns the non-null branch of a nullable union, or s.
func nonNull(s havro.Schema) (havro.Schema, bool) {
	u, ok := s.(*havro.UnionSchema)
	if !ok {
		return s, false
	}
	for _, b := range u.Types() {
		if b.Type() != havro.Null {
			return b, true
		}
	}
	return s, true
}

// toAvro converts a canonical value of t to hamba/avro's form for schema s.
func toAvro(v any, t types.Type, s havro.Schema) (any, error) {
	if v == nil {
		return nil, nil
	}
	inner, union := nonNull(s)
	out, err := toAvroValue(v, t, inner)
	if err != nil || !union {
		return out, err
	}
	return map[string]any{branchName(inner): out}, nil
}

func toAvroValue(v any, t types.Type, s havro.Schema) (any, error) {
	switch t.Kind {
	case types.TinyInt:
		return int(v.(int8)), nil
	case types.SmallInt:
		return int(v.(int16)), nil
	case types.Int:
		return int(v.(int32)), nil
	case types.BigInt:
		return v.(int64), nil
	case types.Decimal:
		n := v.(decimal128.Num)
		return new(big.Rat).SetFrac(n.BigInt(), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil)), nil
	case types.Date:
		return time.Unix(int64(v.(int32))*86400, 0).UTC(), nil
	case types.Time:
		return time.Duration(v.(int32)) * time.Millisecond, nil
	case types.Timestamp, types.TimestampLTZ:
		x := v.(int64)
		if types.IsNanoTimestamp(t) {
			return time.Unix(0, x).UTC(), nil
		}
		return time.UnixMicro(x).UTC(), nil
	case types.Array:
		items := s.(*havro.ArraySchema).Items()
		in := v.([]any)
		out := make([]any, len(in))
		for i, e := range in {
			x, err := toAvro(e, *t.Elem, items)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case types.Map:
		vs := s.(*havro.MapSchema).Values()
		m := v.(*types.MapValue)
		out := make(map[string]any, len(m.Keys))
		for i, k := range m.Keys {
			key, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("not supported yet: a NULL map key in the avro format")
			}
			x, err := toAvro(m.Values[i], *t.Value, vs)
			if err != nil {
				return nil, err
			}
			out[key] = x
		}
		return out, nil
	case types.Row:
		rs := s.(*havro.RecordSchema)
		in := v.([]any)
		out := make(map[string]any, len(in))
		for i, f := range rs.Fields() {
			x, err := toAvro(in[i], t.Fields[i].Type, f.Type())
			if err != nil {
				return nil, err
			}
			out[f.Name()] = x
		}
		return out, nil
	}
	return v, nil // boolean, float, double, string, bytes
}

// Reader reads the projected columns of one object container file.
type Reader struct {
	name   string
	dec    *ocf.Decoder
	fields []havro.Schema // per output column: the file's field schema, nil: missing
	fnames []string
	out    types.Schema
	batch  int
	mem    memory.Allocator
}

// NewReader opens an object container file for a scan of the projected
// columns (nil: all) of physical.
func NewReader(r io.Reader, name string, physical types.Schema, proj []int, batchSize int) (*Reader, error) {
	dec, err := ocf.NewDecoder(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	rs, ok := dec.Schema().(*havro.RecordSchema)
	if !ok {
		return nil, fmt.Errorf("reading %s: the file's schema is %s, not a record", name, dec.Schema().Type())
	}
	if proj == nil {
		proj = make([]int, len(physical))
		for i := range proj {
			proj[i] = i
		}
	}
	if batchSize <= 0 {
		batchSize = 1024
	}
	rd := &Reader{name: name, dec: dec, batch: batchSize, mem: memory.DefaultAllocator}
	for _, p := range proj {
		f := physical[p]
		rd.out = append(rd.out, f)
		var fs havro.Schema
		fname := f.Name
		for _, af := range rs.Fields() {
			if af.Name() == f.Name || (fs == nil && strings.EqualFold(af.Name(), f.Name)) {
				fs, fname = af.Type(), af.Name()
			}
		}
		rd.fields = append(rd.fields, fs)
		rd.fnames = append(rd.fnames, fname)
	}
	return rd, nil
}

// Next returns the next batch, io.EOF at the end.
func (rd *Reader) Next() (arrow.RecordBatch, error) {
	var rows [][]any
	for len(rows) < rd.batch && rd.dec.HasNext() {
		var m map[string]any
		if err := rd.dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("reading %s: %w", rd.name, err)
		}
		row := make([]any, len(rd.out))
		for i, f := range rd.out {
			if rd.fields[i] == nil {
				continue
			}
			v, err := fromAvro(m[rd.fnames[i]], f.Type, rd.fields[i])
			if err != nil {
				return nil, fmt.Errorf("reading %s, column %s: %w", rd.name, f.Name, err)
			}
			row[i] = v
		}
		rows = append(rows, row)
	}
	if err := rd.dec.Error(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", rd.name, err)
	}
	if len(rows) == 0 {
		return nil, io.EOF
	}
	rec, err := types.BuildRecord(rd.mem, rd.out, rows)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", rd.name, err)
	}
	return rec, nil
}

// fromAvro converts a value hamba/avro decoded for schema s to the
// canonical value of t.
func fromAvro(v any, t types.Type, s havro.Schema) (any, error) {
	if v == nil {
		return nil, nil
	}
	inner, union := nonNull(s)
	if union {
		if m, ok := v.(map[string]any); ok && len(m) == 1 {
			if x, ok := m[branchName(inner)]; ok {
				v = x
			}
		}
	}
	bad := func() (any, error) {
		return nil, fmt.Errorf("cannot read Avro %s value %v as %s", branchName(inner), v, t)
	}
	asInt := func() (int64, bool) {
		switch x := v.(type) {
		case int:
			return int64(x), true
		case int32:
			return int64(x), true
		case int64:
			return x, true
		}
		return 0, false
	}
	switch t.Kind {
	case types.Boolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		n, ok := asInt()
		if !ok {
			return bad()
		}
		bounds := map[types.Kind][2]int64{types.TinyInt: {-128, 127}, types.SmallInt: {-32768, 32767},
			types.Int: {-1 << 31, 1<<31 - 1}, types.BigInt: {-1 << 63, 1<<63 - 1}}[t.Kind]
		min, max := bounds[0], bounds[1]
		if n < min || n > max {
			return nil, fmt.Errorf("the Avro value %d is out of the range of %s", n, t)
		}
		switch t.Kind {
		case types.TinyInt:
			return int8(n), nil
		case types.SmallInt:
			return int16(n), nil
		case types.Int:
			return int32(n), nil
		}
		return n, nil
	case types.Float:
		switch x := v.(type) {
		case float32:
			return x, nil
		}
	case types.Double:
		switch x := v.(type) {
		case float64:
			return x, nil
		case float32:
			return float64(x), nil
		}
	case types.Char, types.VarChar:
		if x, ok := v.(string); ok {
			return x, nil
		}
	case types.Binary, types.VarBinary:
		switch x := v.(type) {
		case []byte:
			return x, nil
		case string:
			return []byte(x), nil
		}
	case types.Decimal:
		r, ok := v.(*big.Rat)
		if !ok {
			return bad()
		}
		scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil)))
		if !scaled.IsInt() {
			return nil, fmt.Errorf("the Avro decimal %s has more than %d fraction digits", r.FloatString(20), t.Scale)
		}
		n := decimal128.FromBigInt(scaled.Num())
		if !n.FitsInPrecision(int32(t.Precision)) {
			return nil, fmt.Errorf("the Avro decimal %s does not fit %s", r.FloatString(t.Scale), t)
		}
		return n, nil
	case types.Date:
		if x, ok := v.(time.Time); ok {
			return int32(floorDiv(x.Unix(), 86400)), nil
		}
	case types.Time:
		if x, ok := v.(time.Duration); ok {
			return int32(x / time.Millisecond), nil
		}
	case types.Timestamp, types.TimestampLTZ:
		if x, ok := v.(time.Time); ok {
			if types.IsNanoTimestamp(t) {
				return x.UnixNano(), nil
			}
			return x.UnixMicro(), nil
		}
	case types.Array:
		as, ok := inner.(*havro.ArraySchema)
		in, ok2 := v.([]any)
		if !ok || !ok2 {
			return bad()
		}
		out := make([]any, len(in))
		for i, e := range in {
			x, err := fromAvro(e, *t.Elem, as.Items())
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case types.Map:
		ms, ok := inner.(*havro.MapSchema)
		in, ok2 := v.(map[string]any)
		if !ok || !ok2 {
			return bad()
		}
		out := &types.MapValue{}
		for k, e := range in {
			x, err := fromAvro(e, *t.Value, ms.Values())
			if err != nil {
				return nil, err
			}
			out.Keys = append(out.Keys, k)
			out.Values = append(out.Values, x)
		}
		sortMap(out)
		return out, nil
	case types.Row:
		rs, ok := inner.(*havro.RecordSchema)
		in, ok2 := v.(map[string]any)
		if !ok || !ok2 {
			return bad()
		}
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			for _, af := range rs.Fields() {
				if af.Name() == f.Name || strings.EqualFold(af.Name(), f.Name) {
					x, err := fromAvro(in[af.Name()], f.Type, af.Type())
					if err != nil {
						return nil, err
					}
					out[i] = x
					break
				}
			}
		}
		return out, nil
	}
	return bad()
}

// sortMap orders a map's entries by key: Avro maps have no order, and a
// stable one keeps results reproducible.
func sortMap(m *types.MapValue) {
	idx := make([]int, len(m.Keys))
	for i := range idx {
		idx[i] = i
	}
	keys := m.Keys
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && keys[idx[j]].(string) < keys[idx[j-1]].(string); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	k2, v2 := make([]any, len(idx)), make([]any, len(idx))
	for i, j := range idx {
		k2[i], v2[i] = m.Keys[j], m.Values[j]
	}
	m.Keys, m.Values = k2, v2
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
