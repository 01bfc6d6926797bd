package json

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/connectors/format/textconv"
	"github.com/tablerun/tablerun/core/types"
)

// rowDecoder converts the members of one JSON object into a row of a
// schema, matching fields by name (case-sensitive, as Flink). It works in
// two steps so that a failing message appends nothing: parse converts the
// object's members into typed cells (strings point into the message or
// the decoder's arena), commit appends the cells to Arrow builders with
// typed appends. Scalar columns of the common types are converted from
// the bytes directly; nested and rare types go through encoding/json and
// ConvertValue.
type rowDecoder struct {
	fields        types.Schema
	kinds         []colKind
	index         map[string]int
	dups          map[int][]int // projection repeating a field: extra positions
	style         textconv.TimestampStyle
	failOnMissing bool
	spans         []span
	arena         []byte
	key           []byte
	visit         func(key []byte, escaped bool, val span) error // setSpan, made once
}

type colKind uint8

const (
	kGeneric colKind = iota
	kBool
	kInt8
	kInt16
	kInt32
	kInt64
	kFloat32
	kFloat64
	kString
	kDecimal
	kDate
	kTimestamp
	kTimestampLTZ
)

// cell is one converted value.
type cell struct {
	null bool
	b    bool
	i    int64
	f    float64
	s    []byte
	n    decimal128.Num
	v    any
}

func newRowDecoder(fields types.Schema, style textconv.TimestampStyle, failOnMissing bool) *rowDecoder {
	d := &rowDecoder{fields: fields, index: map[string]int{}, style: style, failOnMissing: failOnMissing, spans: make([]span, len(fields))}
	d.visit = func(key []byte, escaped bool, val span) error {
		d.setSpan(key, escaped, val)
		return nil
	}
	for i, f := range fields {
		if j, ok := d.index[f.Name]; ok {
			if d.dups == nil {
				d.dups = map[int][]int{}
			}
			d.dups[j] = append(d.dups[j], i)
		} else {
			d.index[f.Name] = i
		}
		d.kinds = append(d.kinds, kindOf(f.Type))
	}
	return d
}

func kindOf(t types.Type) colKind {
	switch t.Kind {
	case types.Boolean:
		return kBool
	case types.TinyInt:
		return kInt8
	case types.SmallInt:
		return kInt16
	case types.Int:
		return kInt32
	case types.BigInt:
		return kInt64
	case types.Float:
		return kFloat32
	case types.Double:
		return kFloat64
	case types.Char, types.VarChar:
		return kString
	case types.Decimal:
		return kDecimal
	case types.Date:
		return kDate
	case types.Timestamp:
		return kTimestamp
	case types.TimestampLTZ:
		return kTimestampLTZ
	}
	return kGeneric
}

// reset starts a new message: the arena's strings of the previous one are
// no longer needed.
func (d *rowDecoder) reset() { d.arena = d.arena[:0] }

// parse converts the object at sp of msg into cells (len(cells) ==
// len(d.fields)).
func (d *rowDecoder) parse(msg []byte, sp span, cells []cell) error {
	for i := range d.spans {
		d.spans[i] = absent
	}
	if err := eachMember(msg, sp, d.visit); err != nil {
		return err
	}
	return d.convert(msg, cells)
}

// setSpan records the value span of the member named by the key literal.
func (d *rowDecoder) setSpan(key []byte, escaped bool, val span) {
	name := key[1 : len(key)-1]
	if escaped {
		d.key = unescape(d.key[:0], key)
		name = d.key
	}
	if i, ok := d.index[string(name)]; ok {
		d.spans[i] = val
		for _, j := range d.dups[i] {
			d.spans[j] = val
		}
	}
}

// convert turns the recorded spans into cells.
func (d *rowDecoder) convert(msg []byte, cells []cell) error {
	for i := range d.fields {
		sp := d.spans[i]
		if !sp.ok() {
			if d.failOnMissing {
				return fmt.Errorf("Could not find field with name '%s'.", d.fields[i].Name)
			}
			cells[i] = cell{null: true}
			continue
		}
		if err := d.convertValue(msg[sp.start:sp.end], i, &cells[i]); err != nil {
			return err
		}
	}
	return nil
}

// text returns the bytes a scalar conversion reads: a string's content
// (unescaped into the arena when needed) or a number's or literal's text.
func (d *rowDecoder) text(raw []byte) []byte {
	if raw[0] != '"' {
		return raw
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1]
	}
	start := len(d.arena)
	d.arena = unescape(d.arena, raw)
	return d.arena[start:len(d.arena):len(d.arena)]
}

func (d *rowDecoder) convertValue(raw []byte, i int, c *cell) error {
	*c = cell{}
	if raw[0] == 'n' { // null
		c.null = true
		return nil
	}
	t := d.fields[i].Type
	isNumber := raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')
	switch d.kinds[i] {
	case kBool:
		switch raw[0] {
		case 't':
			c.b = true
		case 'f':
		case '"':
			c.b = textconv.ParseBool(d.text(raw))
		case '{', '[':
			return fmt.Errorf("cannot convert a JSON %s to %s", nodeName(raw), t)
		}
		return nil
	case kInt8, kInt16, kInt32, kInt64:
		if raw[0] == '{' || raw[0] == '[' {
			return fmt.Errorf("cannot convert a JSON %s to %s", nodeName(raw), t)
		}
		text := d.text(raw)
		if isNumber && bytes.ContainsAny(text, ".eE") {
			// Jackson's asInt/asLong truncate a fractional number.
			if f, err := strconv.ParseFloat(string(text), 64); err == nil {
				text = strconv.AppendInt(nil, int64(f), 10)
			}
		}
		var lo, hi int64
		switch d.kinds[i] {
		case kInt8:
			lo, hi = math.MinInt8, math.MaxInt8
		case kInt16:
			lo, hi = math.MinInt16, math.MaxInt16
		case kInt32:
			lo, hi = math.MinInt32, math.MaxInt32
		default:
			v, ok := textconv.ParseInt64(text)
			if !ok {
				_, err := textconv.ParseScalar(text, t, d.style)
				return err
			}
			c.i = v
			return nil
		}
		v, err := textconv.ParseIntRange(text, lo, hi)
		c.i = v
		return err
	case kFloat32, kFloat64:
		if raw[0] == '{' || raw[0] == '[' {
			return fmt.Errorf("cannot convert a JSON %s to %s", nodeName(raw), t)
		}
		bits := 64
		if d.kinds[i] == kFloat32 {
			bits = 32
		}
		f, err := textconv.ParseFloat(d.text(raw), bits)
		c.f = f
		return err
	case kString:
		switch raw[0] {
		case '"':
			c.s = d.text(raw)
		case '{', '[':
			// A nested value as a string: its compact JSON text.
			start := len(d.arena)
			var buf bytes.Buffer
			if err := stdjson.Compact(&buf, raw); err != nil {
				return err
			}
			d.arena = append(d.arena, buf.Bytes()...)
			c.s = d.arena[start:len(d.arena):len(d.arena)]
		default:
			c.s = raw
		}
		return nil
	case kDecimal:
		if raw[0] == '{' || raw[0] == '[' || raw[0] == 't' || raw[0] == 'f' {
			return fmt.Errorf("cannot convert a JSON %s to %s", nodeName(raw), t)
		}
		n, ok, err := textconv.ParseDecimal(d.text(raw), t.Precision, t.Scale)
		if err != nil {
			return err
		}
		c.null, c.n = !ok, n
		return nil
	case kDate:
		if raw[0] == '"' {
			v, err := textconv.ParseDate(d.text(raw))
			c.i = int64(v)
			return err
		}
	case kTimestamp, kTimestampLTZ:
		if raw[0] == '"' {
			v, err := textconv.ParseTimestampOf(d.text(raw), d.style, d.kinds[i] == kTimestampLTZ, t)
			c.i = v
			return err
		}
	}
	// Nested and rare types: a decoded value converted as Flink's json
	// format converts a node.
	dec := stdjson.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return err
	}
	v, err := ConvertValue(x, t, d.style, d.failOnMissing)
	if err != nil {
		return err
	}
	c.null, c.v = v == nil, v
	if d.kinds[i] != kGeneric && v != nil {
		// A scalar column read from a non-string node (a number as a DATE):
		// keep the converted value for the generic append.
		c.v = v
	}
	return nil
}

func nodeName(raw []byte) string {
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	}
	return "number"
}

// commit appends cells to the builders for(i), i = 0..len(fields)-1.
func (d *rowDecoder) commit(cells []cell, builder func(i int) array.Builder) error {
	for i := range d.fields {
		c := &cells[i]
		b := builder(i)
		if c.null {
			b.AppendNull()
			continue
		}
		if c.v != nil {
			if err := types.AppendValue(b, c.v, d.fields[i].Type); err != nil {
				return err
			}
			continue
		}
		switch d.kinds[i] {
		case kBool:
			b.(*array.BooleanBuilder).Append(c.b)
		case kInt8:
			b.(*array.Int8Builder).Append(int8(c.i))
		case kInt16:
			b.(*array.Int16Builder).Append(int16(c.i))
		case kInt32:
			b.(*array.Int32Builder).Append(int32(c.i))
		case kInt64:
			b.(*array.Int64Builder).Append(c.i)
		case kFloat32:
			b.(*array.Float32Builder).Append(float32(c.f))
		case kFloat64:
			b.(*array.Float64Builder).Append(c.f)
		case kString:
			b.(*array.StringBuilder).BinaryBuilder.Append(c.s)
		case kDecimal:
			b.(*array.Decimal128Builder).Append(c.n)
		case kDate:
			b.(*array.Date32Builder).Append(arrow.Date32(c.i))
		case kTimestamp, kTimestampLTZ:
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(c.i))
		default:
			b.AppendNull()
		}
	}
	return nil
}
