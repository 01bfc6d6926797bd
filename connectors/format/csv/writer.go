package csv

import (
	"bufio"
	"encoding/base64"
	"io"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/connectors/format/textconv"
	"github.com/tablerun/tablerun/core/types"
)

// Writer writes record batches as csv lines, formatting values as Flink's
// csv format does: Java number text, `yyyy-MM-dd HH:mm:ss[.fff]`
// timestamps, base64 binary strings, strings quoted only when they hold the
// delimiter, the quote character, a line break or the escape character,
// NULL as the null literal (empty by default).
type Writer struct {
	w      *bufio.Writer
	schema types.Schema
	opts   Options
	line   []byte
}

// NewWriter returns a writer of rows of schema into w.
func NewWriter(w io.Writer, schema types.Schema, opts Options) *Writer {
	wr := &Writer{w: bufio.NewWriterSize(w, 64<<10), schema: schema, opts: opts}
	if opts.Header { // 'csv.header': the column names first
		for c, f := range schema {
			if c > 0 {
				wr.line = append(wr.line, opts.FieldDelimiter)
			}
			wr.line = wr.appendString(wr.line, f.Name, c == 0)
		}
		wr.line = append(wr.line, '\n')
		_, _ = wr.w.Write(wr.line) // a bufio.Writer keeps the error for the next Write or Flush
	}
	return wr
}

// Write appends the rows of rec.
func (w *Writer) Write(rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	for r := 0; r < n; r++ {
		w.line = w.line[:0]
		for c := range w.schema {
			if c > 0 {
				w.line = append(w.line, w.opts.FieldDelimiter)
			}
			w.line = w.appendCell(w.line, rec.Column(c), r, w.schema[c].Type, c == 0)
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

func (w *Writer) appendNull(dst []byte) []byte {
	if w.opts.NullLiteral != nil {
		return append(dst, *w.opts.NullLiteral...)
	}
	return dst
}

func (w *Writer) appendCell(dst []byte, arr arrow.Array, r int, t types.Type, first bool) []byte {
	if arr.IsNull(r) {
		return w.appendNull(dst)
	}
	switch a := arr.(type) {
	case *array.Int64:
		return strconv.AppendInt(dst, a.Value(r), 10)
	case *array.Int32:
		return strconv.AppendInt(dst, int64(a.Value(r)), 10)
	case *array.String:
		return w.appendString(dst, a.Value(r), first)
	}
	return w.appendValue(dst, types.GetValue(arr, r, t), t, first)
}

func (w *Writer) appendValue(dst []byte, v any, t types.Type, first bool) []byte {
	if v == nil {
		return w.appendNull(dst)
	}
	switch t.Kind {
	case types.Char, types.VarChar:
		return w.appendString(dst, v.(string), first)
	case types.Binary, types.VarBinary:
		return base64.StdEncoding.AppendEncode(dst, v.([]byte))
	case types.Decimal:
		if w.opts.WriteBigDecimalInScientificNotation {
			return types.AppendBigDecimal(dst, v.(decimal128.Num), t.Scale)
		}
		return types.AppendDecimalPlain(dst, v.(decimal128.Num), t.Scale)
	case types.Boolean:
		return strconv.AppendBool(dst, v.(bool))
	case types.Time:
		return textconv.AppendTime(dst, v.(int32))
	case types.Timestamp:
		return textconv.AppendTimestampOf(dst, v.(int64), t, false, false)
	case types.TimestampLTZ:
		// Flink writes the UTC wall clock without a zone suffix.
		return textconv.AppendTimestampOf(dst, v.(int64), t, false, false)
	case types.IntervalDayTime:
		return strconv.AppendInt(dst, v.(int64), 10)
	case types.IntervalYearMonth:
		return strconv.AppendInt(dst, int64(v.(int32)), 10)
	case types.Array:
		xs := v.([]any)
		for i, x := range xs {
			if i > 0 {
				dst = append(dst, w.opts.ArrayElementDelimiter...)
			}
			if x == nil {
				dst = w.appendNull(dst)
				continue
			}
			dst = w.appendValue(dst, x, *t.Elem, false)
		}
		return dst
	}
	// Numbers and dates print as SQL text does.
	return types.AppendValueText(dst, v, t, nil)
}

func (w *Writer) appendString(dst []byte, s string, first bool) []byte {
	if w.opts.DisableQuoteCharacter || !w.needsQuotes(s, first) {
		return append(dst, s...)
	}
	q := w.opts.QuoteCharacter
	dst = append(dst, q)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == q {
			if w.opts.EscapeCharacter != 0 {
				dst = append(dst, w.opts.EscapeCharacter)
			} else {
				dst = append(dst, q)
			}
		} else if w.opts.EscapeCharacter != 0 && c == w.opts.EscapeCharacter {
			dst = append(dst, c)
		}
		dst = append(dst, c)
	}
	return append(dst, q)
}

func (w *Writer) needsQuotes(s string, first bool) bool {
	if first && len(s) > 0 && s[0] == '#' {
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == w.opts.FieldDelimiter || c == w.opts.QuoteCharacter || c == '\n' || c == '\r' ||
			(w.opts.EscapeCharacter != 0 && c == w.opts.EscapeCharacter) {
			return true
		}
	}
	return false
}
