package bench

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/planner/parser"
)

// Nexmark events in files: the generator's events written once as JSON
// lines (one object per event: event_type and the person, auction and bid
// rows, the two absent ones null), so that tablerun and Apache Flink read
// the very same rows (the differential harness internal/flinkdiff and
// `bench nexmark --vs flink`). The queries then run over a filesystem
// table of the same name and columns as ddl_gen.sql's generator table,
// with the same computed `dateTime` and WATERMARK.

// EventsSpec says which events a file holds.
type EventsSpec struct {
	// Events is the number of events (events.num).
	Events int64
	// TPS is the generator's first-event.rate and next-event.rate: it
	// sets the events' time stamps (10,000,000, upstream's value, puts
	// 10,000 events within one millisecond; 100 spreads them over 100
	// seconds of event time, which gives windows something to do).
	TPS int64
}

// ddlGenWith matches the WITH clause of ddl_gen.sql.
var ddlGenWith = regexp.MustCompile(`(?s)\)\s*WITH\s*\(.*$`)

// ddlGenComputed matches the computed column and the watermark.
var ddlGenComputed = regexp.MustCompile("(?s),\\s*`dateTime` AS.*$")

// EventsTableDDL returns ddl_gen.sql's CREATE TABLE datagen with the
// nexmark connector replaced by a JSON filesystem table over path: the
// same columns, computed column and watermark.
func EventsTableDDL(queriesDir, path string) (string, error) {
	b, err := fs.ReadFile(queryFiles(queriesDir), "ddl_gen.sql")
	if err != nil {
		return "", fmt.Errorf("read nexmark query file: %w", err)
	}
	ddl := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(b)), ";"))
	if !ddlGenWith.MatchString(ddl) {
		return "", fmt.Errorf("ddl_gen.sql: no WITH clause")
	}
	return ddlGenWith.ReplaceAllString(ddl, ") WITH (\n    'connector' = 'filesystem',\n    'path' = '"+path+"',\n    'format' = 'json'\n)"), nil
}

// WriteEvents writes the events of spec into the directory dir (created;
// one JSON file) with tablerun's Nexmark generator, in batch mode. It
// returns the path of the file.
func WriteEvents(ctx context.Context, queriesDir, dir string, spec EventsSpec) (string, error) {
	b, err := fs.ReadFile(queryFiles(queriesDir), "ddl_gen.sql")
	if err != nil {
		return "", fmt.Errorf("read nexmark query file: %w", err)
	}
	gen := strings.NewReplacer("${TPS}", fmt.Sprint(spec.TPS), "${EVENTS_NUM}", fmt.Sprint(spec.Events),
		"${PERSON_PROPORTION}", "1", "${AUCTION_PROPORTION}", "3", "${BID_PROPORTION}", "46").Replace(string(b))
	gen = strings.TrimSuffix(strings.TrimSpace(gen), ";")
	cols := ddlGenComputed.ReplaceAllString(ddlGenWith.ReplaceAllString(gen, ""), "")
	cols = strings.Replace(cols, "CREATE TABLE datagen", "CREATE TABLE nexmark_events", 1)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".events-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	env := core.NewTableEnvironment(core.InBatchMode())
	env.SetOutput(io.Discard, io.Discard)
	for _, s := range []string{
		gen,
		cols + "\n) WITH ('connector' = 'filesystem', 'path' = '" + tmp + "', 'format' = 'json')",
		"INSERT INTO nexmark_events SELECT event_type, person, auction, bid FROM datagen",
	} {
		if _, err := env.ExecuteSQL(ctx, s); err != nil {
			return "", fmt.Errorf("writing nexmark events: %w", err)
		}
	}
	files, err := filepath.Glob(filepath.Join(tmp, "*"))
	if err != nil {
		return "", err
	}
	var parts []string
	for _, f := range files {
		if b := filepath.Base(f); !strings.HasPrefix(b, ".") && !strings.HasPrefix(b, "_") {
			parts = append(parts, f)
		}
	}
	if len(parts) != 1 {
		return "", fmt.Errorf("writing nexmark events: %d part files, want 1", len(parts))
	}
	out := filepath.Join(dir, fmt.Sprintf("events-%d-%d.json", spec.Events, spec.TPS))
	if err := os.Rename(parts[0], out); err != nil {
		return "", err
	}
	return out, nil
}

// FileScript returns the statements of query q over the events in the
// file (or directory) path: ddl_gen.sql's table as a JSON filesystem table
// (EventsTableDDL), the views and the query file, with the placeholders
// substituted as Script does. Two rewrites keep the query runnable on
// Flink 2.3 too: q13's side input, declared with the legacy
// 'connector.type' properties Flink 2 no longer reads, becomes the same
// csv filesystem table in today's options; q10's filesystem sink writes
// under outDir.
func FileScript(queriesDir, q, path, outDir string) ([]string, error) {
	ddl, err := EventsTableDDL(queriesDir, path)
	if err != nil {
		return nil, err
	}
	parts, err := readQueryFiles(queriesDir, "ddl_views.sql", q+".sql")
	if err != nil {
		return nil, err
	}
	home, err := flinkHome()
	if err != nil {
		return nil, err
	}
	text := strings.NewReplacer(
		"${NEXMARK_TABLE}", "datagen", "${NEXMARK_DIR}", outDir, "${SUBMIT_TIME}", "out", "${FLINK_HOME}", home,
		"'connector.type' = 'filesystem'", "'connector' = 'filesystem'",
		"'connector.path' = 'file://", "'path' = '",
		"'format.type' = 'csv'", "'format' = 'csv'",
	).Replace(strings.Join(parts, ";\n"))
	stmts, err := parser.ParseScript(text)
	if err != nil {
		return nil, fmt.Errorf("parse nexmark script %s: %w", q, err)
	}
	out := []string{ddl}
	for _, s := range stmts {
		if strings.Contains(s.Text, "'com.github.nexmark.flink.udf.CountChar'") {
			out = append(out, countCharPython)
			continue
		}
		out = append(out, s.Text)
	}
	return out, nil
}

// NexmarkHome returns the directory FileScript and Script put in place of
// ${FLINK_HOME}: its data/side_input.txt is q13's side input.
func NexmarkHome() (string, error) { return flinkHome() }

var insertIntoRE = regexp.MustCompile(`(?is)^((?:\s*--[^\n]*\n)*)\s*INSERT\s+INTO\s+[\w.` + "`" + `]+\s*(?:\([^)]*\))?\s*`)

// AsQuery turns an `INSERT INTO sink SELECT …` into its query (the
// differential harness compares results, not sinks); ok is false for
// other statements.
func AsQuery(stmt string) (string, bool) {
	if !isInsert(stmt) {
		return stmt, false
	}
	loc := insertIntoRE.FindStringSubmatchIndex(stmt)
	if loc == nil {
		return stmt, false
	}
	return stmt[loc[2]:loc[3]] + stmt[loc[1]:], true
}
