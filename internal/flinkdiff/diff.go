// Package flinkdiff runs SQL scripts on tablerun and on a real Apache
// Flink (through its SQL Gateway, package flinkgw) statement by statement
// and compares what they do:
//
//   - both succeed or both fail; failures compare by error class (parse,
//     validation, execution), not by message text;
//   - query results compare as multisets of rows: a streaming result is
//     first materialized (+I/+U add a row, -U/-D take one back), so a
//     changelog compares by the final table it describes; column names
//     and types compare too (types without nullability);
//   - values compare as printed by types.FormatValue after Flink's JSON
//     values are converted to tablerun's canonical values by the column's
//     logical type (Value).
//
// The only normalizations are these, because Flink's output is not
// deterministic there:
//
//   - row order (a multiset, even under ORDER BY: ties may come in any
//     order);
//   - FLOAT/DOUBLE values may differ by one ulp (printing and summation
//     order);
//   - a query with LIMIT but no ORDER BY compares by its row count only;
//   - an unbounded streaming query (a result Flink has not finished within
//     the statement timeout) is not compared.
//
// Paths in WITH options are rewritten so both engines read the same
// existing files (made absolute) and write to their own directories
// (a path that does not exist yet, and the token __TEST_DIR__, go to a
// per-engine directory).
//
// Differences that are explained (a documented Flink behaviour tablerun
// keeps, a feature of one engine only) are listed in
// docs/flink-differences.md and matched by the Known list: they count as
// "known", not as differences.
package flinkdiff

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/flinkgw"
	"github.com/tablerun/tablerun/planner/parser"
)

// Outcome is the verdict on one statement.
type Outcome string

// Outcomes.
const (
	Equal   Outcome = "equal"
	Differ  Outcome = "differ"
	Known   Outcome = "known"
	Skipped Outcome = "skipped"
	// Unsupported: tablerun fails with "not supported yet" where Flink
	// succeeds: a gap, reported but not a wrong answer.
	Unsupported Outcome = "unsupported"
)

// Statement is the comparison of one statement.
type Statement struct {
	Line    int
	SQL     string
	Outcome Outcome
	// Detail says what differs (or why it is known or skipped).
	Detail string
	// Ours and Flink are the two engines' results as text: "OK", the
	// error class and message, or the columns and materialized rows.
	Ours, Flink string
	// Query is true when the statement is a query whose rows were
	// compared.
	Query bool
	ours  *engineResult
	flink *engineResult
}

// Report is the comparison of one script.
type Report struct {
	Name       string
	Statements []Statement
}

// Count returns how many statements had the outcome.
func (r *Report) Count(o Outcome) int {
	n := 0
	for _, s := range r.Statements {
		if s.Outcome == o {
			n++
		}
	}
	return n
}

// Runner runs scripts on both engines.
type Runner struct {
	Gateway *flinkgw.Client
	// Root is the directory relative paths in WITH options are relative
	// to (the repository root).
	Root string
	// Timeout bounds one statement on each engine (30s by default).
	Timeout time.Duration
	// MaxRows bounds the rows read from one query on each engine
	// (10,000 by default): a query reaching it is not compared.
	MaxRows int
	// Known are the explained differences (Known by default... see
	// KnownDifferences).
	Known []KnownDifference
}

// Options are per-script settings.
type Options struct {
	// Properties are session options for both engines, e.g.
	// "execution.runtime-mode" (both default to streaming, as Flink).
	Properties map[string]string
	// Sample, when set, says which queries to compare (by their index
	// among the script's queries); the others are skipped on both engines.
	// Statements that are not queries always run.
	Sample func(query int) bool
	// Dirs are directories made in each engine's own directory before the
	// script runs (referred to as __TEST_DIR__/name).
	Dirs []string
	// Shared are absolute directories outside Root whose existing files
	// both engines read as they are (the Nexmark events file, say).
	Shared []string
}

// Run compares the statements of script. The error is for failures of the
// harness itself (the gateway unreachable, the script unparseable).
func (r *Runner) Run(ctx context.Context, name, script string, opts Options) (*Report, error) {
	stmts, err := parser.ParseScript(script)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	texts := make([]string, len(stmts))
	lines := make([]int, len(stmts))
	for i, s := range stmts {
		texts[i], lines[i] = s.Text, s.Line
	}
	return r.RunStatements(ctx, name, texts, lines, opts)
}

// RunStatements compares a list of statements (lines may be nil).
func (r *Runner) RunStatements(ctx context.Context, name string, stmts []string, lines []int, opts Options) (*Report, error) {
	timeout := r.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	maxRows := r.MaxRows
	if maxRows == 0 {
		maxRows = 10000
	}
	known := r.Known
	if known == nil {
		known = KnownDifferences
	}
	dir, err := os.MkdirTemp("", "flinkdiff-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ourDir, flinkDir := filepath.Join(dir, "tablerun"), filepath.Join(dir, "flink")
	for _, d := range []string{ourDir, flinkDir} {
		for _, sub := range append([]string{""}, opts.Dirs...) {
			if err := os.MkdirAll(filepath.Join(d, sub), 0o755); err != nil {
				return nil, err
			}
		}
	}

	settings := core.InStreamingMode()
	props := map[string]string{"table.dml-sync": "true"}
	for k, v := range opts.Properties {
		props[k] = v
	}
	for k, v := range props {
		settings = settings.WithOption(k, v)
	}
	env := core.NewTableEnvironment(settings)
	sess, err := r.Gateway.OpenSession(ctx, "flinkdiff", props)
	if err != nil {
		return nil, fmt.Errorf("%s: opening a Flink session: %w", name, err)
	}
	defer sess.Close(context.WithoutCancel(ctx))

	rep := &Report{Name: name}
	st := &scriptState{flinkMissing: map[string]string{}}
	qi := 0
	inserted := false // an INSERT ran before (see the re-read below)
	for i, sql := range stmts {
		s := Statement{SQL: sql}
		if lines != nil {
			s.Line = lines[i]
		}
		if isQuery(sql) {
			take := opts.Sample == nil || opts.Sample(qi)
			qi++
			if !take {
				s.Outcome, s.Detail = Skipped, "not in this run's sample"
				rep.Statements = append(rep.Statements, s)
				continue
			}
		}
		ours := runOurs(ctx, env, rewritePaths(sql, r.Root, ourDir, opts.Shared), timeout, maxRows)
		flink := runFlink(ctx, sess, rewritePaths(sql, r.Root, flinkDir, opts.Shared), timeout, maxRows)
		s.ours, s.flink = ours, flink
		s.Ours, s.Flink = ours.String(), flink.String()
		compare(&s, ours, flink)
		if s.Outcome == Differ && inserted && ours.err == nil && flink.err == nil && ours.query && len(flink.rows) < len(ours.rows) {
			// Flink's filesystem sink can make the last INSERT's file
			// visible a moment after the dml-sync INSERT returned (seen
			// once in CI: ddl.slt:190 read one of two inserted rows); the
			// query runs on Flink once more, and what it reads then is
			// compared.
			time.Sleep(2 * time.Second)
			flink = runFlink(ctx, sess, rewritePaths(sql, r.Root, flinkDir, opts.Shared), timeout, maxRows)
			s = Statement{SQL: s.SQL, Line: s.Line}
			s.ours, s.flink = ours, flink
			s.Ours, s.Flink = ours.String(), flink.String()
			compare(&s, ours, flink)
		}
		if isInsert(sql) {
			inserted = true
		}
		if s.Outcome == Differ {
			for _, k := range known {
				if k.Match(&s, st) {
					s.Outcome, s.Detail = Known, k.Name+": "+s.Detail
					break
				}
			}
		}
		st.after(&s)
		rep.Statements = append(rep.Statements, s)
		if err := ctx.Err(); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// Error classes: parse (syntax), validation (names, types, options:
// planning), statement (the SQL client's / gateway's own refusals: a
// statement set out of order…), execution (the job failed), unsupported
// and internal (tablerun only), timeout and harness (Flink side only).

// engineResult is what one engine did with a statement.
type engineResult struct {
	err     error
	class   string // error class: parse, validation, unsupported, execution, internal
	query   bool
	cols    []types.Field
	rows    []string // materialized, formatted, sorted
	fields  [][]string
	count   int  // rows in the changelog
	partial bool // stopped at MaxRows or the timeout
	neg     string
	// upserts counts the +U rows not preceded by a -U (Flink emits an
	// upsert stream when its collect sink takes one: a Top-N without the
	// rank number, say); such a changelog folds only by its key, which
	// the gateway does not give
	upserts int
}

func (e *engineResult) String() string {
	if e.err != nil {
		return e.class + ": " + firstLine(e.err.Error())
	}
	if !e.query {
		return "OK"
	}
	var b strings.Builder
	for i, c := range e.cols {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", c.Name, c.Type)
	}
	b.WriteString("\n")
	n := len(e.rows)
	for i, r := range e.rows {
		if i == 50 {
			fmt.Fprintf(&b, "... (%d rows)\n", n)
			break
		}
		b.WriteString(r + "\n")
	}
	if e.partial {
		b.WriteString("(incomplete)\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func ourClass(err error) string {
	var ce *core.Error
	if !errors.As(err, &ce) {
		return "validation"
	}
	if ce.Class == core.ClassSQLExecution {
		return "statement"
	}
	switch ce.Kind {
	case core.KindParse:
		return "parse"
	case core.KindUnsupported:
		return "unsupported"
	case core.KindExecution:
		return "execution"
	case core.KindInternal:
		return "internal"
	}
	// tablerun's marker is "not supported yet: …"; Flink's own messages
	// say "… is not supported yet." and stay validation errors
	if strings.Contains(err.Error(), "not supported yet: ") {
		return "unsupported"
	}
	return "validation"
}

func flinkClass(err error) string {
	var ge *flinkgw.Error
	if !errors.As(err, &ge) {
		return "harness"
	}
	if cls := ge.Classes(); len(cls) > 0 && strings.HasSuffix(cls[len(cls)-1], "SqlExecutionException") {
		// the gateway's own refusal (statement sets, sessions…)
		return "statement"
	}
	switch {
	case ge.HasClass("SqlParserException"), ge.HasClass("ParseException"), ge.HasClass("SqlParseException"):
		return "parse"
	case ge.HasClass("JobExecutionException"), ge.HasClass("JobException"), ge.HasClass("JobCancellationException"):
		return "execution"
	}
	return "validation"
}

// materialize folds a changelog into the final multiset.
type materializer struct {
	live  map[string]int
	order []string
	vals  map[string][]string
	count int
	neg   string
}

func (m *materializer) add(retract bool, fields []string) {
	if m.live == nil {
		m.live, m.vals = map[string]int{}, map[string][]string{}
	}
	m.count++
	key := "(" + strings.Join(fields, ", ") + ")"
	if retract {
		if m.live[key] == 0 && m.neg == "" {
			m.neg = "retracts a row that is not there: " + key
		}
		m.live[key]--
		return
	}
	if _, ok := m.vals[key]; !ok {
		m.order = append(m.order, key)
		m.vals[key] = fields
	}
	m.live[key]++
}

func (m *materializer) into(e *engineResult, ordered bool) {
	for _, k := range m.order {
		for i := 0; i < m.live[k]; i++ {
			e.rows = append(e.rows, k)
		}
	}
	if !ordered { // DESCRIBE's rows are in column order
		sort.Strings(e.rows)
	}
	for _, k := range e.rows {
		e.fields = append(e.fields, m.vals[k])
	}
	e.count, e.neg = m.count, m.neg
}

func runOurs(ctx context.Context, env *core.TableEnvironment, sql string, timeout time.Duration, maxRows int) *engineResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := &engineResult{}
	res, err := env.ExecuteSQL(ctx, sql)
	if err != nil {
		out.err, out.class = err, ourClass(err)
		return out
	}
	if !res.IsQuery() && !isDescribe(sql) {
		return out
	}
	out.query = true
	out.cols = res.Schema()
	// on the timeout, stop the job (an unbounded query): the loop ends
	var timedOut atomic.Bool
	stop := context.AfterFunc(ctx, func() {
		timedOut.Store(true)
		res.Close()
	})
	var m materializer
	n := 0
	for k, row := range res.Changes() {
		fs := make([]string, len(row))
		for i, v := range row {
			if v == nil {
				fs[i] = "NULL"
			} else {
				// TIMESTAMP_LTZ in the session's time zone, as the
				// gateway writes it
				fs[i] = res.Format(v, out.cols[i].Type)
			}
		}
		m.add(k.IsRetraction(), fs)
		if n++; n >= maxRows {
			out.partial = true
			break
		}
	}
	stop()
	res.Close()
	if timedOut.Load() {
		out.partial = true
	}
	if err := res.Err(); err != nil && !out.partial {
		out.err, out.class = err, ourClass(err)
		return out
	}
	m.into(out, isDescribe(sql))
	return out
}

func runFlink(ctx context.Context, sess *flinkgw.Session, sql string, timeout time.Duration, maxRows int) *engineResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := &engineResult{}
	op, err := sess.Execute(ctx, sql, nil)
	if err != nil {
		out.err, out.class = err, flinkClass(err)
		return out
	}
	defer op.Close(context.Background())
	res, err := op.FetchAll(ctx, maxRows)
	if err != nil {
		if ctx.Err() != nil {
			out.partial, out.query = true, res != nil && res.IsQueryResult
			out.err, out.class = fmt.Errorf("Flink did not finish within %v", timeout), "timeout"
			return out
		}
		out.err, out.class = err, flinkClass(err)
		return out
	}
	if !res.IsQueryResult && !isDescribe(sql) {
		return out
	}
	out.query = true
	out.partial = !res.Complete
	for _, c := range res.Columns {
		t, err := flinkgw.TypeOf(c.LogicalType)
		if err != nil {
			out.err, out.class = err, "harness"
			return out
		}
		out.cols = append(out.cols, types.Field{Name: c.Name, Type: t})
	}
	var m materializer
	prevUB := false
	for _, row := range res.Rows {
		if row.Kind == "UPDATE_AFTER" && !prevUB {
			out.upserts++
		}
		prevUB = row.Kind == "UPDATE_BEFORE"
		if len(row.Fields) != len(out.cols) {
			out.err, out.class = fmt.Errorf("a row of %d fields for %d columns", len(row.Fields), len(out.cols)), "harness"
			return out
		}
		fs := make([]string, len(row.Fields))
		for i, raw := range row.Fields {
			v, err := flinkgw.Value(raw, out.cols[i].Type, time.UTC)
			if err != nil {
				out.err, out.class = fmt.Errorf("column %s: %w", out.cols[i].Name, err), "harness"
				return out
			}
			// the gateway writes TIMESTAMP_LTZ as the wall clock of the
			// session's time zone followed by a 'Z': printed in UTC it is
			// that wall clock again
			fs[i] = types.FormatValue(v, out.cols[i].Type, time.UTC)
		}
		m.add(row.Kind == "UPDATE_BEFORE" || row.Kind == "DELETE", fs)
	}
	m.into(out, isDescribe(sql))
	return out
}

func compare(s *Statement, ours, flink *engineResult) {
	s.Outcome = Equal
	differ := func(format string, args ...any) {
		s.Outcome, s.Detail = Differ, fmt.Sprintf(format, args...)
	}
	switch {
	case flink.class == "harness":
		differ("harness: %v", flink.err)
		return
	case flink.class == "timeout" && ours.err == nil && ours.partial:
		s.Outcome, s.Detail = Skipped, "unbounded: neither engine finished"
		return
	case ours.err != nil && flink.err != nil:
		if ours.class != flink.class {
			differ("both fail, tablerun with a %s error, Flink with a %s error", ours.class, flink.class)
		}
		return
	case ours.err != nil && ours.class == "unsupported":
		s.Outcome, s.Detail = Unsupported, "tablerun: "+firstLine(ours.err.Error())
		return
	case ours.err != nil:
		differ("tablerun fails (%s), Flink succeeds", ours.class)
		return
	case flink.err != nil:
		differ("Flink fails (%s), tablerun succeeds", flink.class)
		return
	case ours.query != flink.query:
		differ("query result on one engine only (tablerun %v, Flink %v)", ours.query, flink.query)
		return
	case !ours.query:
		return
	}
	s.Query = true
	if ours.partial || flink.partial {
		s.Outcome, s.Detail = Skipped, "unbounded or over the row limit: not compared"
		return
	}
	if len(ours.cols) != len(flink.cols) {
		differ("%d columns vs Flink's %d", len(ours.cols), len(flink.cols))
		return
	}
	for i := range ours.cols {
		o, f := ours.cols[i], flink.cols[i]
		if o.Name != f.Name {
			differ("column %d is named %s, Flink %s", i+1, o.Name, f.Name)
			return
		}
		if o.Type.WithNullable(true).String() != f.Type.WithNullable(true).String() {
			differ("column %s is %s, Flink's %s", o.Name, o.Type.WithNullable(true), f.Type.WithNullable(true))
			return
		}
	}
	if ours.neg != "" || flink.neg != "" {
		differ("bad changelog: tablerun %q, Flink %q", ours.neg, flink.neg)
		return
	}
	if hasLimitWithoutOrder(s.SQL) {
		if len(ours.rows) != len(flink.rows) {
			differ("LIMIT without ORDER BY: %d rows vs Flink's %d", len(ours.rows), len(flink.rows))
		}
		return
	}
	if len(ours.rows) != len(flink.rows) {
		differ("%d rows vs Flink's %d", len(ours.rows), len(flink.rows))
		return
	}
	var bad []string
	for i := range ours.rows {
		if ours.rows[i] == flink.rows[i] {
			continue
		}
		if rowsClose(ours.fields[i], flink.fields[i], ours.cols) {
			continue
		}
		bad = append(bad, fmt.Sprintf("tablerun %s / Flink %s", ours.rows[i], flink.rows[i]))
	}
	if len(bad) > 0 {
		if len(bad) > 3 {
			bad = append(bad[:3], fmt.Sprintf("… %d rows in all", len(bad)))
		}
		differ("rows differ: %s", strings.Join(bad, "; "))
	}
}

// rowsClose reports whether two rows are equal but for FLOAT/DOUBLE values
// one ulp apart.
func rowsClose(a, b []string, cols []types.Field) bool {
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		k := cols[i].Type.Kind
		if k != types.Double && k != types.Float {
			return false
		}
		x, err1 := strconv.ParseFloat(a[i], 64)
		y, err2 := strconv.ParseFloat(b[i], 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if k == types.Float {
			d := int64(math.Float32bits(float32(x))) - int64(math.Float32bits(float32(y)))
			if d < -1 || d > 1 {
				return false
			}
			continue
		}
		d := int64(math.Float64bits(x)) - int64(math.Float64bits(y))
		if d < -1 || d > 1 {
			return false
		}
	}
	return true
}

var (
	queryStart       = regexp.MustCompile(`(?is)^\s*(?:--[^\n]*\n\s*|/\*.*?\*/\s*)*(?:SELECT|WITH|VALUES|TABLE|\()`)
	describeFunction = regexp.MustCompile(`(?is)^\s*(?:--[^\n]*\n\s*|/\*.*?\*/\s*)*DESC(?:RIBE)?\s+FUNCTION\b`)
	describeStart    = regexp.MustCompile(`(?is)^\s*(?:--[^\n]*\n\s*|/\*.*?\*/\s*)*DESC(?:RIBE)?\s`)
	limitRE          = regexp.MustCompile(`(?is)\bLIMIT\s+\d+\s*$|\bFETCH\s+(?:FIRST|NEXT)\b`)
	orderRE          = regexp.MustCompile(`(?is)\bORDER\s+BY\b`)
	pathRE           = regexp.MustCompile(`(?i)('path'\s*=\s*')([^']*)(')`)
)

func isQuery(sql string) bool { return queryStart.MatchString(sql) }

// isDescribe reports DESCRIBE statements of tables, views, catalogs and
// databases: their content (names, types with time-attribute markers,
// nullability, keys, watermarks, comments) is compared as a query's rows
// are. DESCRIBE FUNCTION is not compared yet: the signature rows differ
// (docs/flink-differences.md).
func isDescribe(sql string) bool {
	return describeStart.MatchString(sql) && !describeFunction.MatchString(sql)
}

func hasLimitWithoutOrder(sql string) bool {
	return limitRE.MatchString(sql) && !orderRE.MatchString(sql)
}

// rewritePaths makes 'path' options absolute: an existing file or directory
// relative to root is read by both engines, any other path is the engine's
// own (under dir), unless it exists under one of the shared directories.
// __TEST_DIR__ becomes dir.
func rewritePaths(sql, root, dir string, shared []string) string {
	sql = strings.ReplaceAll(sql, "__TEST_DIR__", dir)
	return pathRE.ReplaceAllStringFunc(sql, func(m string) string {
		p := pathRE.FindStringSubmatch(m)
		path := p[2]
		if strings.HasPrefix(path, dir) {
			return m
		}
		abs := path
		if !filepath.IsAbs(path) {
			abs = filepath.Join(root, path)
		}
		inShared := false
		for _, d := range shared {
			inShared = inShared || strings.HasPrefix(abs, d+string(filepath.Separator))
		}
		if _, err := os.Stat(abs); err != nil || (!strings.HasPrefix(abs, root) && !inShared) {
			abs = filepath.Join(dir, "p", strings.TrimLeft(filepath.Clean("/"+path), "/"))
		}
		return p[1] + abs + p[3]
	})
}

// isInsert reports an INSERT statement (also EXECUTE … INSERT and
// statement sets).
func isInsert(sql string) bool {
	return strings.Contains(strings.ToUpper(sql), "INSERT ")
}
