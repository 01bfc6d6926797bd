package shell

import (
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
//   - arrow: an Arrow IPC file (one record batch) with the result's Arrow
//     schema.
//
// A streaming result (its changelog) gets a first column "op" with the row
// kind (+I, -U, +U, -D). "tableau" prints as the SQL client does.
func WriteResult(w io.Writer, res *core.TableResult, format string) error {
	schema := res.Schema()
	rows := res.Rows()
	if res.IsStreaming() {
		if err := res.Err(); err != nil {
			return err
		}
		kinds := res.RowKinds()
		schema = append(types.Schema{{Name: "op", Type: types.StringT}}, schema...)
		withOp := make([][]any, len(rows))
		for i, r := range rows {
			withOp[i] = append([]any{kinds[i].String()}, r...)
		}
		rows = withOp
	}
	switch strings.ToLower(format) {
	case FormatTableau, "":
		return core.PrintClientResult(w, nil, res, nil)
	case FormatCSV:
		return writeCSV(w, res, schema, rows)
	case FormatJSON:
		return writeJSON(w, res, schema, rows)
	case FormatArrow:
		return writeArrow(w, schema, rows)
	}
	return fmt.Errorf("unknown output format %q (expected one of %s)", format, strings.Join(Formats, ", "))
}

func writeCSV(w io.Writer, res *core.TableResult, schema types.Schema, rows [][]any) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(schema.Names()); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	rec := make([]string, len(schema))
	for _, row := range rows {
		for j, f := range schema {
			rec[j] = ""
			if j < len(row) && row[j] != nil {
				rec[j] = res.Format(row[j], f.Type)
			}
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

func writeJSON(w io.Writer, res *core.TableResult, schema types.Schema, rows [][]any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, row := range rows {
		obj := make(orderedObject, len(schema))
		for j, f := range schema {
			var v any
			if j < len(row) {
				v = row[j]
			}
			obj[j] = member{f.Name, jsonValue(res, v, f.Type)}
		}
		if err := enc.Encode(obj); err != nil {
			return fmt.Errorf("write json: %w", err)
		}
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

func writeArrow(w io.Writer, schema types.Schema, rows [][]any) error {
	as, err := types.ArrowSchema(schema)
	if err != nil {
		return fmt.Errorf("arrow schema: %w", err)
	}
	mem := memory.NewGoAllocator()
	rec, err := types.BuildRecord(mem, schema, rows)
	if err != nil {
		return fmt.Errorf("arrow record: %w", err)
	}
	defer rec.Release()
	fw, err := ipc.NewFileWriter(w, ipc.WithSchema(as), ipc.WithAllocator(mem))
	if err != nil {
		return fmt.Errorf("arrow file: %w", err)
	}
	if err := fw.Write(rec); err != nil {
		return fmt.Errorf("arrow file: %w", err)
	}
	if err := fw.Close(); err != nil {
		return fmt.Errorf("arrow file: %w", err)
	}
	return nil
}
