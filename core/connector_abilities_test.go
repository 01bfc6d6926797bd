package core_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/connectors"
	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/vectorized"
)

// explainPhysical returns the Optimized Physical Plan section of EXPLAIN q.
func explainPhysical(t *testing.T, e *core.TableEnvironment, q string) string {
	t.Helper()
	res, err := e.ExecuteSQL(context.Background(), "EXPLAIN "+q)
	require.NoError(t, err)
	text := fmt.Sprint(res.Rows()[0][0])
	i := strings.Index(text, "== Optimized Physical Plan ==\n")
	j := strings.Index(text, "\n\n== Optimized Execution Plan ==")
	require.True(t, i >= 0 && j > i, text)
	return text[i+len("== Optimized Physical Plan ==\n") : j]
}

func rowsOf(t *testing.T, e *core.TableEnvironment, q string) [][]any {
	t.Helper()
	res, err := e.ExecuteSQL(context.Background(), q)
	require.NoError(t, err)
	return res.Rows()
}

func TestRegisterConnectorFactoryRejectsATakenIdentifier(t *testing.T) {
	e := core.NewTableEnvironment(core.InBatchMode())
	require.NoError(t, e.RegisterConnectorFactory(sequenceFactory{}))
	err := e.RegisterConnectorFactory(sequenceFactory{})
	require.ErrorContains(t, err, "Multiple factories for identifier 'sequence' that implement 'org.apache.flink.table.factories.DynamicTableFactory' found in the classpath.")
	err = e.RegisterConnectorFactory(renamed{sequenceFactory{}, "datagen"})
	require.ErrorContains(t, err, "Multiple factories for identifier 'datagen'")
}

type renamed struct {
	sequenceFactory
	id string
}

func (r renamed) Identifier() string { return r.id }

// partialFactory is the sequence connector that applies its filters only
// partially (as a file pruning would): the planner must keep them above.
type partialFactory struct {
	sequenceFactory
	offered *[][]catalog.Expression
}

func (partialFactory) Identifier() string { return "partial-sequence" }

func (f partialFactory) Abilities(t *catalog.ResolvedTable) catalog.Abilities {
	a := f.sequenceFactory.Abilities(t)
	a.ApplyFilters = func(filters []catalog.Expression) catalog.FilterResult {
		*f.offered = append(*f.offered, filters)
		var res catalog.FilterResult
		for i, x := range filters {
			if _, _, ok := bound(x); ok {
				res.Accepted = append(res.Accepted, i)
			}
			res.Remaining = append(res.Remaining, i)
		}
		return res
	}
	return a
}

func TestFilterPushDownPartialAndRemaining(t *testing.T) {
	var offered [][]catalog.Expression
	for _, rules := range []string{"", "*"} {
		t.Run("disabled-rules="+rules, func(t *testing.T) {
			settings := core.InBatchMode()
			if rules != "" {
				settings = settings.WithOption("table.optimizer.disabled-rules", rules)
			}
			e := core.NewTableEnvironment(settings)
			require.NoError(t, e.RegisterConnectorFactory(partialFactory{offered: &offered}))
			_, err := e.ExecuteSQL(context.Background(), "CREATE TABLE s (n BIGINT) WITH ('connector' = 'partial-sequence', 'end' = '20')")
			require.NoError(t, err)
			q := "SELECT n FROM s WHERE n < 4 AND n <> 2 LIMIT 5"
			plan := explainPhysical(t, e, q)
			if rules == "" {
				require.Equal(t, "Limit(offset=[0], fetch=[5])\n"+
					"+- Calc(select=[n], where=[AND(<(n, 4:BIGINT), <>(n, 2:BIGINT))])\n"+
					"   +- TableSourceScan(table=[[default_catalog, default_database, s, filter=[<(n, 4:BIGINT)]]], fields=[n])", plan,
					"the accepted filter is in the scan and, being partial, above it; the limit stays above the Calc")
			} else {
				require.NotContains(t, plan, "filter=[", "with the rule off nothing is offered")
			}
			require.Equal(t, [][]any{{int64(1)}, {int64(3)}}, rowsOf(t, e, q))
		})
	}
	require.NotEmpty(t, offered)
	first := offered[0]
	require.Len(t, first, 2)
	f := first[0].(*catalog.CallExpr)
	require.Equal(t, "<", f.Name)
	require.Equal(t, &catalog.FieldRef{Name: "n", Index: 0, Type: f.Args[0].DataType()}, f.Args[0])
}

// indexFactory records the filters its scans receive.
type indexFactory struct {
	got *[]connectors.SourceSpec
}

func (indexFactory) Identifier() string        { return "index-probe" }
func (indexFactory) RequiredOptions() []string { return nil }
func (indexFactory) OptionalOptions() []string { return nil }
func (f indexFactory) Abilities(*catalog.ResolvedTable) catalog.Abilities {
	return catalog.Abilities{Bounded: true, ProjectionPushDown: true,
		ApplyFilters: func(fs []catalog.Expression) catalog.FilterResult {
			r := catalog.FilterResult{}
			for i := range fs {
				r.Accepted = append(r.Accepted, i)
			}
			return r
		}}
}
func (f indexFactory) CreateSource(_ *connectors.Context, spec connectors.SourceSpec) (vectorized.Source, error) {
	*f.got = append(*f.got, spec)
	return emptySource{}, nil
}
func (indexFactory) CreateSink(*connectors.Context, connectors.SinkSpec) (connectors.Sink, error) {
	return nil, fmt.Errorf("no sink")
}

type emptySource struct{}

func (emptySource) Open(context.Context) error                      { return nil }
func (emptySource) Run(context.Context, vectorized.Collector) error { return nil }
func (emptySource) Close() error                                    { return nil }

func TestPushedFiltersNameTablePhysicalColumns(t *testing.T) {
	var got []connectors.SourceSpec
	e := core.NewTableEnvironment(core.InBatchMode())
	require.NoError(t, e.RegisterConnectorFactory(indexFactory{got: &got}))
	_, err := e.ExecuteSQL(context.Background(), "CREATE TABLE p (a INT, b STRING, c INT) WITH ('connector' = 'index-probe')")
	require.NoError(t, err)
	require.Empty(t, rowsOf(t, e, "SELECT a FROM p WHERE c = 7"))
	require.Len(t, got, 1)
	spec := got[0]
	require.Equal(t, []int{0, 2}, spec.Projection, "the accepted filter's column stays in the scan")
	require.Len(t, spec.Filters, 1)
	require.Equal(t, "=(c, 7)", spec.Filters[0].String())
	ref := spec.Filters[0].(*catalog.CallExpr).Args[0].(*catalog.FieldRef)
	require.Equal(t, 2, ref.Index, "field references index the physical schema, not the projection")
}

// updatingSink is a sink connector that declares it takes updates.
type updatingSink struct {
	mode changelog.Mode
	id   string
}

func (s updatingSink) Identifier() string      { return s.id }
func (updatingSink) RequiredOptions() []string { return nil }
func (updatingSink) OptionalOptions() []string { return nil }
func (s updatingSink) Abilities(*catalog.ResolvedTable) catalog.Abilities {
	return catalog.Abilities{SinkMode: s.mode}
}
func (updatingSink) CreateSource(*connectors.Context, connectors.SourceSpec) (vectorized.Source, error) {
	return nil, fmt.Errorf("no source")
}
func (updatingSink) CreateSink(*connectors.Context, connectors.SinkSpec) (connectors.Sink, error) {
	return nil, fmt.Errorf("not opened in this test")
}

func TestSinkChangelogModeComesFromTheFactory(t *testing.T) {
	e := core.NewTableEnvironment(core.InStreamingMode())
	require.NoError(t, e.RegisterConnectorFactory(updatingSink{mode: changelog.All, id: "updating"}))
	require.NoError(t, e.RegisterConnectorFactory(updatingSink{id: "appending"}))
	ctx := context.Background()
	for _, ddl := range []string{
		"CREATE TABLE src (k INT, v INT) WITH ('connector' = 'datagen')",
		"CREATE TABLE up (k INT, s INT) WITH ('connector' = 'updating')",
		"CREATE TABLE app (k INT, s INT) WITH ('connector' = 'appending')",
	} {
		_, err := e.ExecuteSQL(ctx, ddl)
		require.NoError(t, err)
	}
	_, err := e.ExecuteSQL(ctx, "EXPLAIN INSERT INTO up SELECT k, SUM(v) FROM src GROUP BY k")
	require.NoError(t, err, "a sink that declares every row kind takes the updates of a GROUP BY")
	_, err = e.ExecuteSQL(ctx, "EXPLAIN INSERT INTO app SELECT k, SUM(v) FROM src GROUP BY k")
	require.ErrorContains(t, err, "Table sink 'default_catalog.default_database.app' doesn't support consuming update changes")
}
