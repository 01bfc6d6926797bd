package core

import (
	"fmt"
	"io"
	"iter"
	"strings"
	"time"

	"github.com/tablerun/tablerun/core/types"
)

// ResultKind is the kind of a TableResult, as in Flink.
type ResultKind uint8

// Result kinds.
const (
	// Success: the statement ran and has no content to show (DDL, SET…).
	Success ResultKind = iota
	// SuccessWithContent: the statement produced rows (queries, SHOW…).
	SuccessWithContent
)

// String returns Flink's name of the kind.
func (k ResultKind) String() string {
	if k == Success {
		return "SUCCESS"
	}
	return "SUCCESS_WITH_CONTENT"
}

// Row is one result row of canonical Go values (see package types).
type Row = []any

// TableResult is the result of a statement. Results are complete when
// returned: batch execution runs the job to the end first.
type TableResult struct {
	kind   ResultKind
	schema types.Schema
	rows   [][]any
	// query is true for query results: NULL prints as <NULL> and column
	// widths are capped; SHOW/DESCRIBE results print NULL as empty, uncapped.
	query bool
	// dml is true for INSERT results.
	dml      bool
	loc      *time.Location
	maxWidth int
	elapsed  time.Duration
	// changes is set for streaming query results: row kinds and the
	// running job (see stream.go).
	changes *changes
	// jobID is the job of an INSERT; submitted is true when it runs in
	// the background (jobs.go).
	jobID     string
	submitted bool
}

// JobID returns the id of the job an INSERT ran or submitted ("" for
// other statements).
func (r *TableResult) JobID() string { return r.jobID }

// Submitted reports whether an INSERT's job was submitted to run in the
// background ('table.dml-sync' = 'false') rather than run to its end.
func (r *TableResult) Submitted() bool { return r.submitted }

// okResult is the result of a statement without content ("OK", as Flink).
func okResult() *TableResult {
	return &TableResult{kind: Success, schema: types.Schema{{Name: "result", Type: types.StringT}}, rows: [][]any{{"OK"}}}
}

// Kind returns SUCCESS or SUCCESS_WITH_CONTENT.
func (r *TableResult) Kind() ResultKind { return r.kind }

// Schema returns the columns of the result.
func (r *TableResult) Schema() types.Schema { return r.schema }

// IsQuery reports whether the result comes from a query (SELECT, VALUES…).
func (r *TableResult) IsQuery() bool { return r.query }

// IsDML reports whether the result comes from INSERT.
func (r *TableResult) IsDML() bool { return r.dml }

// Elapsed returns how long the statement took.
func (r *TableResult) Elapsed() time.Duration { return r.elapsed }

// Rows returns all rows. The slice must not be modified. For a streaming
// query it waits for the job to end and returns every change not handed
// out yet by Changes, ChangeBatches, Follow or Materialize (which hand each
// change out once and keep none); it keeps them all, so it is for bounded
// queries: follow an unbounded one with those instead.
func (r *TableResult) Rows() [][]any {
	if r.changes != nil {
		_ = r.drain()
	}
	return r.rows
}

// Collect iterates over the rows in order (for a streaming query: each
// change as it arrives, without its row kind; see Changes), as values for
// Go code; each row is a new slice the caller may keep:
//
//	BOOLEAN, TINYINT … BIGINT   bool, int8, int16, int32, int64
//	FLOAT, DOUBLE               float32, float64
//	DECIMAL(p, s)               core.Decimal (exact, with its scale: String() "49.90", Rat, Float64)
//	CHAR, VARCHAR, STRING       string
//	BINARY, VARBINARY, BYTES    []byte
//	DATE                        time.Time, midnight UTC
//	TIME(p)                     time.Duration since midnight
//	TIMESTAMP(p)                time.Time in UTC showing the wall clock (the zone is not part of the value)
//	TIMESTAMP_LTZ(p)            time.Time, the instant, in the session zone (table.local-time-zone)
//	INTERVAL DAY TO SECOND      time.Duration
//	INTERVAL YEAR TO MONTH      int32 months
//	ARRAY<T>, ROW<…>            []any of these values
//	MAP<K, V>                   *types.MapValue of these values
//	NULL                        nil
//
// Rows returns the canonical values of package types instead (what
// Format takes).
func (r *TableResult) Collect() iter.Seq[Row] {
	loc := r.loc
	if loc == nil {
		loc = time.UTC
	}
	return func(yield func(Row) bool) {
		if r.changes != nil {
			for _, row := range r.Changes() {
				if !yield(collectRow(row, r.schema, loc)) {
					return
				}
			}
			return
		}
		for _, row := range r.rows {
			if !yield(collectRow(row, r.schema, loc)) {
				return
			}
		}
	}
}

// Format returns the text of one value as the tableau printer shows it
// (NULL as "<NULL>" in query results and "" otherwise).
func (r *TableResult) Format(v any, t types.Type) string {
	if v == nil {
		if r.query {
			return "<NULL>"
		}
		return ""
	}
	loc := r.loc
	if loc == nil {
		loc = time.UTC
	}
	return types.FormatValue(v, t, loc)
}

// Print writes the result in the SQL client's batch tableau layout:
// bordered table with right-aligned cells and a "N rows in set" footer, or
// "Empty set". It does not print the "[INFO] …" lines of non-query
// statements; see PrintTimed for the footer with the time cost.
func (r *TableResult) Print(w io.Writer) error { return r.print(w, false) }

// PrintTimed is Print with Flink's time-cost suffix on the footer
// ("2 rows in set (0.01 seconds)"), as sql-client.display.print-time-cost does.
func (r *TableResult) PrintTimed(w io.Writer) error { return r.print(w, true) }

func (r *TableResult) print(w io.Writer, timed bool) error {
	if r.changes != nil {
		return r.printStream(w, timed)
	}
	suffix := ""
	if timed {
		suffix = fmt.Sprintf(" (%.2f seconds)", r.elapsed.Seconds())
	}
	if len(r.rows) == 0 {
		_, err := fmt.Fprintf(w, "Empty set%s\n", suffix)
		return err
	}
	limit := 0
	if r.query {
		limit = r.maxWidth
		if limit <= 0 {
			limit = 30
		}
	}
	n := len(r.schema)
	cells := make([][]string, len(r.rows))
	widths := make([]int, n)
	for i, f := range r.schema {
		widths[i] = displayWidth(f.Name)
	}
	for i, row := range r.rows {
		cells[i] = make([]string, n)
		for j := 0; j < n; j++ {
			var v any
			if j < len(row) {
				v = row[j]
			}
			s := r.Format(v, r.schema[j].Type)
			cells[i][j] = s
			if dw := displayWidth(s); dw > widths[j] {
				widths[j] = dw
			}
		}
	}
	if limit > 0 {
		for j := range widths {
			if widths[j] > limit {
				widths[j] = limit
			}
		}
	}
	var b strings.Builder
	border := func() {
		b.WriteByte('+')
		for _, wd := range widths {
			b.WriteString(strings.Repeat("-", wd+2))
			b.WriteByte('+')
		}
		b.WriteByte('\n')
	}
	line := func(vals []string) {
		b.WriteByte('|')
		for j, v := range vals {
			if displayWidth(v) > widths[j] {
				v = truncate(v, widths[j])
			}
			b.WriteByte(' ')
			b.WriteString(strings.Repeat(" ", widths[j]-displayWidth(v)))
			b.WriteString(v)
			b.WriteString(" |")
		}
		b.WriteByte('\n')
	}
	border()
	line(r.schema.Names())
	border()
	for _, row := range cells {
		line(row)
	}
	border()
	if len(r.rows) == 1 {
		fmt.Fprintf(&b, "1 row in set%s\n", suffix)
	} else {
		fmt.Fprintf(&b, "%d rows in set%s\n", len(r.rows), suffix)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// truncate cuts s to width-3 display columns and appends "...".
func truncate(s string, width int) string {
	if width < 3 {
		return strings.Repeat(".", width)
	}
	var b strings.Builder
	w := 0
	for _, r := range s {
		rw := runeWidth(r)
		if w+rw > width-3 {
			break
		}
		b.WriteRune(r)
		w += rw
	}
	b.WriteString("...")
	return b.String()
}

// displayWidth is the number of terminal columns of s: East Asian wide and
// fullwidth characters count 2, everything else (newlines included) 1.
func displayWidth(s string) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

func runeWidth(r rune) int {
	switch {
	case r >= 0x1100 && r <= 0x115F,
		r >= 0x2E80 && r <= 0x303E,
		r >= 0x3041 && r <= 0x33FF,
		r >= 0x3400 && r <= 0x4DBF,
		r >= 0x4E00 && r <= 0x9FFF,
		r >= 0xA000 && r <= 0xA4CF,
		r >= 0xAC00 && r <= 0xD7A3,
		r >= 0xF900 && r <= 0xFAFF,
		r >= 0xFE30 && r <= 0xFE4F,
		r >= 0xFF00 && r <= 0xFF60,
		r >= 0xFFE0 && r <= 0xFFE6,
		r >= 0x1F300 && r <= 0x1F64F,
		r >= 0x1F900 && r <= 0x1F9FF,
		r >= 0x20000 && r <= 0x3FFFD:
		return 2
	}
	return 1
}
