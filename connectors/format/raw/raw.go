// Package raw is Flink's 'raw' format: the message is the value of the
// table's single physical column — a string in 'raw.charset', the bytes
// themselves, or a number or boolean in 'raw.endianness' byte order.
package raw

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/connectors/format"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
)

// Factory is the 'raw' format.
type Factory struct{}

// Identifier implements format.Factory.
func (Factory) Identifier() string { return "raw" }

// Options implements format.Factory.
func (Factory) Options() []string { return []string{"charset", "endianness"} }

// charsets are the charsets the format reads and writes (Java names,
// matched case-insensitively).
var charsets = map[string]string{
	"UTF-8": "UTF-8", "UTF8": "UTF-8", "US-ASCII": "US-ASCII", "ASCII": "US-ASCII",
	"ISO-8859-1": "ISO-8859-1", "ISO8859_1": "ISO-8859-1", "LATIN1": "ISO-8859-1",
}

// Create implements format.Factory.
func (Factory) Create(opts map[string]string, prefix string) (format.Format, error) {
	f := rawFormat{charset: "UTF-8", order: binary.BigEndian}
	if v, ok := opts["charset"]; ok {
		cs, ok := charsets[strings.ToUpper(strings.TrimSpace(v))]
		if !ok {
			return nil, fmt.Errorf("Unsupported '%scharset' name: %s.", prefix, v)
		}
		f.charset = cs
	}
	if v, ok := opts["endianness"]; ok {
		switch {
		case strings.EqualFold(v, "big-endian"):
		case strings.EqualFold(v, "little-endian"):
			f.order = binary.LittleEndian
		default:
			return nil, fmt.Errorf("Unsupported endianness name: %s. Valid values of '%sendianness' option are 'big-endian' and 'little-endian'.", v, prefix)
		}
	}
	return f, nil
}

type rawFormat struct {
	charset string
	order   byteOrder
}

type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

func (rawFormat) DecodeMode() changelog.Mode     { return changelog.InsertOnly }
func (rawFormat) EncodeMode() changelog.Mode     { return changelog.InsertOnly }
func (rawFormat) Metadata() []format.MetadataKey { return nil }

// single checks Flink's rules: one physical column of a supported type.
func single(schema types.Schema) (types.Type, error) {
	if len(schema) != 1 {
		parts := make([]string, len(schema))
		for i, f := range schema {
			parts[i] = fmt.Sprintf("`%s` %s", f.Name, f.Type)
		}
		return types.Type{}, fmt.Errorf("The 'raw' format only supports single physical column. However the defined schema contains multiple physical columns: [%s]", strings.Join(parts, ", "))
	}
	t := schema[0].Type
	switch t.Kind {
	case types.Char, types.VarChar, types.Binary, types.VarBinary, types.Boolean, types.TinyInt,
		types.SmallInt, types.Int, types.BigInt, types.Float, types.Double:
		return t, nil
	}
	return t, fmt.Errorf("The 'raw' format doesn't supports '%s' as column type.", t)
}

func (f rawFormat) NewDecoder(physical types.Schema, projection []int, metadata []string) (format.Decoder, error) {
	t, err := single(physical)
	if err != nil {
		return nil, err
	}
	out, err := format.ProjectedSchema(physical, projection, metadata, nil)
	if err != nil {
		return nil, err
	}
	return &decoder{f: f, t: t, out: out}, nil
}

func (f rawFormat) NewEncoder(schema types.Schema) (format.Encoder, error) {
	t, err := single(schema)
	if err != nil {
		return nil, err
	}
	return &encoder{f: f, t: t}, nil
}

type decoder struct {
	f   rawFormat
	t   types.Type
	out types.Schema
	buf []byte
}

func (d *decoder) Schema() types.Schema { return d.out }

// Decode appends the message's value; a nil message (a Kafka record
// without a value) is a NULL, as in Flink.
func (d *decoder) Decode(msg []byte, out *format.Rows) error {
	if len(d.out) == 0 { // nothing projected
		out.Commit(changelog.Insert)
		return nil
	}
	b := out.Builder(0)
	if msg == nil {
		b.AppendNull()
		out.Commit(changelog.Insert)
		return nil
	}
	size := map[types.Kind]int{types.Boolean: 1, types.TinyInt: 1, types.SmallInt: 2, types.Int: 4, types.BigInt: 8, types.Float: 4, types.Double: 8}[d.t.Kind]
	if size > 0 && len(msg) != size {
		return &format.Error{Summary: fmt.Sprintf("Failed to deserialize raw message of %d bytes.", len(msg)),
			Err: fmt.Errorf("a %s value is %d bytes long", d.t, size)}
	}
	o := d.f.order
	switch d.t.Kind {
	case types.Char, types.VarChar:
		b.(*array.StringBuilder).BinaryBuilder.Append(d.decodeString(msg))
	case types.Binary, types.VarBinary:
		b.(*array.BinaryBuilder).Append(msg)
	case types.Boolean:
		b.(*array.BooleanBuilder).Append(msg[0] != 0)
	case types.TinyInt:
		b.(*array.Int8Builder).Append(int8(msg[0]))
	case types.SmallInt:
		b.(*array.Int16Builder).Append(int16(o.Uint16(msg)))
	case types.Int:
		b.(*array.Int32Builder).Append(int32(o.Uint32(msg)))
	case types.BigInt:
		b.(*array.Int64Builder).Append(int64(o.Uint64(msg)))
	case types.Float:
		b.(*array.Float32Builder).Append(math.Float32frombits(o.Uint32(msg)))
	case types.Double:
		b.(*array.Float64Builder).Append(math.Float64frombits(o.Uint64(msg)))
	}
	out.Commit(changelog.Insert)
	return nil
}

// decodeString converts msg from the charset to UTF-8 (invalid bytes
// become U+FFFD, as Java's decoder replaces them).
func (d *decoder) decodeString(msg []byte) []byte {
	d.buf = d.buf[:0]
	switch d.f.charset {
	case "ISO-8859-1":
		for _, c := range msg {
			d.buf = utf8.AppendRune(d.buf, rune(c))
		}
		return d.buf
	case "US-ASCII":
		for _, c := range msg {
			if c >= 0x80 {
				d.buf = utf8.AppendRune(d.buf, utf8.RuneError)
			} else {
				d.buf = append(d.buf, c)
			}
		}
		return d.buf
	}
	if utf8.Valid(msg) {
		return msg
	}
	for len(msg) > 0 {
		r, n := utf8.DecodeRune(msg)
		d.buf = utf8.AppendRune(d.buf, r)
		msg = msg[n:]
	}
	return d.buf
}

type encoder struct {
	f rawFormat
	t types.Type
}

// Encode appends the column's value; a NULL gives a nil message.
func (e *encoder) Encode(dst []byte, rec arrow.RecordBatch, r int, _ changelog.RowKind) ([]byte, error) {
	col := rec.Column(0)
	if col.IsNull(r) {
		return nil, nil
	}
	o := e.f.order
	switch a := col.(type) {
	case *array.String:
		s := a.Value(r)
		switch e.f.charset {
		case "ISO-8859-1", "US-ASCII":
			max := rune(0xFF)
			if e.f.charset == "US-ASCII" {
				max = 0x7F
			}
			for _, c := range s {
				if c > max {
					c = '?'
				}
				dst = append(dst, byte(c))
			}
			return dst, nil
		}
		return append(dst, s...), nil
	case *array.Binary:
		return append(dst, a.Value(r)...), nil
	case *array.Boolean:
		if a.Value(r) {
			return append(dst, 1), nil
		}
		return append(dst, 0), nil
	case *array.Int8:
		return append(dst, byte(a.Value(r))), nil
	case *array.Int16:
		return o.AppendUint16(dst, uint16(a.Value(r))), nil
	case *array.Int32:
		return o.AppendUint32(dst, uint32(a.Value(r))), nil
	case *array.Int64:
		return o.AppendUint64(dst, uint64(a.Value(r))), nil
	case *array.Float32:
		return o.AppendUint32(dst, math.Float32bits(a.Value(r))), nil
	case *array.Float64:
		return o.AppendUint64(dst, math.Float64bits(a.Value(r))), nil
	}
	return nil, fmt.Errorf("The 'raw' format doesn't supports '%s' as column type.", e.t)
}

var (
	_ format.Factory = Factory{}
	_ format.Decoder = (*decoder)(nil)
	_ format.Encoder = (*encoder)(nil)
)
