// Package json is Flink's JSON formats: 'json' (one JSON object per
// message, fields matched by column name) and the changelog formats built
// on it ('debezium-json', 'canal-json', 'maxwell-json', 'ogg-json'). One
// codec serves every connector: messages (format.Decoder/Encoder, used by
// Kafka) and the filesystem connector's files (Reader/Writer: one message
// per line, streamed through a bounded buffer; a line may be longer than
// the buffer, memory then grows to that line only).
package json

import (
	"bufio"
	"bytes"
	"encoding/base64"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/connectors/format"
	"github.com/tablerun/tablerun/connectors/format/textconv"
	"github.com/tablerun/tablerun/core/types"
)

// Options are the json format options.
type Options struct {
	// FailOnMissingField is 'json.fail-on-missing-field' (default false).
	FailOnMissingField bool
	// IgnoreParseErrors is 'json.ignore-parse-errors': a row that does not
	// parse is skipped.
	IgnoreParseErrors bool
	// ISO8601 is 'json.timestamp-format.standard' = 'ISO-8601' (default
	// 'SQL').
	ISO8601 bool
	// MapNullKeyMode is 'json.map-null-key.mode': FAIL (default), DROP or
	// LITERAL with MapNullKeyLiteral ('json.map-null-key.literal', "null").
	MapNullKeyMode    string
	MapNullKeyLiteral string
	// DecimalAsPlainNumber is 'json.encode.decimal-as-plain-number'.
	DecimalAsPlainNumber bool
	// IgnoreNullFields is 'json.encode.ignore-null-fields'.
	IgnoreNullFields bool
}

// DefaultOptions returns Flink's defaults.
func DefaultOptions() Options {
	return Options{MapNullKeyMode: "FAIL", MapNullKeyLiteral: "null"}
}

// Reader reads JSON lines into record batches (the filesystem
// connector's 'json' files: one message per line, through the same
// decoder as any other message).
type Reader struct {
	br    *bufio.Reader
	name  string
	opts  Options
	dec   *Decoder
	rows  *format.Rows
	batch int
	line  int
	eof   bool
}

// NewReader returns a reader of r (name is used in error messages) for a
// table of physical schema physical, producing the columns in projection
// (nil: all), batchSize rows per batch.
func NewReader(r io.Reader, name string, physical types.Schema, projection []int, opts Options, batchSize int) (*Reader, error) {
	if batchSize <= 0 {
		batchSize = 4096
	}
	dec, err := NewDecoder(physical, projection, opts)
	if err != nil {
		return nil, err
	}
	rows, err := format.NewRows(dec.Schema())
	if err != nil {
		return nil, err
	}
	return &Reader{br: bufio.NewReaderSize(r, 256<<10), name: name, opts: opts, dec: dec, rows: rows, batch: batchSize}, nil
}

// Schema is the Arrow schema of the produced batches.
func (rd *Reader) Schema() *arrow.Schema {
	as, _ := types.ArrowSchema(rd.dec.Schema())
	return as
}

func (rd *Reader) readLine() ([]byte, error) {
	line, err := rd.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		long := append([]byte(nil), line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = rd.br.ReadSlice('\n')
			long = append(long, line...)
		}
		line = long
	}
	if errors.Is(err, io.EOF) {
		rd.eof = true
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", rd.name, err)
	}
	return line, nil
}

// Next returns the next batch, or nil and io.EOF at the end.
func (rd *Reader) Next() (arrow.RecordBatch, error) {
	for rd.rows.Len() < rd.batch && !rd.eof {
		line, err := rd.readLine()
		if err != nil {
			return nil, err
		}
		rd.line++
		text := bytes.TrimSpace(line)
		if len(text) == 0 {
			continue
		}
		if err := rd.dec.Decode(text, rd.rows); err != nil {
			var fe *format.Error
			if errors.As(err, &fe) {
				return nil, fmt.Errorf("Failed to deserialize JSON '%s' at %s:%d: %w", text, rd.name, rd.line, fe.Err)
			}
			return nil, fmt.Errorf("%w (at %s:%d)", err, rd.name, rd.line)
		}
	}
	if rd.rows.Len() == 0 {
		rd.rows.Release()
		return nil, io.EOF
	}
	return rd.rows.Batch().Rec, nil
}

// ConvertValue turns a value decoded by encoding/json (with UseNumber)
// into the canonical value of t, as Flink's json format converts a node.
func ConvertValue(raw any, t types.Type, style textconv.TimestampStyle, failOnMissing bool) (any, error) {
	if raw == nil {
		return nil, nil
	}
	switch t.Kind {
	case types.Array:
		xs, ok := raw.([]any)
		if !ok {
			return nil, fmt.Errorf("expected a JSON array for %s", t)
		}
		out := make([]any, len(xs))
		for i, x := range xs {
			v, err := ConvertValue(x, *t.Elem, style, failOnMissing)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case types.Map:
		m, ok := raw.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("expected a JSON object for %s", t)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		mv := &types.MapValue{}
		for _, k := range keys {
			kv, err := textconv.ParseScalar([]byte(k), *t.Elem, style)
			if err != nil {
				return nil, err
			}
			vv, err := ConvertValue(m[k], *t.Value, style, failOnMissing)
			if err != nil {
				return nil, err
			}
			mv.Keys = append(mv.Keys, kv)
			mv.Values = append(mv.Values, vv)
		}
		return mv, nil
	case types.Row:
		m, ok := raw.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("expected a JSON object for %s", t)
		}
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			x, ok := m[f.Name]
			if !ok && failOnMissing {
				return nil, fmt.Errorf("Could not find field with name '%s'.", f.Name)
			}
			v, err := ConvertValue(x, f.Type, style, failOnMissing)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	var text []byte
	switch x := raw.(type) {
	case string:
		text = []byte(x)
	case stdjson.Number:
		text = []byte(x)
		if t.IsInteger() || t.Kind == types.IntervalDayTime || t.Kind == types.IntervalYearMonth {
			// Jackson's asInt/asLong truncate a fractional number.
			if f, err := x.Float64(); err == nil && bytes.ContainsAny(text, ".eE") {
				text = strconv.AppendInt(nil, int64(f), 10)
			}
		}
	case bool:
		if t.Kind == types.Boolean {
			return x, nil
		}
		text = strconv.AppendBool(nil, x)
	default:
		if t.IsString() {
			b, err := stdjson.Marshal(x)
			if err != nil {
				return nil, err
			}
			return string(b), nil
		}
		return nil, fmt.Errorf("cannot convert a JSON %T to %s", raw, t)
	}
	return textconv.ParseScalar(text, t, style)
}

// Writer writes record batches as JSON lines.
type Writer struct {
	w      *bufio.Writer
	schema types.Schema
	opts   Options
	line   []byte
}

// NewWriter returns a writer of rows of schema into w.
func NewWriter(w io.Writer, schema types.Schema, opts Options) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 64<<10), schema: schema, opts: opts}
}

// Write appends the rows of rec, one JSON object per line.
func (w *Writer) Write(rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	row := make([]any, len(w.schema))
	for r := 0; r < n; r++ {
		for c := range w.schema {
			row[c] = types.GetValue(rec.Column(c), r, w.schema[c].Type)
		}
		var err error
		w.line, err = w.appendObject(w.line[:0], row, w.schema)
		if err != nil {
			return err
		}
		w.line = append(w.line, '\n')
		if _, err := w.w.Write(w.line); err != nil {
			return err
		}
	}
	return nil
}

// Flush writes buffered lines to the underlying writer.
func (w *Writer) Flush() error { return w.w.Flush() }

func (w *Writer) appendObject(dst []byte, row []any, fields []types.Field) ([]byte, error) {
	dst = append(dst, '{')
	first := true
	for i, f := range fields {
		if row[i] == nil && w.opts.IgnoreNullFields {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendString(dst, f.Name)
		dst = append(dst, ':')
		var err error
		dst, err = w.appendValue(dst, row[i], f.Type)
		if err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}

func (w *Writer) appendValue(dst []byte, v any, t types.Type) ([]byte, error) {
	if v == nil {
		return append(dst, "null"...), nil
	}
	iso := w.opts.ISO8601
	switch t.Kind {
	case types.Boolean:
		return strconv.AppendBool(dst, v.(bool)), nil
	case types.Char, types.VarChar:
		return appendString(dst, v.(string)), nil
	case types.Binary, types.VarBinary:
		return appendString(dst, base64.StdEncoding.EncodeToString(v.([]byte))), nil
	case types.Decimal:
		if w.opts.DecimalAsPlainNumber {
			return types.AppendDecimalPlain(dst, v.(decimal128.Num), t.Scale), nil
		}
		return types.AppendBigDecimal(dst, v.(decimal128.Num), t.Scale), nil
	case types.Date:
		return appendString(dst, types.FormatDate(v.(int32))), nil
	case types.Time:
		return appendString(dst, string(textconv.AppendTime(nil, v.(int32)))), nil
	case types.Timestamp:
		return appendString(dst, string(textconv.AppendTimestampOf(nil, v.(int64), t, iso, false))), nil
	case types.TimestampLTZ:
		return appendString(dst, string(textconv.AppendTimestampOf(nil, v.(int64), t, iso, true))), nil
	case types.IntervalDayTime:
		return strconv.AppendInt(dst, v.(int64), 10), nil
	case types.IntervalYearMonth:
		return strconv.AppendInt(dst, int64(v.(int32)), 10), nil
	case types.Array:
		dst = append(dst, '[')
		for i, x := range v.([]any) {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = w.appendValue(dst, x, *t.Elem); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case types.Map:
		m := v.(*types.MapValue)
		dst = append(dst, '{')
		first := true
		for i := range m.Keys {
			var key string
			if m.Keys[i] == nil {
				switch w.opts.MapNullKeyMode {
				case "DROP":
					continue
				case "LITERAL":
					key = w.opts.MapNullKeyLiteral
				default:
					return nil, errors.New("JSON format doesn't support to serialize map data with null keys. You can drop null key entries or encode null in literals by specifying map-null-key.mode option.")
				}
			} else {
				key = types.FormatValue(m.Keys[i], *t.Elem, nil)
				if t.Elem.Kind == types.Boolean {
					key = strconv.FormatBool(m.Keys[i].(bool))
				}
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendString(dst, key)
			dst = append(dst, ':')
			var err error
			if dst, err = w.appendValue(dst, m.Values[i], *t.Value); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case types.Row:
		return w.appendObject(dst, v.([]any), t.Fields)
	}
	// Numbers: Java text (doubles "1.0E10" are valid JSON numbers).
	switch x := v.(type) {
	case float64:
		if x != x || x > 1.7976931348623157e308 || x < -1.7976931348623157e308 {
			return appendString(dst, types.JavaDouble(x)), nil
		}
	case float32:
		if x != x || x > 3.4028235e38 || x < -3.4028235e38 {
			return appendString(dst, types.JavaFloat(x)), nil
		}
	}
	return types.AppendValueText(dst, v, t, nil), nil
}

// appendString appends s as a JSON string, escaping as Jackson does:
// quotes, backslashes and control characters only.
func appendString(dst []byte, s string) []byte {
	const hexDigits = "0123456789ABCDEF"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
