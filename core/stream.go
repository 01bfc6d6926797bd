package core

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
	"sync/atomic"
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

// changes is the changelog of a streaming query result. A change is handed
// out once: the result's rows (TableResult.rows, with kinds here) hold only
// the changes received but not yet handed out (the first batch, which
// startStream waits for, and whatever Rows or RowKinds collected), so that
// reading an unbounded result with Changes, ChangeBatches or Follow keeps
// nothing.
type changes struct {
	kinds []changelog.RowKind // row kinds of TableResult.rows
	// src is the running job; nil for a result complete when made
	// (EXPLAIN ANALYZE). Only the goroutine reading the result calls
	// Next; Close may come from any goroutine.
	src    jobStream
	ended  bool        // the job ended (successfully or with err)
	err    error       // the error that ended the job
	closed atomic.Bool // Close was called: its cancellation is no error
	start  time.Time   // when the statement started
	end    time.Time   // when the job ended
}

// jobStream is the job a streaming result reads: a local one (localJob)
// or an operation on a Flink cluster's SQL Gateway (remote.go). Next
// returns the next changes (possibly none) or io.EOF after the last; Close
// stops the job (from any goroutine) and returns the error that ended it.
type jobStream interface {
	Next() (ChangeBatch, error)
	Close() error
}

// localJob is a job of this process (build.Stream) whose root delivers
// rows of schema.
type localJob struct {
	s      *build.Stream
	schema types.Schema
}

func (j localJob) Next() (ChangeBatch, error) {
	batch, err := j.s.Next()
	if err != nil {
		return ChangeBatch{}, err
	}
	n := batch.NumRows()
	if n == 0 {
		return ChangeBatch{}, nil
	}
	b := ChangeBatch{Kinds: make([]changelog.RowKind, n)}
	for i := range b.Kinds {
		b.Kinds[i] = batch.Kind(i)
	}
	b.Rows = types.RecordRows(batch.Rec, j.schema)
	return b, nil
}

func (j localJob) Close() error { return j.s.Close() }

// ChangeBatch is a run of consecutive changes of a streaming result, as
// the job's last operator emitted them: Kinds[i] is the kind of Rows[i].
// The caller owns both slices.
type ChangeBatch struct {
	Kinds []changelog.RowKind
	Rows  []Row
}

// Len returns the number of changes.
func (b ChangeBatch) Len() int { return len(b.Rows) }

// DefaultFlushInterval is how long Follow lets applied changes wait
// before it flushes them: a change is visible to the user at most this
// long after it left the job's last operator.
const DefaultFlushInterval = 100 * time.Millisecond

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
		changes:  &changes{src: localJob{build.Start(ctx, phys, e.buildEnv(now)), schema}, start: time.Now()},
	}
	// Wait for the first change (or the end): errors of building the job
	// are statement errors, as in Flink.
	if _, err := res.fetch(); err != nil {
		return nil, classify(KindExecution, err)
	}
	return res, nil
}

// next hands out the next batch of changes: the buffered ones first, then
// the job's next non-empty batch. ok is false when the job has ended (err
// is what ended it; nil after a normal end or Close).
func (r *TableResult) next() (b ChangeBatch, ok bool, err error) {
	c := r.changes
	if len(r.rows) > 0 {
		b = ChangeBatch{Kinds: c.kinds, Rows: r.rows}
		r.rows, c.kinds = nil, nil
		return b, true, nil
	}
	if c.src == nil || c.ended {
		return b, false, c.err
	}
	for {
		nb, err := c.src.Next()
		if err != nil {
			if err == io.EOF {
				err = c.src.Close()
			} else {
				_ = c.src.Close()
			}
			if errors.Is(err, context.Canceled) && c.closed.Load() {
				err = nil
			}
			c.ended, c.err, c.end = true, err, time.Now()
			return b, false, err
		}
		if nb.Len() == 0 {
			continue
		}
		return nb, true, nil
	}
}

// unread puts back the changes of b from i on, so that the next reader
// gets them first.
func (r *TableResult) unread(b ChangeBatch, i int) {
	if i >= b.Len() {
		return
	}
	r.rows = append(b.Rows[i:len(b.Rows):len(b.Rows)], r.rows...)
	r.changes.kinds = append(b.Kinds[i:len(b.Kinds):len(b.Kinds)], r.changes.kinds...)
}

// fetch receives the next batch of changes into the result's buffer; it
// returns false when the job has ended (successfully, or with the error).
func (r *TableResult) fetch() (bool, error) {
	c := r.changes
	if c == nil {
		return false, nil
	}
	if c.src == nil || c.ended {
		return false, c.err
	}
	rows, kinds := r.rows, c.kinds
	r.rows, c.kinds = nil, nil
	b, ok, err := r.next()
	r.rows, c.kinds = append(rows, b.Rows...), append(kinds, b.Kinds...)
	return ok, err
}

func (c *changes) errOrNil() error {
	if c == nil {
		return nil
	}
	return c.err
}

// drain receives every remaining change into the buffer (it blocks until
// the job ends).
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
// for batch results, after a normal end and after Close. A job ended by
// the cancellation of the statement's context gives an error that
// errors.Is context.Canceled.
func (r *TableResult) Err() error {
	if r.changes == nil || r.changes.err == nil {
		return nil
	}
	return classify(KindExecution, r.changes.err)
}

// Changes iterates over the result's changelog as it arrives: each row
// with its kind (+I for batch results). For a streaming query it follows
// the running job and ends when the job ends (see Err) or the loop stops.
// A streaming result hands each change out once and keeps none of them:
// an unbounded query can be read this way for ever in bounded memory, and
// a second loop goes on where the first stopped.
func (r *TableResult) Changes() iter.Seq2[changelog.RowKind, Row] {
	return func(yield func(changelog.RowKind, Row) bool) {
		if r.changes == nil {
			for _, row := range r.rows {
				if !yield(changelog.Insert, row) {
					return
				}
			}
			return
		}
		for {
			b, ok, _ := r.next()
			if !ok {
				return
			}
			for i, row := range b.Rows {
				if !yield(b.Kinds[i], row) {
					r.unread(b, i+1)
					return
				}
			}
		}
	}
}

// ChangeBatches iterates over a streaming result's changelog a batch at a
// time, as the job's last operator emitted it (a -U and its +U, and the
// changes of one mini-batch bundle, come in the same batch). Like Changes
// it keeps nothing. A batch result is one batch of +I rows.
func (r *TableResult) ChangeBatches() iter.Seq[ChangeBatch] {
	return func(yield func(ChangeBatch) bool) {
		if r.changes == nil {
			if len(r.rows) > 0 {
				yield(ChangeBatch{Kinds: make([]changelog.RowKind, len(r.rows)), Rows: r.rows})
			}
			return
		}
		for {
			b, ok, _ := r.next()
			if !ok || !yield(b) {
				return
			}
		}
	}
}

// Follow reads the result's changes on a goroutine of its own and hands
// them to apply a batch at a time; flush is called once no more than
// every after changes were applied, and once at the end if any change is
// not flushed yet. apply and flush run on the caller's goroutine, never
// at the same time, so apply may write to a buffer that flush empties
// (the clients write changes to a buffered writer, or update a View, and
// flush draws). Reading goes on while apply waits, one batch ahead:
// memory stays bounded. Follow returns when the job ends (with Err), when
// apply or flush fail (the job is closed; their error), or when ctx ends
// (the job is closed; ctx.Err()). every <= 0 means DefaultFlushInterval.
func (r *TableResult) Follow(ctx context.Context, every time.Duration, apply func(ChangeBatch) error, flush func() error) error {
	if every <= 0 {
		every = DefaultFlushInterval
	}
	batches := make(chan ChangeBatch, 1)
	stop := make(chan struct{})
	go func() {
		defer close(batches)
		for b := range r.ChangeBatches() {
			select {
			case batches <- b:
			case <-stop:
				return
			}
		}
	}()
	quit := func() {
		close(stop)
		_ = r.Close()
		for range batches {
		}
	}
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	dirty := false
	for {
		select {
		case b, ok := <-batches:
			if !ok {
				if dirty {
					if err := flush(); err != nil {
						return err
					}
				}
				return r.Err()
			}
			if err := apply(b); err != nil {
				quit()
				return err
			}
			dirty = true
		case <-ticker.C:
			if dirty {
				dirty = false
				if err := flush(); err != nil {
					quit()
					return err
				}
			}
		case <-ctx.Done():
			quit()
			if dirty {
				_ = flush()
			}
			return ctx.Err()
		}
	}
}

// Close stops a streaming job that is still running (say over an
// unbounded source) and waits for it to end. It does nothing for
// complete results. It may be called from any goroutine, also while
// another one reads the result (its loop then ends).
func (r *TableResult) Close() error {
	if r.changes == nil || r.changes.src == nil {
		return nil
	}
	r.changes.closed.Store(true)
	err := r.changes.src.Close()
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
// Lines go through a buffer that Follow flushes at most
// DefaultFlushInterval after a change arrived, and nothing is kept once
// written. A job that fails after the header returns its error after the
// lines already printed; one whose statement was canceled ends with
// Flink's "Query terminated, received a total of N rows" and returns an
// error that errors.Is context.Canceled.
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
	var pad []byte
	line := func(b *bufio.Writer, vals []string) {
		b.WriteByte('|')
		for j, v := range vals {
			dw := displayWidth(v)
			if dw > widths[j] {
				v = truncate(v, widths[j])
				dw = displayWidth(v)
			}
			b.WriteByte(' ')
			for len(pad) < widths[j]-dw {
				pad = append(pad, ' ')
			}
			b.Write(pad[:widths[j]-dw])
			b.WriteString(v)
			b.WriteString(" |")
		}
		b.WriteByte('\n')
	}
	b := bufio.NewWriterSize(w, 64<<10)
	b.WriteString(border.String())
	line(b, append([]string{"op"}, r.schema.Names()...))
	b.WriteString(border.String())
	if err := b.Flush(); err != nil {
		return err
	}
	n := 0
	vals := make([]string, len(widths))
	err := r.Follow(context.Background(), DefaultFlushInterval, func(cb ChangeBatch) error {
		for i, row := range cb.Rows {
			vals[0] = cb.Kinds[i].String()
			for j := range r.schema {
				var v any
				if j < len(row) {
					v = row[j]
				}
				vals[j+1] = r.Format(v, r.schema[j].Type)
			}
			line(b, vals)
		}
		n += cb.Len()
		return nil
	}, b.Flush)
	if err != nil && !errors.Is(err, context.Canceled) {
		if ferr := b.Flush(); ferr != nil {
			return ferr
		}
		return classify(KindExecution, err)
	}
	if n > 0 {
		b.WriteString(border.String())
	}
	noun := "rows"
	if n <= 1 {
		noun = "row"
	}
	if err != nil {
		// Ctrl-C: Flink's tableau view says so with the count
		fmt.Fprintf(b, "Query terminated, received a total of %d %s\n", n, noun)
		if ferr := b.Flush(); ferr != nil {
			return ferr
		}
		return err
	}
	fmt.Fprintf(b, "Received a total of %d %s", n, noun)
	if timed {
		elapsed := r.elapsed
		if c := r.changes; c != nil && !c.end.IsZero() {
			elapsed = c.end.Sub(c.start) // the whole job, not just its start
		}
		fmt.Fprintf(b, " (%.2f seconds)", elapsed.Seconds())
	}
	b.WriteByte('\n')
	return b.Flush()
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
