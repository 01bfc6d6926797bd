package jdbc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// SinkSpec describes one write into a jdbc table.
type SinkSpec struct {
	Options *Options
	// Schema is the table's physical schema (the input batches' schema).
	Schema types.Schema
	// Keys are the PRIMARY KEY columns (indexes into Schema); none means
	// append.
	Keys []int
}

// Sink writes rows into a PostgreSQL table as Flink's JDBC sink does:
// with a primary key it upserts +I/+U rows (INSERT … ON CONFLICT (key)
// DO UPDATE) and deletes -D/-U rows by key, keeping only the last change
// per key of a buffer (Flink's TableBufferReducedStatementExecutor);
// without one it appends. Rows are buffered and flushed, in one
// transaction, when sink.buffer-flush.max-rows are buffered, every
// sink.buffer-flush.interval, at each checkpoint barrier (Flush) and at
// the end. A failed flush is retried sink.max-retries times, reconnecting.
// Output is at-least-once: a restart may write a checkpoint's rows again,
// which upserts make harmless.
type Sink struct {
	spec   SinkSpec
	insert string // INSERT or upsert statement
	delete string

	mu      sync.Mutex
	conn    *pgx.Conn
	rows    [][]any // buffered rows (pgx values)
	kinds   []bool  // true: upsert/insert, false: delete
	byKey   map[string]int
	bgErr   error
	stop    chan struct{}
	stopped chan struct{}
	// Flushes counts the flushes that wrote rows (tests).
	Flushes int
}

// NewSink returns a sink.
func NewSink(spec SinkSpec) (*Sink, error) {
	o := spec.Options
	cols := make([]string, len(spec.Schema))
	ph := make([]string, len(spec.Schema))
	for i, f := range spec.Schema {
		cols[i] = quoteIdent(f.Name)
		ph[i] = fmt.Sprintf("$%d", i+1)
	}
	s := &Sink{spec: spec}
	s.insert = "INSERT INTO " + quoteTable(o.Table) + "(" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(ph, ", ") + ")"
	if len(spec.Keys) > 0 {
		isKey := map[int]bool{}
		var keys, conds []string
		for n, k := range spec.Keys {
			isKey[k] = true
			keys = append(keys, cols[k])
			conds = append(conds, fmt.Sprintf("%s = $%d", cols[k], n+1))
		}
		var set []string
		for i, c := range cols {
			if !isKey[i] {
				set = append(set, c+"=EXCLUDED."+c)
			}
		}
		s.insert += " ON CONFLICT (" + strings.Join(keys, ", ") + ")"
		if len(set) == 0 {
			s.insert += " DO NOTHING"
		} else {
			s.insert += " DO UPDATE SET " + strings.Join(set, ", ")
		}
		s.delete = "DELETE FROM " + quoteTable(o.Table) + " WHERE " + strings.Join(conds, " AND ")
		s.byKey = map[string]int{}
	}
	return s, nil
}

// Open connects and starts the interval flusher.
func (s *Sink) Open(ctx context.Context) error {
	c, err := connect(ctx, s.spec.Options)
	if err != nil {
		return err
	}
	s.conn = c
	if err := s.check(ctx); err != nil {
		return err
	}
	if d := s.spec.Options.FlushInterval; d > 0 && s.spec.Options.FlushMaxRows != 1 {
		s.stop, s.stopped = make(chan struct{}), make(chan struct{})
		go s.ticker(d)
	}
	return nil
}

// check compares the table's columns with the declared types.
func (s *Sink) check(ctx context.Context) error {
	cols := make([]string, len(s.spec.Schema))
	for i, f := range s.spec.Schema {
		cols[i] = quoteIdent(f.Name)
	}
	rows, err := s.conn.Query(ctx, "SELECT "+strings.Join(cols, ", ")+" FROM "+quoteTable(s.spec.Options.Table)+" LIMIT 0")
	if err != nil {
		return fmt.Errorf("jdbc: writing '%s': %w", s.spec.Options.Table, err)
	}
	defer rows.Close()
	return checkColumns(s.spec.Options.Table, rows.FieldDescriptions(), s.spec.Schema)
}

func (s *Sink) ticker(d time.Duration) {
	defer close(s.stopped)
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.mu.Lock()
			if s.bgErr == nil && len(s.rows) > 0 {
				s.bgErr = s.flushLocked(context.Background())
			}
			s.mu.Unlock()
		}
	}
}

// Write buffers a batch and flushes when the buffer is full.
func (s *Sink) Write(ctx context.Context, b vectorized.Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bgErr != nil {
		return s.bgErr
	}
	n := b.NumRows()
	for i := range n {
		k := b.Kind(i)
		upsert := k == changelog.Insert || k == changelog.UpdateAfter
		if !upsert && s.byKey == nil {
			return fmt.Errorf("jdbc: the table '%s' has no primary key: it can take only inserts, not %s rows (declare a PRIMARY KEY for a query with updates or deletes)", s.spec.Options.Table, k)
		}
		row := make([]any, len(s.spec.Schema))
		for c, f := range s.spec.Schema {
			v, err := toPG(types.GetValue(b.Rec.Column(c), i, f.Type), f.Type)
			if err != nil {
				return fmt.Errorf("jdbc: column '%s': %w", f.Name, err)
			}
			row[c] = v
		}
		if s.byKey != nil {
			key := s.keyOf(row)
			if at, ok := s.byKey[key]; ok {
				s.rows[at], s.kinds[at] = row, upsert
				continue
			}
			s.byKey[key] = len(s.rows)
		}
		s.rows = append(s.rows, row)
		s.kinds = append(s.kinds, upsert)
		if max := s.spec.Options.FlushMaxRows; max > 0 && len(s.rows) >= max {
			if err := s.flushLocked(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Sink) keyOf(row []any) string {
	var b strings.Builder
	for _, k := range s.spec.Keys {
		fmt.Fprintf(&b, "%T:%v\x00", row[k], row[k])
	}
	return b.String()
}

// Flush writes the buffered rows: the sink's part of a checkpoint
// (connectors.FlushingSink).
func (s *Sink) Flush(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bgErr != nil {
		return s.bgErr
	}
	return s.flushLocked(ctx)
}

func (s *Sink) flushLocked(ctx context.Context) error {
	if len(s.rows) == 0 {
		return nil
	}
	o := s.spec.Options
	var err error
	for try := 0; ; try++ {
		if s.conn == nil || s.conn.IsClosed() {
			if s.conn, err = connect(ctx, o); err != nil {
				s.conn = nil
			}
		}
		if s.conn != nil {
			if err = s.execLocked(ctx); err == nil {
				break
			}
			if s.conn.PgConn().IsBusy() || errors.Is(err, context.DeadlineExceeded) {
				s.conn.Close(context.Background())
				s.conn = nil
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if try >= o.SinkMaxRetries {
			return fmt.Errorf("jdbc: writing %d rows into '%s' failed after %d retries (%s): %w", len(s.rows), o.Table, try, KeySinkMaxRetries, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(try+1) * time.Second):
		}
	}
	s.Flushes++
	s.rows, s.kinds = s.rows[:0], s.kinds[:0]
	if s.byKey != nil {
		clear(s.byKey)
	}
	return nil
}

// execLocked writes the buffer in one transaction, pipelined.
func (s *Sink) execLocked(ctx context.Context) error {
	tx, err := s.conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var batch pgx.Batch
	for i, row := range s.rows {
		if s.kinds[i] {
			batch.Queue(s.insert, row...)
			continue
		}
		keys := make([]any, len(s.spec.Keys))
		for n, k := range s.spec.Keys {
			keys[n] = row[k]
		}
		batch.Queue(s.delete, keys...)
	}
	if err := tx.SendBatch(ctx, &batch).Close(); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Finish flushes what is left.
func (s *Sink) Finish(ctx context.Context) error {
	s.stopTicker()
	return s.Flush(ctx)
}

func (s *Sink) stopTicker() {
	if s.stop != nil {
		close(s.stop)
		<-s.stopped
		s.stop = nil
	}
}

// Close stops the flusher and disconnects; rows not flushed are dropped
// (the job failed or was cancelled).
func (s *Sink) Close() error {
	s.stopTicker()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		s.conn.Close(context.Background())
		s.conn = nil
	}
	return nil
}
