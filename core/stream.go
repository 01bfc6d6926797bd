package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized/build"
)

// KeyStateTTL is table.exec.state.ttl: the idle time after which per-key
// state may be dropped; 0 (the default) keeps it forever. It also changes
// what GROUP BY emits: with TTL on, an update that does not change a
// group's result is still emitted as -U/+U.
const KeyStateTTL = "table.exec.state.ttl"

// streaming reports execution.runtime-mode = STREAMING (the default).
func (e *TableEnvironment) streaming() bool {
	return e.cfg.RuntimeMode() == config.Streaming
}

// stateTTL returns table.exec.state.ttl; an unparsable value counts as 0.
func (e *TableEnvironment) stateTTL() time.Duration {
	v, ok := e.cfg.Get(KeyStateTTL)
	if !ok {
		return 0
	}
	d, err := ParseFlinkDuration(v)
	if err != nil {
		return 0
	}
	return d
}

// ParseFlinkDuration parses a duration as Flink's configuration does: a
// number with an optional unit ("0", "10 s", "1h", "500 ms", "2 min",
// "1 d"); a bare number is milliseconds.
func ParseFlinkDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("Could not parse value '%s' as a duration.", s)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("Could not parse value '%s' as a duration.", s)
	}
	unit := strings.ToLower(strings.TrimFunc(t[i:], unicode.IsSpace))
	var mul time.Duration
	switch unit {
	case "", "ms", "milli", "millis", "millisecond", "milliseconds":
		mul = time.Millisecond
	case "ns", "nano", "nanos", "nanosecond", "nanoseconds":
		mul = time.Nanosecond
	case "us", "µs", "micro", "micros", "microsecond", "microseconds":
		mul = time.Microsecond
	case "s", "sec", "secs", "second", "seconds":
		mul = time.Second
	case "m", "min", "mins", "minute", "minutes":
		mul = time.Minute
	case "h", "hour", "hours":
		mul = time.Hour
	case "d", "day", "days":
		mul = 24 * time.Hour
	default:
		return 0, fmt.Errorf("Could not parse value '%s' as a duration.", s)
	}
	return time.Duration(n) * mul, nil
}

// changes is the changelog of a streaming query result: the row kinds of
// the rows received so far and, while the job still runs, its stream.
type changes struct {
	kinds []changelog.RowKind
	src   *build.Stream // nil once the job ended
	err   error         // the error that ended the job
	start time.Time     // when the statement started
	end   time.Time     // when the job ended
}

// runStreamQuery starts a query in streaming mode. The job runs in the
// background; the result receives its changelog as it arrives (bounded
// sources end the job, unbounded ones run until the result is closed or
// ctx is cancelled). Errors raised while building the job, and those
// raised before the first change, are returned here.
func (e *TableEnvironment) runStreamQuery(ctx context.Context, plan logical.Node, now time.Time) (*TableResult, error) {
	_, phys, err := e.optimize(plan, now)
	if err != nil {
		return nil, err
	}
	return e.startStream(ctx, phys, plan.Schema(), now)
}

// startStream starts a streaming job whose root delivers rows of schema
// and returns its result once the first change (or the end) arrived.
func (e *TableEnvironment) startStream(ctx context.Context, phys physical.Node, schema types.Schema, now time.Time) (*TableResult, error) {
	res := &TableResult{
		kind:     SuccessWithContent,
		schema:   schema,
		query:    true,
		loc:      e.cfg.LocalTimeZone(),
		maxWidth: e.cfg.MaxColumnWidth(),
		changes:  &changes{src: build.Start(ctx, phys, e.buildEnv(now)), start: time.Now()},
	}
	// Wait for the first change (or the end): errors of building the job
	// are statement errors, as in Flink.
	if _, err := res.fetch(); err != nil {
		return nil, classify(KindExecution, err)
	}
	return res, nil
}

// fetch receives the next batch of changes into the result; it returns
// false when the job has ended (successfully, or with the error).
func (r *TableResult) fetch() (bool, error) {
	c := r.changes
	if c == nil || c.src == nil {
		return false, c.errOrNil()
	}
	for {
		b, err := c.src.Next()
		if err == io.EOF {
			c.err = c.src.Close()
			c.src, c.end = nil, time.Now()
			return false, c.err
		}
		if err != nil {
			c.src.Close()
			c.src, c.err, c.end = nil, err, time.Now()
			return false, err
		}
		n := b.NumRows()
		if n == 0 {
			continue
		}
		r.rows = append(r.rows, types.RecordRows(b.Rec, r.schema)...)
		for i := 0; i < n; i++ {
			c.kinds = append(c.kinds, b.Kind(i))
		}
		return true, nil
	}
}

func (c *changes) errOrNil() error {
	if c == nil {
		return nil
	}
	return c.err
}

// drain receives every remaining change (it blocks until the job ends).
func (r *TableResult) drain() error {
	for {
		more, err := r.fetch()
		if err != nil || !more {
			return err
		}
	}
}

// IsStreaming reports whether the result is the changelog of a streaming
// query: every row has a row kind (see RowKinds and Changes).
func (r *TableResult) IsStreaming() bool { return r.changes != nil }

// RowKinds returns the row kind of every row of Rows (all +I for a batch
// result). Like Rows, it waits for a streaming job to end.
func (r *TableResult) RowKinds() []changelog.RowKind {
	if r.changes == nil {
		out := make([]changelog.RowKind, len(r.rows))
		return out // the zero kind is +I
	}
	_ = r.drain()
	return r.changes.kinds
}

// Err returns the error that ended a streaming job, once it has ended; nil
// for batch results.
func (r *TableResult) Err() error {
	if r.changes == nil || r.changes.err == nil {
		return nil
	}
	return classify(KindExecution, r.changes.err)
}

// Changes iterates over the result's changelog as it arrives: each row
// with its kind (+I for batch results). For a streaming query it follows
// the running job and ends when the job ends (see Err) or the loop stops.
func (r *TableResult) Changes() iter.Seq2[changelog.RowKind, Row] {
	return func(yield func(changelog.RowKind, Row) bool) {
		for i := 0; ; i++ {
			for i >= len(r.rows) {
				if r.changes == nil {
					return
				}
				more, err := r.fetch()
				if err != nil || !more {
					return
				}
			}
			k := changelog.Insert
			if r.changes != nil {
				k = r.changes.kinds[i]
			}
			if !yield(k, r.rows[i]) {
				return
			}
		}
	}
}

// Close stops a streaming job that is still running (say over an
// unbounded source) and waits for it to end. It does nothing for
// complete results.
func (r *TableResult) Close() error {
	if r.changes == nil || r.changes.src == nil {
		return nil
	}
	err := r.changes.src.Close()
	r.changes.src = nil
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// streamColumnWidth is the width Flink's tableau printer gives a column of
// a streaming result before any row arrives: derived from the type, at
// least the header's width and 6 (for <NULL>).
func streamColumnWidth(f types.Field, maxWidth int) int {
	t := f.Type
	w := maxWidth
	switch t.Kind {
	case types.TinyInt:
		w = 4
	case types.SmallInt:
		w = 6
	case types.Int:
		w = 11
	case types.BigInt:
		w = 20
	case types.Decimal:
		w = t.Precision + 2
	case types.Boolean:
		w = 5
	case types.Date:
		w = 10
	case types.Time:
		w = 8
		if t.Precision > 0 {
			w = t.Precision + 9
		}
	case types.Timestamp, types.TimestampLTZ:
		switch p := t.Precision; {
		case p == 0:
			w = 19
		case p <= 3:
			w = 23
		case p <= 6:
			w = 26
		default:
			w = 29
		}
	}
	return max(w, displayWidth(f.Name), 6)
}

// printStream writes a streaming result as Flink's SQL client does in
// tableau mode: the header with an op column, one line per change as it
// arrives, and "Received a total of N rows". Widths come from the types.
// A job that fails after the header returns its error after the lines
// already printed.
func (r *TableResult) printStream(w io.Writer, timed bool) error {
	maxWidth := r.maxWidth
	if maxWidth <= 0 {
		maxWidth = 30
	}
	widths := make([]int, len(r.schema)+1)
	widths[0] = 2
	for i, f := range r.schema {
		widths[i+1] = streamColumnWidth(f, maxWidth)
	}
	var border strings.Builder
	border.WriteByte('+')
	for _, wd := range widths {
		border.WriteString(strings.Repeat("-", wd+2))
		border.WriteByte('+')
	}
	border.WriteByte('\n')
	line := func(b *strings.Builder, vals []string) {
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
	var b strings.Builder
	b.WriteString(border.String())
	line(&b, append([]string{"op"}, r.schema.Names()...))
	b.WriteString(border.String())
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	b.Reset()
	// Lines are written a batch of changes at a time, before waiting for
	// the next batch, so that a slow or endless job still shows its rows
	// as they arrive.
	n := 0
	vals := make([]string, len(widths))
	for {
		for ; n < len(r.rows); n++ {
			row := r.rows[n]
			vals[0] = changelog.Insert.String()
			if r.changes != nil {
				vals[0] = r.changes.kinds[n].String()
			}
			for j := range r.schema {
				var v any
				if j < len(row) {
					v = row[j]
				}
				vals[j+1] = r.Format(v, r.schema[j].Type)
			}
			line(&b, vals)
		}
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
		b.Reset()
		if r.changes == nil {
			break
		}
		more, err := r.fetch()
		if err != nil {
			return classify(KindExecution, err)
		}
		if !more {
			break
		}
	}
	if n > 0 {
		b.WriteString(border.String())
	}
	noun := "rows"
	if n <= 1 {
		noun = "row"
	}
	fmt.Fprintf(&b, "Received a total of %d %s", n, noun)
	if timed {
		elapsed := r.elapsed
		if c := r.changes; c != nil && !c.end.IsZero() {
			elapsed = c.end.Sub(c.start) // the whole job, not just its start
		}
		fmt.Fprintf(&b, " (%.2f seconds)", elapsed.Seconds())
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// ToChangelogStream runs the query and returns its result as a changelog,
// as Flink's StreamTableEnvironment.toChangelogStream: iterate it with
// Changes (rows with their kinds). In batch mode every row is +I.
func (t *Table) ToChangelogStream(ctx context.Context) (*TableResult, error) {
	return t.Execute(ctx)
}

// ToDataStream runs an insert-only query and returns its rows, as Flink's
// StreamTableEnvironment.toDataStream: a query whose result updates (a
// GROUP BY, an outer join…) fails before running with Flink's error for
// the anonymous DataStream sink.
func (t *Table) ToDataStream(ctx context.Context) (res *TableResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, recovered(r)
		}
	}()
	e := t.env
	if !e.streaming() {
		return t.Execute(ctx)
	}
	now := e.now()
	_, phys, err := e.optimize(t.plan, now)
	if err != nil {
		return nil, err
	}
	if err := physical.CheckAppendOnly("Table sink '*anonymous_datastream_sink$1*'", phys); err != nil {
		return nil, classify(KindPlanner, err)
	}
	return e.startStream(ctx, phys, t.plan.Schema(), now)
}
