package jdbc

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// LookupSpec describes the lookups of one temporal join.
type LookupSpec struct {
	Options *Options
	// Schema is the table's physical schema.
	Schema types.Schema
	// Projection lists the columns to return (nil: all).
	Projection []int
	// Keys are the looked-up columns (indexes into Schema), in the
	// join's key order.
	Keys []int
	// Filters are pushed-down predicates the rows must also satisfy.
	Filters []catalog.Expression
}

// Lookup is the jdbc lookup function: one query per batch of keys,
//
//	SELECT u.ord, t.c… FROM table t JOIN unnest($1::T1[], …) WITH
//	ORDINALITY AS u(k1, …, ord) ON t.k1 = u.k1 AND … [AND filters]
//
// retried lookup.max-retries times on failure, reconnecting (Flink's
// JdbcRowDataLookupFunction).
type Lookup struct {
	spec LookupSpec
	out  types.Schema
	sql  string
	fil  []any
	conn *pgx.Conn
	as   *arrow.Schema
}

var lookupQueries, lookupKeys atomic.Int64

// LookupCounts returns how many lookup queries the process sent so far
// and how many keys they asked for (tests and benchmarks count what the
// cache saves).
func LookupCounts() (queries, keys int64) { return lookupQueries.Load(), lookupKeys.Load() }

// NewLookup returns a lookup function.
func NewLookup(spec LookupSpec) (*Lookup, error) {
	if len(spec.Keys) == 0 {
		return nil, fmt.Errorf("internal: jdbc lookup without keys")
	}
	out := spec.Schema
	if spec.Projection != nil {
		out = make(types.Schema, len(spec.Projection))
		for i, p := range spec.Projection {
			out[i] = spec.Schema[p]
		}
	}
	l := &Lookup{spec: spec, out: out}
	cols := []string{"u.tablerun_ord"}
	for _, f := range out {
		cols = append(cols, "t."+quoteIdent(f.Name))
	}
	var arrays, names, on []string
	for i, k := range spec.Keys {
		f := spec.Schema[k]
		arrays = append(arrays, fmt.Sprintf("$%d::%s[]", i+1, pgTypeName(f.Type)))
		names = append(names, fmt.Sprintf("k%d", i))
		on = append(on, fmt.Sprintf("t.%s = u.k%d", quoteIdent(f.Name), i))
	}
	for _, f := range spec.Filters {
		s, a, ok := renderFilter(f, spec.Schema, len(spec.Keys)+len(l.fil), "t.")
		if !ok {
			return nil, fmt.Errorf("internal: jdbc cannot apply filter %s", f)
		}
		on = append(on, "("+s+")")
		l.fil = append(l.fil, a...)
	}
	l.sql = "SELECT " + strings.Join(cols, ", ") + " FROM " + quoteTable(spec.Options.Table) + " t JOIN unnest(" +
		strings.Join(arrays, ", ") + ") WITH ORDINALITY AS u(" + strings.Join(names, ", ") + ", tablerun_ord) ON " +
		strings.Join(on, " AND ")
	var err error
	if l.as, err = types.ArrowSchema(out); err != nil {
		return nil, err
	}
	return l, nil
}

// Schema is the schema of the rows Lookup returns.
func (l *Lookup) Schema() types.Schema { return l.out }

// SQL is the lookup query.
func (l *Lookup) SQL() string { return l.sql }

// Open implements vectorized.LookupFunction.
func (l *Lookup) Open(ctx context.Context) error {
	c, err := connect(ctx, l.spec.Options)
	if err != nil {
		return err
	}
	l.conn = c
	return nil
}

// Lookup implements vectorized.LookupFunction.
func (l *Lookup) Lookup(ctx context.Context, keys []arrow.Array) (arrow.RecordBatch, []int32, error) {
	if len(keys) != len(l.spec.Keys) {
		return nil, nil, fmt.Errorf("internal: jdbc lookup of %d key columns, want %d", len(keys), len(l.spec.Keys))
	}
	n := 0
	if len(keys) > 0 {
		n = keys[0].Len()
	}
	args := make([]any, 0, len(keys)+len(l.fil))
	for i, k := range l.spec.Keys {
		t := l.spec.Schema[k].Type
		vals := make([]any, n)
		for r := range n {
			v, err := toPG(types.GetValue(keys[i], r, t), t)
			if err != nil {
				return nil, nil, err
			}
			vals[r] = v
		}
		args = append(args, vals)
	}
	args = append(args, l.fil...)
	o := l.spec.Options
	var err error
	for try := 0; ; try++ {
		if l.conn == nil || l.conn.IsClosed() {
			l.conn, err = connect(ctx, o)
		}
		if err == nil {
			var rec arrow.RecordBatch
			var of []int32
			if rec, of, err = l.query(ctx, args); err == nil {
				lookupQueries.Add(1)
				lookupKeys.Add(int64(n))
				return rec, of, nil
			}
			if isMapping(err) {
				return nil, nil, err
			}
			if l.conn != nil {
				l.conn.Close(context.Background())
			}
			l.conn = nil
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if try >= o.LookupMaxRetries {
			return nil, nil, fmt.Errorf("jdbc: looking %d keys up in '%s' failed after %d retries (%s): %w", n, o.Table, try, KeyLookupMaxRetries, err)
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(time.Duration(try+1) * time.Second):
		}
	}
}

type mappingError struct{ error }

func (e mappingError) Unwrap() error { return e.error }

func isMapping(err error) bool { _, ok := err.(mappingError); return ok }

func (l *Lookup) query(ctx context.Context, args []any) (arrow.RecordBatch, []int32, error) {
	rows, err := l.conn.Query(ctx, l.sql, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	fd := rows.FieldDescriptions()
	if len(fd) > 0 {
		if err := checkColumns(l.spec.Options.Table, fd[1:], l.out); err != nil {
			return nil, nil, mappingError{err}
		}
	}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, l.as)
	defer rb.Release()
	var of []int32
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, nil, err
		}
		ord, ok := vals[0].(int64)
		if !ok {
			return nil, nil, fmt.Errorf("internal: jdbc lookup ordinal %T", vals[0])
		}
		if err := appendRow(rb, vals[1:], l.out); err != nil {
			return nil, nil, mappingError{err}
		}
		of = append(of, int32(ord-1))
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	return rb.NewRecordBatch(), of, nil
}

// Close implements vectorized.LookupFunction.
func (l *Lookup) Close() error {
	if l.conn != nil {
		l.conn.Close(context.Background())
		l.conn = nil
	}
	return nil
}

var _ vectorized.LookupFunction = (*Lookup)(nil)
