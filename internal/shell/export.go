package shell

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/types"
)

// Output formats for scripting, as WriteResult takes them.
const (
	FormatTableau = "tableau"
	FormatCSV     = "csv"
	FormatJSON    = "json"
	FormatArrow   = "arrow"
)

// Formats lists the names WriteResult accepts.
var Formats = []string{FormatTableau, FormatCSV, FormatJSON, FormatArrow}

// WriteResult writes the rows of a query (or SHOW/DESCRIBE) result for
// scripts:
//
//   - csv: RFC 4180, a header line with the column names, values as CAST(x
//     AS STRING) prints them, NULL as an empty field;
//   - json: JSON lines, one object per row keyed by column name; numbers,
//     booleans, arrays and rows (as objects) are JSON values, NULL is null,
//     DECIMAL is a JSON number with its scale, other types are the SQL
//     client's text;
//   - arrow: an Arrow IPC stream (the streaming format, readable from a
//     pipe: pyarrow.ipc.open_stream) with the result's Arrow schema, one
//     record batch per batch of rows.
//
// A streaming result (its changelog) gets a first column "op" with the row
// kind (+I, -U, +U, -D), and is written as it arrives: each batch of
// changes is flushed at most core.DefaultFlushInterval after it left the
// job, and nothing is kept once written, so an unbounded query streams for
// ever in bounded memory. When the job fails or is canceled (see
// core.IsCanceled) the output written so far stays well-formed (an Arrow
// stream gets its end marker) and the error is returned. "tableau" prints
// as the SQL client does.
func WriteResult(w io.Writer, res *core.TableResult, format string) error {
	format = strings.ToLower(format)
	switch format {
	case FormatTableau, "":
		return core.PrintClientResult(w, nil, res, nil)
	case FormatCSV, FormatJSON, FormatArrow:
	default:
		return fmt.Errorf("unknown output format %q (expected one of %s)", format, strings.Join(Formats, ", "))
	}
	schema := res.Schema()
	if res.IsStreaming() {
		schema = append(types.Schema{{Name: "op", Type: types.StringT}}, schema...)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var rw rowWriter
	switch format {
	case FormatCSV:
		rw = &csvWriter{res: res, schema: schema, w: csv.NewWriter(bw)}
	case FormatJSON:
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		rw = &jsonWriter{res: res, schema: schema, enc: enc}
	case FormatArrow:
		rw = &arrowWriter{schema: schema, w: bw}
	}
	if err := rw.begin(); err != nil {
		return err
	}
	var err error
	if !res.IsStreaming() {
		err = rw.write(res.Rows())
	} else {
		var withOp [][]any
		err = res.Follow(context.Background(), core.DefaultFlushInterval, func(b core.ChangeBatch) error {
			withOp = withOp[:0]
			for i, r := range b.Rows {
				withOp = append(withOp, append([]any{b.Kinds[i].String()}, r...))
			}
			return rw.write(withOp)
		}, func() error {
			if err := rw.flush(); err != nil {
				return err
			}
			return bw.Flush()
		})
	}
	cerr := rw.end()
	if ferr := bw.Flush(); cerr == nil {
		cerr = ferr
	}
	if err != nil {
		return err
	}
	return cerr
}

// rowWriter writes rows in one of the script formats: begin once, write
// for each batch of rows, flush to push what is buffered, end once.
type rowWriter interface {
	begin() error
	write(rows [][]any) error
	flush() error
	end() error
}

type csvWriter struct {
	res    *core.TableResult
	schema types.Schema
	w      *csv.Writer
	rec    []string
}

func (c *csvWriter) begin() error {
	if err := c.w.Write(c.schema.Names()); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	c.rec = make([]string, len(c.schema))
	return nil
}

func (c *csvWriter) write(rows [][]any) error {
	for _, row := range rows {
		for j, f := range c.schema {
			c.rec[j] = ""
			if j < len(row) && row[j] != nil {
				c.rec[j] = c.res.Format(row[j], f.Type)
			}
		}
		if err := c.w.Write(c.rec); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
	}
	return nil
}

func (c *csvWriter) flush() error {
	c.w.Flush()
	if err := c.w.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

func (c *csvWriter) end() error { return c.flush() }

type jsonWriter struct {
	res    *core.TableResult
	schema types.Schema
	enc    *json.Encoder
}

func (j *jsonWriter) begin() error { return nil }

func (j *jsonWriter) write(rows [][]any) error {
	for _, row := range rows {
		obj := make(orderedObject, len(j.schema))
		for c, f := range j.schema {
			var v any
			if c < len(row) {
				v = row[c]
			}
			obj[c] = member{f.Name, jsonValue(j.res, v, f.Type)}
		}
		if err := j.enc.Encode(obj); err != nil {
			return fmt.Errorf("write json: %w", err)
		}
	}
	return nil
}

func (j *jsonWriter) flush() error { return nil }

func (j *jsonWriter) end() error { return nil }

type arrowWriter struct {
	schema types.Schema
	w      io.Writer
	mem    memory.Allocator
	iw     *ipc.Writer
}

func (a *arrowWriter) begin() error {
	as, err := types.ArrowSchema(a.schema)
	if err != nil {
		return fmt.Errorf("arrow schema: %w", err)
	}
	a.mem = memory.NewGoAllocator()
	a.iw = ipc.NewWriter(a.w, ipc.WithSchema(as), ipc.WithAllocator(a.mem))
	return nil
}

func (a *arrowWriter) write(rows [][]any) error {
	rec, err := types.BuildRecord(a.mem, a.schema, rows)
	if err != nil {
		return fmt.Errorf("arrow record: %w", err)
	}
	defer rec.Release()
	if err := a.iw.Write(rec); err != nil {
		return fmt.Errorf("arrow stream: %w", err)
	}
	return nil
}

func (a *arrowWriter) flush() error { return nil }

func (a *arrowWriter) end() error {
	if err := a.iw.Close(); err != nil {
		return fmt.Errorf("arrow stream: %w", err)
	}
	return nil
}

// member is one key of a JSON object.
type member struct {
	key   string
	value any
}

// orderedObject is a JSON object that keeps the column order.
type orderedObject []member

// MarshalJSON implements json.Marshaler.
func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// jsonValue converts a canonical value of type t to a JSON value.
func jsonValue(res *core.TableResult, v any, t types.Type) any {
	if v == nil {
		return nil
	}
	switch t.Kind {
	case types.Boolean, types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		return v
	case types.Float, types.Double:
		var f float64
		switch x := v.(type) {
		case float32:
			f = float64(x)
		case float64:
			f = x
		default:
			return res.Format(v, t)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return res.Format(v, t)
		}
		return f
	case types.Decimal:
		return json.Number(res.Format(v, t))
	case types.Array:
		xs, ok := v.([]any)
		if !ok || t.Elem == nil {
			break
		}
		out := make([]any, len(xs))
		for i, x := range xs {
			out[i] = jsonValue(res, x, *t.Elem)
		}
		return out
	case types.Row:
		xs, ok := v.([]any)
		if !ok {
			break
		}
		obj := make(orderedObject, 0, len(t.Fields))
		for i, f := range t.Fields {
			var x any
			if i < len(xs) {
				x = xs[i]
			}
			obj = append(obj, member{f.Name, jsonValue(res, x, f.Type)})
		}
		return obj
	}
	return res.Format(v, t)
}
