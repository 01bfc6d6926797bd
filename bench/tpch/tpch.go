package tpch

import (
	"embed"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

//go:embed queries/*.sql
var queryFS embed.FS

// Columns are the columns of each table with their SQL types (the same
// spelling works for Flink and DuckDB).
var Columns = map[string][][2]string{
	"region":   {{"r_regionkey", "INT"}, {"r_name", "VARCHAR"}, {"r_comment", "VARCHAR"}},
	"nation":   {{"n_nationkey", "INT"}, {"n_name", "VARCHAR"}, {"n_regionkey", "INT"}, {"n_comment", "VARCHAR"}},
	"supplier": {{"s_suppkey", "BIGINT"}, {"s_name", "VARCHAR"}, {"s_address", "VARCHAR"}, {"s_nationkey", "INT"}, {"s_phone", "VARCHAR"}, {"s_acctbal", "DECIMAL(15, 2)"}, {"s_comment", "VARCHAR"}},
	"customer": {{"c_custkey", "BIGINT"}, {"c_name", "VARCHAR"}, {"c_address", "VARCHAR"}, {"c_nationkey", "INT"}, {"c_phone", "VARCHAR"}, {"c_acctbal", "DECIMAL(15, 2)"}, {"c_mktsegment", "VARCHAR"}, {"c_comment", "VARCHAR"}},
	"part":     {{"p_partkey", "BIGINT"}, {"p_name", "VARCHAR"}, {"p_mfgr", "VARCHAR"}, {"p_brand", "VARCHAR"}, {"p_type", "VARCHAR"}, {"p_size", "INT"}, {"p_container", "VARCHAR"}, {"p_retailprice", "DECIMAL(15, 2)"}, {"p_comment", "VARCHAR"}},
	"partsupp": {{"ps_partkey", "BIGINT"}, {"ps_suppkey", "BIGINT"}, {"ps_availqty", "INT"}, {"ps_supplycost", "DECIMAL(15, 2)"}, {"ps_comment", "VARCHAR"}},
	"orders":   {{"o_orderkey", "BIGINT"}, {"o_custkey", "BIGINT"}, {"o_orderstatus", "VARCHAR"}, {"o_totalprice", "DECIMAL(15, 2)"}, {"o_orderdate", "DATE"}, {"o_orderpriority", "VARCHAR"}, {"o_clerk", "VARCHAR"}, {"o_shippriority", "INT"}, {"o_comment", "VARCHAR"}},
	"lineitem": {{"l_orderkey", "BIGINT"}, {"l_partkey", "BIGINT"}, {"l_suppkey", "BIGINT"}, {"l_linenumber", "INT"}, {"l_quantity", "DECIMAL(15, 2)"}, {"l_extendedprice", "DECIMAL(15, 2)"}, {"l_discount", "DECIMAL(15, 2)"}, {"l_tax", "DECIMAL(15, 2)"}, {"l_returnflag", "VARCHAR"}, {"l_linestatus", "VARCHAR"}, {"l_shipdate", "DATE"}, {"l_commitdate", "DATE"}, {"l_receiptdate", "DATE"}, {"l_shipinstruct", "VARCHAR"}, {"l_shipmode", "VARCHAR"}, {"l_comment", "VARCHAR"}},
}

// FlinkDDL returns the statements that prepare a session for the queries:
// join reordering on ('table.optimizer.join-reorder-enabled', off by
// default in Flink and tablerun; DuckDB always orders joins by its
// estimates), then the CREATE TABLE statements declaring the tables of dir
// (written by Generate) for the filesystem connector.
func FlinkDDL(dir string) []string {
	out := []string{"SET 'table.optimizer.join-reorder-enabled' = 'true'"}
	for _, t := range Tables {
		var cols []string
		for _, c := range Columns[t] {
			cols = append(cols, c[0]+" "+c[1])
		}
		out = append(out, fmt.Sprintf("CREATE TABLE %s (%s) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv')",
			t, strings.Join(cols, ", "), filepath.Join(dir, t+".csv")))
	}
	return out
}

// DuckDBLoad returns the statements that load the tables of dir into
// DuckDB with the same column types.
func DuckDBLoad(dir string) []string {
	var out []string
	for _, t := range Tables {
		var cols []string
		for _, c := range Columns[t] {
			cols = append(cols, fmt.Sprintf("'%s': '%s'", c[0], c[1]))
		}
		out = append(out, fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM read_csv('%s', header = false, delim = ',', quote = '', columns = {%s})",
			t, filepath.Join(dir, t+".csv"), strings.Join(cols, ", ")))
	}
	return out
}

// DuckDBViews returns the statements that declare the tables of dir in
// DuckDB as views over read_csv, so that every query parses the files
// again (the like-for-like peer of tablerun's filesystem tables).
func DuckDBViews(dir string) []string {
	var out []string
	for _, t := range Tables {
		var cols []string
		for _, c := range Columns[t] {
			cols = append(cols, fmt.Sprintf("'%s': '%s'", c[0], c[1]))
		}
		out = append(out, fmt.Sprintf("CREATE VIEW %s AS SELECT * FROM read_csv('%s', header = false, delim = ',', quote = '', columns = {%s})",
			t, filepath.Join(dir, t+".csv"), strings.Join(cols, ", ")))
	}
	return out
}

// Query is one of the 22 queries.
type Query struct {
	Name string // q1 … q22
	SQL  string
}

// Queries returns the 22 queries in order.
func Queries() ([]Query, error) {
	ents, err := queryFS.ReadDir("queries")
	if err != nil {
		return nil, err
	}
	var qs []Query
	for _, e := range ents {
		b, err := queryFS.ReadFile("queries/" + e.Name())
		if err != nil {
			return nil, err
		}
		qs = append(qs, Query{Name: strings.TrimSuffix(e.Name(), ".sql"), SQL: strings.TrimRight(strings.TrimSpace(string(b)), ";")})
	}
	num := func(n string) int { v, _ := strconv.Atoi(strings.TrimPrefix(n, "q")); return v }
	sort.Slice(qs, func(i, j int) bool { return num(qs[i].Name) < num(qs[j].Name) })
	return qs, nil
}

// QueryByName returns query name (q1 … q22).
func QueryByName(name string) (Query, error) {
	qs, err := Queries()
	if err != nil {
		return Query{}, err
	}
	for _, q := range qs {
		if q.Name == name {
			return q, nil
		}
	}
	return Query{}, fmt.Errorf("tpch: no query %q (q1 … q22)", name)
}
