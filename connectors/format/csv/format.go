package csv

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/connectors/format"
	"github.com/tablerun/tablerun/connectors/format/textconv"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/core/types"
)

// optionKeys are the 'csv' format's keys (Flink's CsvFormatOptions).
var optionKeys = []string{
	"allow-comments", "array-element-delimiter", "disable-quote-character", "escape-character",
	"field-delimiter", "ignore-parse-errors", "null-literal", "quote-character",
	"write-bigdecimal-in-scientific-notation",
}

// OptionKeys are the 'csv' format's keys of the filesystem connector,
// without the "csv." prefix: Flink's and tablerun's extension 'header'
// (a file's first line; a message format has none, so Factory.Options
// leaves it out).
func OptionKeys() []string { return append(append([]string(nil), optionKeys...), "header") }

// parseChar reads a single-character option; Java escapes such as "\t"
// are accepted as Flink does.
func parseChar(opts map[string]string, key, prefix string, def byte) (byte, bool, error) {
	v, ok := opts[key]
	if !ok {
		return def, false, nil
	}
	s := unescapeOption(v)
	if len(s) != 1 {
		return 0, true, fmt.Errorf("Option '%s%s' must be a string with single character, but was: %s", prefix, key, v)
	}
	return s[0], true, nil
}

func unescapeOption(s string) string {
	r := strings.NewReplacer(`\t`, "\t", `\n`, "\n", `\r`, "\r", `\\`, `\`, `\'`, "'", `\"`, `"`)
	return r.Replace(s)
}

// ParseOptions reads the csv options opts (keys without the prefix) as
// Flink's CsvFormatFactory validates them.
func ParseOptions(opts map[string]string, prefix string) (Options, error) {
	c := DefaultOptions()
	var err error
	if c.FieldDelimiter, _, err = parseChar(opts, "field-delimiter", prefix, ','); err != nil {
		return c, err
	}
	var quoteSet bool
	if c.QuoteCharacter, quoteSet, err = parseChar(opts, "quote-character", prefix, '"'); err != nil {
		return c, err
	}
	if c.DisableQuoteCharacter, err = config.BoolOption(opts, "disable-quote-character", false); err != nil {
		return c, prefixed(err, prefix)
	}
	if c.DisableQuoteCharacter && quoteSet {
		return c, errors.New("Format cannot define a quote character and disabled quote character at the same time.")
	}
	if c.EscapeCharacter, _, err = parseChar(opts, "escape-character", prefix, 0); err != nil {
		return c, err
	}
	if c.AllowComments, err = config.BoolOption(opts, "allow-comments", false); err != nil {
		return c, prefixed(err, prefix)
	}
	if c.IgnoreParseErrors, err = config.BoolOption(opts, "ignore-parse-errors", false); err != nil {
		return c, prefixed(err, prefix)
	}
	if c.Header, err = config.BoolOption(opts, "header", false); err != nil {
		return c, prefixed(err, prefix)
	}
	if c.WriteBigDecimalInScientificNotation, err = config.BoolOption(opts, "write-bigdecimal-in-scientific-notation", true); err != nil {
		return c, prefixed(err, prefix)
	}
	if v, ok := opts["array-element-delimiter"]; ok {
		if v == "" {
			return c, fmt.Errorf("Option '%sarray-element-delimiter' must not be empty.", prefix)
		}
		c.ArrayElementDelimiter = unescapeOption(v)
	}
	if v, ok := opts["null-literal"]; ok {
		s := v
		c.NullLiteral = &s
	}
	if c.FieldDelimiter == '\n' || c.FieldDelimiter == '\r' {
		return c, fmt.Errorf("Option '%sfield-delimiter' must not be a line break.", prefix)
	}
	return c, nil
}

func prefixed(err error, prefix string) error {
	msg := err.Error()
	if i := strings.Index(msg, "for key '"); i >= 0 {
		return errors.New(msg[:i+9] + prefix + msg[i+9:])
	}
	return err
}

// Factory is the 'csv' format.
type Factory struct{}

// Identifier implements format.Factory.
func (Factory) Identifier() string { return "csv" }

// Options implements format.Factory.
func (Factory) Options() []string { return append([]string(nil), optionKeys...) }

// Create implements format.Factory.
func (Factory) Create(opts map[string]string, prefix string) (format.Format, error) {
	o, err := ParseOptions(opts, prefix)
	if err != nil {
		return nil, err
	}
	return csvFormat{o}, nil
}

type csvFormat struct{ opts Options }

func (csvFormat) DecodeMode() changelog.Mode     { return changelog.InsertOnly }
func (csvFormat) EncodeMode() changelog.Mode     { return changelog.InsertOnly }
func (csvFormat) Metadata() []format.MetadataKey { return nil }

func (f csvFormat) NewDecoder(physical types.Schema, projection []int, metadata []string) (format.Decoder, error) {
	out, err := format.ProjectedSchema(physical, projection, metadata, nil)
	if err != nil {
		return nil, err
	}
	if err := CheckTypes(physical); err != nil {
		return nil, err
	}
	if projection == nil {
		for i := range physical {
			projection = append(projection, i)
		}
	}
	opts := f.opts
	return &MessageDecoder{rd: Reader{opts: opts}, physical: physical, proj: projection, out: out, vals: make([]any, len(out))}, nil
}

func (f csvFormat) NewEncoder(schema types.Schema) (format.Encoder, error) {
	if err := CheckTypes(schema); err != nil {
		return nil, err
	}
	return &MessageEncoder{w: &Writer{schema: schema, opts: f.opts}}, nil
}

// MessageDecoder decodes one csv record per message (Flink's
// CsvRowDataDeserializationSchema): the record is split by the file
// reader's rules (quotes, escapes) and each field converted as the file
// reader's per-value path does. A message that does not parse is an
// error, or skipped with 'csv.ignore-parse-errors'.
type MessageDecoder struct {
	rd       Reader
	physical types.Schema
	proj     []int
	out      types.Schema
	vals     []any
}

// Schema implements format.Decoder.
func (d *MessageDecoder) Schema() types.Schema { return d.out }

// Decode implements format.Decoder; an empty message gives no row.
func (d *MessageDecoder) Decode(msg []byte, out *format.Rows) error {
	if len(msg) == 0 {
		return nil
	}
	if err := d.decode(msg); err != nil {
		if d.rd.opts.IgnoreParseErrors {
			return nil
		}
		return &format.Error{Summary: fmt.Sprintf("Failed to deserialize CSV row '%s'.", bytes.TrimRight(msg, "\r\n")), Err: err}
	}
	for i, v := range d.vals {
		if err := types.AppendValue(out.Builder(i), v, d.out[i].Type); err != nil {
			return err
		}
	}
	out.Commit(changelog.Insert)
	return nil
}

func (d *MessageDecoder) decode(msg []byte) error {
	rd := &d.rd
	rd.buf, rd.start, rd.end, rd.eof = msg, 0, len(msg), true
	if _, _, _, err := rd.splitSlow(); err != nil {
		return err
	}
	nf := len(rd.fs) / 2
	if nf < len(d.physical) {
		return fmt.Errorf("Row length mismatch. %d fields expected but was %d.", len(d.physical), nf)
	}
	opts := &rd.opts
	for i, p := range d.proj {
		if i >= len(d.vals) {
			break
		}
		f := rd.scratch[rd.fs[2*p]:rd.fs[2*p+1]]
		t := d.physical[p].Type
		if opts.NullLiteral != nil && string(f) == *opts.NullLiteral {
			d.vals[i] = nil
			continue
		}
		if t.Kind == types.Array {
			elems := []any{}
			if len(f) > 0 {
				for _, e := range bytes.Split(f, []byte(opts.ArrayElementDelimiter)) {
					if opts.NullLiteral != nil && string(e) == *opts.NullLiteral {
						elems = append(elems, nil)
						continue
					}
					v, err := textconv.ParseScalar(e, *t.Elem, textconv.SQL)
					if err != nil {
						return err
					}
					elems = append(elems, v)
				}
			}
			d.vals[i] = elems
			continue
		}
		v, err := textconv.ParseScalar(f, t, textconv.SQL)
		if err != nil {
			return err
		}
		d.vals[i] = v
	}
	return nil
}

// MessageEncoder encodes a row as one csv record (no line break), as the
// file writer formats a line.
type MessageEncoder struct{ w *Writer }

// Encode implements format.Encoder.
func (e *MessageEncoder) Encode(dst []byte, rec arrow.RecordBatch, r int, _ changelog.RowKind) ([]byte, error) {
	for c := range e.w.schema {
		if c > 0 {
			dst = append(dst, e.w.opts.FieldDelimiter)
		}
		dst = e.w.appendCell(dst, rec.Column(c), r, e.w.schema[c].Type, c == 0)
	}
	return dst, nil
}

var (
	_ format.Factory = Factory{}
	_ format.Decoder = (*MessageDecoder)(nil)
	_ format.Encoder = (*MessageEncoder)(nil)
)

// CheckTypes refuses the columns the csv format cannot hold: MAP, ROW
// and arrays of them or of arrays (a csv field holds a value or one
// level of elements split by 'csv.array-element-delimiter'). Readers,
// writers and message codecs all check it, so no value is ever written
// in a form no reader reads back.
func CheckTypes(schema types.Schema) error {
	for _, f := range schema {
		if !Holds(f.Type) {
			return fmt.Errorf("not supported yet: csv format for column %s of type %s", f.Name, f.Type)
		}
	}
	return nil
}

// Holds reports whether a csv field can hold a value of type t.
func Holds(t types.Type) bool {
	switch t.Kind {
	case types.Map, types.Row:
		return false
	case types.Array:
		k := t.Elem.Kind
		return k != types.Array && k != types.Map && k != types.Row
	}
	return true
}
