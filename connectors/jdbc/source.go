package jdbc

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// ScanSpec describes one scan of a jdbc table.
type ScanSpec struct {
	Options *Options
	// Schema is the table's physical schema.
	Schema types.Schema
	// Projection lists the columns to read (nil: all).
	Projection []int
	// Filters are pushed-down predicates (only those Pushable accepted),
	// field references indexing Schema.
	Filters []catalog.Expression
	// Limit, when positive, bounds the rows of each query.
	Limit     int64
	BatchSize int
}

// Source is a bounded scan of a jdbc table: one query, or with
// scan.partition.* one query per range of the partition column; parallel
// instances take the ranges round-robin (connectors.SplitSource).
type Source struct {
	spec          ScanSpec
	out           types.Schema
	split, splits int
	conn          *pgx.Conn
}

// NewSource returns a scan.
func NewSource(spec ScanSpec) (*Source, error) {
	out := spec.Schema
	if spec.Projection != nil {
		out = make(types.Schema, len(spec.Projection))
		for i, p := range spec.Projection {
			if p < 0 || p >= len(spec.Schema) {
				return nil, fmt.Errorf("internal: jdbc projection %d out of range", p)
			}
			out[i] = spec.Schema[p]
		}
	}
	if spec.BatchSize <= 0 {
		spec.BatchSize = vectorized.DefaultBatchSize
	}
	if spec.Options.Partitioned {
		found := false
		for _, f := range spec.Schema {
			if f.Name == spec.Options.PartitionColumn {
				found = true
				if !f.Type.IsInteger() && f.Type.Kind != types.Decimal {
					return nil, fmt.Errorf("not supported yet: the partition column '%s' of type %s (numeric columns are)", f.Name, f.Type)
				}
			}
		}
		if !found {
			return nil, fmt.Errorf("The partition column '%s' is not a column of the table.", spec.Options.PartitionColumn)
		}
	}
	return &Source{spec: spec, out: out, splits: 1}, nil
}

// SetSplit implements connectors.SplitSource.
func (s *Source) SetSplit(index, count int) error {
	if count < 1 || index < 0 || index >= count {
		return fmt.Errorf("jdbc source: bad split %d of %d", index, count)
	}
	s.split, s.splits = index, count
	return nil
}

// Open implements vectorized.Source: it connects (within
// connection.max-retry-timeout).
func (s *Source) Open(ctx context.Context) error {
	c, err := connect(ctx, s.spec.Options)
	if err != nil {
		return err
	}
	s.conn = c
	return nil
}

// Partitions returns the [lower, upper] ranges of a partitioned scan, as
// Flink's JdbcNumericBetweenParametersProvider cuts them: num ranges of
// sizes differing by at most one, the larger first.
func Partitions(lower, upper int64, num int) [][2]int64 {
	count := upper - lower + 1
	if int64(num) > count {
		num = int(count)
	}
	size := (count + int64(num) - 1) / int64(num)
	big := count - (size-1)*int64(num)
	out := make([][2]int64, 0, num)
	start := lower
	for i := range int64(num) {
		end := start + size - 1
		if i >= big {
			end--
		}
		out = append(out, [2]int64{start, end})
		start = end + 1
	}
	return out
}

// queries returns this instance's queries and their arguments.
func (s *Source) queries() ([]string, [][]any, error) {
	o := s.spec.Options
	cols := make([]string, len(s.out))
	for i, f := range s.out {
		cols[i] = quoteIdent(f.Name)
	}
	base := "SELECT " + strings.Join(cols, ", ") + " FROM " + quoteTable(o.Table)
	var conds []string
	var args []any
	for _, f := range s.spec.Filters {
		sql, a, ok := renderFilter(f, s.spec.Schema, len(args), "")
		if !ok {
			return nil, nil, fmt.Errorf("internal: jdbc cannot apply filter %s", f)
		}
		conds = append(conds, sql)
		args = append(args, a...)
	}
	limit := ""
	if s.spec.Limit > 0 {
		limit = " LIMIT " + strconv.FormatInt(s.spec.Limit, 10)
	}
	if !o.Partitioned {
		if s.split != 0 {
			return nil, nil, nil
		}
		q := base
		if len(conds) > 0 {
			q += " WHERE " + strings.Join(conds, " AND ")
		}
		return []string{q + limit}, [][]any{args}, nil
	}
	var qs []string
	var as [][]any
	for i, p := range Partitions(o.Lower, o.Upper, o.PartitionNum) {
		if i%s.splits != s.split {
			continue
		}
		n := len(args)
		c := append([]string{fmt.Sprintf("%s BETWEEN $%d AND $%d", quoteIdent(o.PartitionColumn), n+1, n+2)}, conds...)
		qs = append(qs, base+" WHERE "+strings.Join(c, " AND ")+limit)
		as = append(as, append(append([]any{}, args...), p[0], p[1]))
	}
	return qs, as, nil
}

// Run implements vectorized.Source.
func (s *Source) Run(ctx context.Context, out vectorized.Collector) error {
	qs, as, err := s.queries()
	if err != nil {
		return err
	}
	for i, q := range qs {
		if err := s.run(ctx, q, as[i], out); err != nil {
			return err
		}
	}
	return nil
}

func (s *Source) run(ctx context.Context, q string, args []any, out vectorized.Collector) error {
	o := s.spec.Options
	var tx pgx.Tx
	if !o.AutoCommit {
		var err error
		if tx, err = s.conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly}); err != nil {
			return fmt.Errorf("jdbc: reading '%s': %w", o.Table, err)
		}
		defer tx.Rollback(context.WithoutCancel(ctx))
	}
	rows, err := s.conn.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("jdbc: reading '%s': %w", o.Table, err)
	}
	defer rows.Close()
	if err := checkColumns(o.Table, rows.FieldDescriptions(), s.out); err != nil {
		return err
	}
	as, err := types.ArrowSchema(s.out)
	if err != nil {
		return err
	}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, as)
	defer rb.Release()
	n := 0
	emit := func() error {
		rec := rb.NewRecordBatch()
		n = 0
		return out.Emit(ctx, vectorized.Batch{Rec: rec})
	}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return fmt.Errorf("jdbc: reading '%s': %w", o.Table, err)
		}
		if err := appendRow(rb, vals, s.out); err != nil {
			return fmt.Errorf("jdbc: reading '%s': %w", o.Table, err)
		}
		if n++; n >= s.spec.BatchSize {
			if err := emit(); err != nil {
				return err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("jdbc: reading '%s': %w", o.Table, err)
	}
	if n > 0 {
		if err := emit(); err != nil {
			return err
		}
	}
	if tx != nil {
		return tx.Commit(ctx)
	}
	return nil
}

// appendRow appends one row of decoded values.
func appendRow(rb *array.RecordBuilder, vals []any, schema types.Schema) error {
	for i, v := range vals {
		c, err := fromPG(v, schema[i].Type)
		if err != nil {
			return fmt.Errorf("column '%s': %w", schema[i].Name, err)
		}
		if err := types.AppendValue(rb.Field(i), c, schema[i].Type); err != nil {
			return fmt.Errorf("column '%s': %w", schema[i].Name, err)
		}
	}
	return nil
}

// Close implements vectorized.Source.
func (s *Source) Close() error {
	if s.conn != nil {
		s.conn.Close(context.Background())
		s.conn = nil
	}
	return nil
}

// Schema is the scan's output schema.
func (s *Source) Schema() types.Schema { return s.out }

var _ vectorized.Source = (*Source)(nil)
