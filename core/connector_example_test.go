package core_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/connectors"
	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/vectorized"
)

// sequenceFactory is a custom connector: 'connector' = 'sequence' reads
// the numbers 1 … 'end' as one BIGINT column. It declares its abilities
// (connectors.AbilitiesFactory): it is bounded, takes comparisons of its
// column with a constant as filters and stops after a limit.
type sequenceFactory struct{}

func (sequenceFactory) Identifier() string        { return "sequence" }
func (sequenceFactory) RequiredOptions() []string { return []string{"end"} }
func (sequenceFactory) OptionalOptions() []string { return nil }

func (sequenceFactory) Abilities(*catalog.ResolvedTable) catalog.Abilities {
	return catalog.Abilities{
		Bounded:            true,
		ProjectionPushDown: true,
		LimitPushDown:      true,
		ApplyFilters: func(filters []catalog.Expression) catalog.FilterResult {
			var res catalog.FilterResult
			for i, f := range filters {
				if _, _, ok := bound(f); ok {
					res.Accepted = append(res.Accepted, i) // applied fully
				} else {
					res.Remaining = append(res.Remaining, i)
				}
			}
			return res
		},
	}
}

// bound reads a filter "column op constant" the source applies itself.
func bound(f catalog.Expression) (op string, v int64, ok bool) {
	c, isCall := f.(*catalog.CallExpr)
	if !isCall || len(c.Args) != 2 {
		return "", 0, false
	}
	if _, isField := c.Args[0].(*catalog.FieldRef); !isField {
		return "", 0, false
	}
	lit, isLit := c.Args[1].(*catalog.ValueLiteral)
	if !isLit {
		return "", 0, false
	}
	switch x := lit.Value.(type) {
	case int64:
		v = x
	case int32:
		v = int64(x)
	default:
		return "", 0, false
	}
	switch c.Name {
	case ">", ">=", "<", "<=", "=":
		return c.Name, v, true
	}
	return "", 0, false
}

func (f sequenceFactory) CreateSource(cx *connectors.Context, spec connectors.SourceSpec) (vectorized.Source, error) {
	if err := connectors.ValidateOptions(f, spec.Table); err != nil {
		return nil, err
	}
	end, err := strconv.ParseInt(spec.Table.Table.Options["end"], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("'end' of table %s is no number", spec.Table.ID.Summary())
	}
	return &sequenceSource{end: end, filters: spec.Filters, limit: spec.Limit}, nil
}

func (sequenceFactory) CreateSink(*connectors.Context, connectors.SinkSpec) (connectors.Sink, error) {
	return nil, fmt.Errorf("Connector 'sequence' can only be used as a source. It cannot be used as a sink.")
}

type sequenceSource struct {
	end     int64
	filters []catalog.Expression
	limit   int64
}

func (s *sequenceSource) Open(context.Context) error { return nil }
func (s *sequenceSource) Close() error               { return nil }

func (s *sequenceSource) Run(ctx context.Context, out vectorized.Collector) error {
	b := array.NewInt64Builder(vectorized.Mem)
	defer b.Release()
	for n := int64(1); n <= s.end && (s.limit <= 0 || int64(b.Len()) < s.limit); n++ {
		if s.keep(n) {
			b.Append(n)
		}
	}
	col := b.NewArray()
	schema := arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	return out.Emit(ctx, vectorized.Batch{Rec: array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))})
}

func (s *sequenceSource) keep(n int64) bool {
	for _, f := range s.filters {
		op, v, _ := bound(f)
		ok := map[string]bool{">": n > v, ">=": n >= v, "<": n < v, "<=": n <= v, "=": n == v}[op]
		if !ok {
			return false
		}
	}
	return true
}

// ExampleTableEnvironment_RegisterConnectorFactory registers a custom
// connector. The planner pushes the filter the source takes into its
// scan (filter=[…]) and keeps the other one in a Calc; with every filter
// taken, the LIMIT reaches the source too (limit=[…]).
func ExampleTableEnvironment_RegisterConnectorFactory() {
	ctx := context.Background()
	e := core.NewTableEnvironment(core.InBatchMode())
	if err := e.RegisterConnectorFactory(sequenceFactory{}); err != nil {
		panic(err)
	}
	if _, err := e.ExecuteSQL(ctx, "CREATE TABLE seq (n BIGINT) WITH ('connector' = 'sequence', 'end' = '100')"); err != nil {
		panic(err)
	}
	for _, q := range []string{
		"SELECT n FROM seq WHERE n > 90 AND MOD(n, 3) = 0",
		"SELECT n FROM seq WHERE n >= 42 LIMIT 3",
	} {
		plan, err := e.ExecuteSQL(ctx, "EXPLAIN "+q)
		if err != nil {
			panic(err)
		}
		text := fmt.Sprint(plan.Rows()[0][0])
		physical := text[strings.Index(text, "== Optimized Physical Plan =="):strings.Index(text, "== Optimized Execution Plan ==")]
		fmt.Print(physical)
		res, err := e.ExecuteSQL(ctx, q)
		if err != nil {
			panic(err)
		}
		if err := res.Print(os.Stdout); err != nil {
			panic(err)
		}
	}
	// Output:
	// == Optimized Physical Plan ==
	// Calc(select=[n], where=[=(CAST(MOD(n, 3:BIGINT) AS INT), 0)])
	// +- TableSourceScan(table=[[default_catalog, default_database, seq, filter=[>(n, 90:BIGINT)]]], fields=[n])
	//
	// +----+
	// |  n |
	// +----+
	// | 93 |
	// | 96 |
	// | 99 |
	// +----+
	// 3 rows in set
	// == Optimized Physical Plan ==
	// Limit(offset=[0], fetch=[3])
	// +- TableSourceScan(table=[[default_catalog, default_database, seq, filter=[>=(n, 42:BIGINT)], limit=[3]]], fields=[n])
	//
	// +----+
	// |  n |
	// +----+
	// | 42 |
	// | 43 |
	// | 44 |
	// +----+
	// 3 rows in set
}
