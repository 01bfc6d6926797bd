package filesystem_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core"
)

// debeziumLines is a products changelog in debezium-json: two inserts,
// an update of each, a delete.
const debeziumLines = `{"before":null,"after":{"id":1,"name":"scooter","weight":5.18},"op":"c"}
{"before":null,"after":{"id":2,"name":"car","weight":3.0},"op":"r"}
{"before":{"id":1,"name":"scooter","weight":5.18},"after":{"id":1,"name":"scooter","weight":5.15},"op":"u"}
{"before":{"id":2,"name":"car","weight":3.0},"after":{"id":2,"name":"scooter","weight":3.0},"op":"u"}
{"before":{"id":1,"name":"scooter","weight":5.15},"after":null,"op":"d"}
`

func streamEnv(t *testing.T) *core.TableEnvironment {
	t.Helper()
	e := core.NewTableEnvironment(core.InStreamingMode())
	var out strings.Builder
	e.SetOutput(&out, &out)
	return e
}

func debeziumTable(t *testing.T, e *core.TableEnvironment, name, dir string) {
	t.Helper()
	run(t, e, fmt.Sprintf(`CREATE TABLE %s (id BIGINT, name STRING, weight DECIMAL(10, 2))
		WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'debezium-json')`, name, dir))
}

// changes collects a streaming result as "kind|v1|v2…" strings.
func changes(t *testing.T, e *core.TableEnvironment, sql string) []string {
	t.Helper()
	res := run(t, e, sql)
	defer res.Close()
	var out []string
	for k, r := range res.Changes() {
		parts := []string{k.String()}
		for i, v := range r {
			parts = append(parts, res.Format(v, res.Schema()[i].Type))
		}
		out = append(out, strings.Join(parts, "|"))
	}
	require.NoError(t, res.Err())
	return out
}

func TestDebeziumSourceChangelog(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "products.json"), []byte(debeziumLines), 0o644))
	e := streamEnv(t)
	debeziumTable(t, e, "products", dir)

	// The scan gives the row kinds of the messages.
	require.Equal(t, []string{
		"+I|1|scooter|5.18", "+I|2|car|3.00", "-U|1|scooter|5.18", "+U|1|scooter|5.15",
		"-U|2|car|3.00", "+U|2|scooter|3.00", "-D|1|scooter|5.15",
	}, changes(t, e, "SELECT * FROM products"))

	// A GROUP BY over it retracts: Flink's GroupAggFunction changelog
	// for this input (a group whose count drops to 0 is deleted, and
	// comes back as +I).
	require.Equal(t, []string{
		"+I|scooter|1", "+I|car|1",
		"-D|scooter|1", "+I|scooter|1",
		"-D|car|1", "-U|scooter|1", "+U|scooter|2",
		"-U|scooter|2", "+U|scooter|1",
	}, changes(t, e, "SELECT name, COUNT(*) AS c FROM products GROUP BY name"))

	// SUM over the retractions ends at the final table's values.
	rows := changes(t, e, "SELECT SUM(weight) AS w, COUNT(*) AS c FROM products")
	require.Equal(t, "+U|3.00|1", rows[len(rows)-1])

	// Filters and projections keep the row kinds.
	require.Equal(t, []string{"+I|2|car", "-U|2|car", "+U|2|scooter"}, changes(t, e, "SELECT id, name FROM products WHERE id = 2"))
	// A Calc is stateless: a filter may keep a +U without its -U, as in Flink.
	require.Equal(t, []string{"+I|1|5.18", "-U|1|5.18", "+U|1|5.15", "+U|2|3.00", "-D|1|5.15"},
		changes(t, e, "SELECT id, weight FROM products WHERE name = 'scooter'"))
}

func TestDebeziumSourceRejections(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "products.json"), []byte(debeziumLines), 0o644))
	ctx := context.Background()

	// A sink that takes inserts only rejects the changelog as Flink does.
	e := streamEnv(t)
	debeziumTable(t, e, "products", dir)
	run(t, e, fmt.Sprintf(`CREATE TABLE out_csv (id BIGINT, name STRING, weight DECIMAL(10, 2))
		WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')`, t.TempDir()))
	_, err := e.ExecuteSQL(ctx, "INSERT INTO out_csv SELECT * FROM products")
	require.EqualError(t, err, "Table sink 'default_catalog.default_database.out_csv' doesn't support consuming update and delete changes which is produced by node TableSourceScan(table=[[default_catalog, default_database, products]], fields=[id, name, weight])")

	// Batch mode rejects a changelog source as Flink's DynamicSourceUtils does.
	b := batchEnv(t)
	debeziumTable(t, b, "products", dir)
	_, err = b.ExecuteSQL(ctx, "SELECT * FROM products")
	require.EqualError(t, err, "Querying a table in batch mode is currently only possible for INSERT-only table sources. But the source for table 'default_catalog.default_database.products' produces other changelog messages than just INSERT.")

	// A bad line fails naming the file and line; ignore-parse-errors skips it.
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(debeziumLines+"{\"op\":\"x\"}\n"), 0o644))
	run(t, e, fmt.Sprintf(`CREATE TABLE bad (id BIGINT, name STRING, weight DECIMAL(10, 2))
		WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'debezium-json')`, bad))
	res, err := e.ExecuteSQL(ctx, "SELECT * FROM bad")
	if err == nil {
		for range res.Changes() {
		}
		err = res.Err()
		res.Close()
	}
	require.ErrorContains(t, err, `Corrupt Debezium JSON message '{"op":"x"}'. Unknown "op" value "x".`)
	require.ErrorContains(t, err, "bad.json:6)")
	run(t, e, fmt.Sprintf(`CREATE TABLE bad2 (id BIGINT, name STRING, weight DECIMAL(10, 2))
		WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'debezium-json', 'debezium-json.ignore-parse-errors' = 'true')`, bad))
	require.Len(t, changes(t, e, "SELECT * FROM bad2"), 7)

	// Unknown format options get the connector's "Unsupported options".
	run(t, e, fmt.Sprintf(`CREATE TABLE opt (id BIGINT) WITH ('connector' = 'filesystem', 'path' = '%s',
		'format' = 'debezium-json', 'debezium-json.fail-on-missing-field' = 'true')`, dir))
	_, err = e.ExecuteSQL(ctx, "SELECT * FROM opt")
	require.ErrorContains(t, err, "Unsupported options found for 'filesystem'.\n\nUnsupported options:\n\ndebezium-json.fail-on-missing-field")
}

// TestChangelogSinkRoundTrip writes a GROUP BY's changelog as debezium-json
// files, reads them back and gets the same final table.
func TestChangelogSinkRoundTrip(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "products.json"), []byte(debeziumLines), 0o644))
	for _, f := range []string{"debezium-json", "canal-json", "maxwell-json", "ogg-json"} {
		t.Run(f, func(t *testing.T) {
			e := streamEnv(t)
			debeziumTable(t, e, "products", dir)
			out := t.TempDir()
			run(t, e, fmt.Sprintf(`CREATE TABLE counts (name STRING, c BIGINT)
				WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = '%s')`, out, f))
			run(t, e, "INSERT INTO counts SELECT name, COUNT(*) FROM products GROUP BY name")
			final := changes(t, e, "SELECT name, SUM(c) FROM counts GROUP BY name")
			last := map[string]string{}
			for _, r := range final {
				p := strings.Split(r, "|")
				if p[0] == "-D" {
					delete(last, p[1])
				} else if p[0] != "-U" {
					last[p[1]] = p[2]
				}
			}
			require.Equal(t, map[string]string{"scooter": "1"}, last)
			files, err := filepath.Glob(filepath.Join(out, "part-*"))
			require.NoError(t, err)
			require.NotEmpty(t, files)
			var lines []string
			for _, p := range files {
				b, err := os.ReadFile(p)
				require.NoError(t, err)
				lines = append(lines, strings.Split(strings.TrimSpace(string(b)), "\n")...)
			}
			sort.Strings(lines)
			require.Len(t, lines, 9)
		})
	}
}

// TestDebeziumExplain: the scan of a changelog format produces every row
// kind, and the plan shows it as Flink's EXPLAIN CHANGELOG_MODE does; the
// aggregate above it takes retractions (COUNT_RETRACT).
func TestDebeziumExplain(t *testing.T) {
	e := streamEnv(t)
	debeziumTable(t, e, "products", t.TempDir())
	res := run(t, e, "EXPLAIN CHANGELOG_MODE SELECT name, COUNT(*) AS c FROM products GROUP BY name")
	plan := fmt.Sprint(res.Rows()[0][0])
	i := strings.Index(plan, "== Optimized Physical Plan ==")
	j := strings.Index(plan, "== Optimized Execution Plan ==")
	require.True(t, i >= 0 && j > i, plan)
	require.Equal(t, `== Optimized Physical Plan ==
GroupAggregate(groupBy=[name], select=[name, COUNT_RETRACT(*) AS c], changelogMode=[I,UB,UA,D])
+- Exchange(distribution=[hash[name]], changelogMode=[I,UB,UA,D])
   +- TableSourceScan(table=[[default_catalog, default_database, products, project=[name]]], fields=[name], changelogMode=[I,UB,UA,D])
`, strings.TrimRight(plan[i:j], "\n")+"\n")
}
