// Command flinkkeywords probes a running Flink SQL Gateway for the words
// Flink's parser reserves: for each candidate (the keyword list of Flink's
// SQL overview page, read from a file, one or more per line, comma or
// space separated) it runs, without starting a job,
//
//	CREATE TEMPORARY VIEW <w> AS SELECT 1 AS x   (a table name)
//	EXPLAIN SELECT <w> FROM (SELECT 1 AS <w>)    (a column name and alias)
//
// and prints the words Flink refuses in either position, one per line,
// sorted: the list planner/parser reserves (reserved_words.go). Run it
// against the cluster internal/flinkenv/flinkup starts:
//
//	go run ./internal/tools/flinkkeywords -gateway http://127.0.0.1:PORT candidates.txt
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/tablerun/tablerun/flinkgw"
)

func main() {
	gw := flag.String("gateway", "", "Flink SQL Gateway URL")
	flag.Parse()
	if *gw == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: flinkkeywords -gateway URL candidates.txt")
		os.Exit(2)
	}
	text, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	words := strings.FieldsFunc(string(text), func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' })
	ctx := context.Background()
	sess, err := flinkgw.New(*gw).OpenSession(ctx, "flinkkeywords", nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer sess.Close(ctx)
	run := func(sql string) error {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		op, err := sess.Execute(ctx, sql, nil)
		if err != nil {
			return err
		}
		defer op.Close(ctx)
		_, err = op.FetchAll(ctx, 10)
		return err
	}
	var reserved []string
	for _, w := range words {
		w = strings.ToUpper(strings.TrimSpace(w))
		if w == "" || strings.ContainsAny(w, "-") {
			continue
		}
		view := run("CREATE TEMPORARY VIEW " + w + " AS SELECT 1 AS x")
		if view == nil {
			_ = run("DROP TEMPORARY VIEW `" + w + "`")
		}
		col := run("EXPLAIN SELECT " + w + " FROM (SELECT 1 AS " + w + ")")
		if isParseError(view) || isParseError(col) {
			reserved = append(reserved, w)
		}
	}
	sort.Strings(reserved)
	for _, w := range reserved {
		fmt.Println(w)
	}
}

// isParseError reports a refusal by Flink's SQL parser.
func isParseError(err error) bool {
	return err != nil && strings.Contains(err.Error(), "ParseException")
}
