// Package slt runs sqllogictest-style files (testdata/*.slt) against
// tablerun.
//
// Records are separated by blank lines; '#' starts a comment line:
//
//	statement ok
//	CREATE TEMPORARY VIEW t(a, b) AS VALUES (1, 'x')
//
//	statement error <regex matched against "<java class>: <message>">
//	SELECT nope FROM t
//
//	query IT rowsort
//	SELECT a, b FROM t
//	----
//	1 x
//
// A query's expected rows follow "----", one per line, values separated by
// tabs or spaces and formatted as types.FormatValue does; NULL is NULL and
// the empty string is (empty). The type string has one letter per column
// (I integer, R approximate/decimal, T text, B boolean, D date/time, any
// other letter accepted); only its length is checked. "rowsort" compares
// the rows sorted; "materialize" applies a streaming result's changelog
// first (+I/+U add a row, -U/-D retract an equal one, which must be
// there) and compares the live rows sorted. A record preceded by "skipif tablerun # reason" is
// skipped and reported as skipped; "halt" stops the file.
//
// The token __TEST_DIR__ in SQL is replaced by a fresh temporary directory
// per run (for filesystem tables).
//
// Every file runs once per verification Mode (see Modes) in a fresh session; all modes
// must produce the expected results, so they agree with each other.
package slt

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/config"
)

// RecordKind is the kind of an .slt record.
type RecordKind uint8

// Record kinds.
const (
	StatementOK RecordKind = iota
	StatementError
	Query
	Halt
)

// Record is one test record.
type Record struct {
	Kind RecordKind
	// Line is the 1-based line of the record's first line.
	Line int
	SQL  string
	// ErrPattern is the regular expression of "statement error".
	ErrPattern string
	// Types is the type string of a query and RowSort its sort mode.
	Types   string
	RowSort bool
	// Materialize compares the rows a changelog leaves (sorted).
	Materialize bool
	// Expected are a query's expected rows, normalised (see normalizeRow).
	Expected []string
	// Skip is the reason given by a preceding "skipif tablerun" ("" = run).
	Skip string
}

// Parse reads an .slt file.
func Parse(text string) ([]Record, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []Record
	skip := ""
	for i := 0; i < len(lines); {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "#") {
			i++
			continue
		}
		fields := strings.Fields(l)
		rec := Record{Line: i + 1}
		switch fields[0] {
		case "skipif":
			if len(fields) > 1 && fields[1] == "tablerun" {
				skip = "skipped"
				if _, reason, ok := strings.Cut(l, "#"); ok && strings.TrimSpace(reason) != "" {
					skip = strings.TrimSpace(reason)
				}
			}
			i++
			continue
		case "onlyif":
			if len(fields) > 1 && fields[1] != "tablerun" {
				skip = "onlyif " + fields[1]
			}
			i++
			continue
		case "hash-threshold":
			i++
			continue
		case "halt":
			out = append(out, Record{Kind: Halt, Line: i + 1})
			i++
			continue
		case "statement":
			if len(fields) < 2 {
				return nil, fmt.Errorf("line %d: statement needs ok or error", i+1)
			}
			switch fields[1] {
			case "ok":
				rec.Kind = StatementOK
			case "error":
				rec.Kind = StatementError
				rec.ErrPattern = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(l, "statement")), "error"))
				if _, err := regexp.Compile(rec.ErrPattern); err != nil {
					return nil, fmt.Errorf("line %d: bad error pattern: %w", i+1, err)
				}
			default:
				return nil, fmt.Errorf("line %d: unknown statement mode %q", i+1, fields[1])
			}
		case "query":
			rec.Kind = Query
			if len(fields) < 2 {
				return nil, fmt.Errorf("line %d: query needs a type string", i+1)
			}
			rec.Types = fields[1]
			for _, f := range fields[2:] {
				switch f {
				case "rowsort":
					rec.RowSort = true
				case "materialize":
					rec.Materialize, rec.RowSort = true, true
				case "nosort":
				default:
					return nil, fmt.Errorf("line %d: unknown query option %q", i+1, f)
				}
			}
		default:
			return nil, fmt.Errorf("line %d: unknown record %q", i+1, fields[0])
		}
		rec.Skip, skip = skip, ""
		i++
		var sql []string
		for i < len(lines) && strings.TrimSpace(lines[i]) != "" && strings.TrimSpace(lines[i]) != "----" {
			sql = append(sql, lines[i])
			i++
		}
		rec.SQL = strings.TrimSuffix(strings.TrimSpace(strings.Join(sql, "\n")), ";")
		if rec.SQL == "" {
			return nil, fmt.Errorf("line %d: record without SQL", rec.Line)
		}
		if rec.Kind == Query {
			if i >= len(lines) || strings.TrimSpace(lines[i]) != "----" {
				return nil, fmt.Errorf("line %d: query without ----", rec.Line)
			}
			i++
			rec.Expected = []string{}
			for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
				rec.Expected = append(rec.Expected, normalizeRow(lines[i]))
				i++
			}
		}
		out = append(out, rec)
	}
	return out, nil
}

// normalizeRow collapses the separators of an expected row to one space.
func normalizeRow(s string) string { return strings.Join(strings.Fields(s), " ") }

// Mode is a verification mode: session options applied on top of batch mode.
type Mode struct {
	Name    string
	Options map[string]string
}

// Modes returns the verification modes every file runs in: all optimizer
// rules on; all rules off; and sources producing one row per batch.
func Modes() []Mode {
	return []Mode{
		{Name: "rules-on", Options: map[string]string{}},
		{Name: "rules-off", Options: map[string]string{config.KeyDisabledRules: "*"}},
		{Name: "batch-size-1", Options: map[string]string{config.KeyBatchSize: "1"}},
	}
}

// Failure is a record whose outcome differs from the expectation.
type Failure struct {
	Line int
	Mode string
	SQL  string
	Msg  string
}

// String formats the failure for test logs.
func (f Failure) String() string {
	return fmt.Sprintf("line %d [%s]: %s\n%s", f.Line, f.Mode, f.Msg, f.SQL)
}

// Result counts the outcomes of one run of a file.
type Result struct {
	Passed   int
	Skipped  int
	Failures []Failure
}

// Run executes the records in one fresh session in the given mode; dir
// replaces __TEST_DIR__ in the SQL text.
func Run(ctx context.Context, recs []Record, mode Mode, dir string) Result {
	settings := core.InBatchMode()
	for k, v := range mode.Options {
		settings = settings.WithOption(k, v)
	}
	env := core.NewTableEnvironment(settings)
	var sink strings.Builder
	env.SetOutput(&sink, &sink)
	var res Result
	fail := func(r Record, format string, args ...any) {
		res.Failures = append(res.Failures, Failure{Line: r.Line, Mode: mode.Name, SQL: r.SQL, Msg: fmt.Sprintf(format, args...)})
	}
	for _, r := range recs {
		if r.Kind == Halt {
			break
		}
		if r.Skip != "" {
			res.Skipped++
			continue
		}
		tr, err := env.ExecuteSQL(ctx, strings.ReplaceAll(r.SQL, "__TEST_DIR__", dir))
		var ce *core.Error
		if errors.As(err, &ce) && errors.Is(err, core.ErrInternal) {
			fail(r, "tablerun panicked: %v\n%s", err, ce.Stack)
			continue
		}
		switch r.Kind {
		case StatementOK:
			if err != nil {
				fail(r, "unexpected error: %s", core.Reason(err))
				continue
			}
		case StatementError:
			if err == nil {
				fail(r, "expected an error matching %q, got success", r.ErrPattern)
				continue
			}
			if ok, _ := regexp.MatchString(r.ErrPattern, core.Reason(err)); !ok {
				fail(r, "error %q does not match %q", core.Reason(err), r.ErrPattern)
				continue
			}
		case Query:
			if err != nil {
				fail(r, "unexpected error: %s", core.Reason(err))
				continue
			}
			if n := len(tr.Schema()); n != len(r.Types) {
				fail(r, "type string %q has %d columns, the result has %d", r.Types, len(r.Types), n)
				continue
			}
			var got []string
			if r.Materialize {
				var err error
				if got, err = MaterializeRows(tr); err != nil {
					fail(r, "%v", err)
					continue
				}
			} else {
				got = FormatRows(tr)
			}
			want := append([]string(nil), r.Expected...)
			if r.RowSort {
				sort.Strings(got)
				sort.Strings(want)
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				fail(r, "wrong result\n--- want\n%s\n--- got\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
				continue
			}
		}
		res.Passed++
	}
	return res
}

// MaterializeRows applies the changelog of a result and returns the rows
// it leaves, rendered as FormatRows does (Changes gives canonical values).
func MaterializeRows(tr *core.TableResult) ([]string, error) {
	var live []string
	for k, row := range tr.Changes() {
		s := formatRow(tr, row)
		if !k.IsRetraction() {
			live = append(live, s)
			continue
		}
		found := false
		for i, l := range live {
			if l == s {
				live = append(live[:i], live[i+1:]...)
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("the changelog retracts a row that is not there: %s %s", k, s)
		}
	}
	if err := tr.Err(); err != nil {
		return nil, err
	}
	if live == nil {
		live = []string{}
	}
	return live, nil
}

// FormatRows renders a result as .slt rows: values as types.FormatValue
// prints them, NULL as NULL, "" as (empty), joined by one space.
func FormatRows(tr *core.TableResult) []string {
	out := []string{}
	for _, row := range tr.Rows() { // canonical values, as Format takes
		out = append(out, formatRow(tr, row))
	}
	return out
}

// formatRow renders one row as FormatRows does.
func formatRow(tr *core.TableResult, row core.Row) string {
	schema := tr.Schema()
	vals := make([]string, len(schema))
	for i := range schema {
		var v any
		if i < len(row) {
			v = row[i]
		}
		switch {
		case v == nil:
			vals[i] = "NULL"
		default:
			s := tr.Format(v, schema[i].Type)
			if s == "" {
				s = "(empty)"
			}
			vals[i] = s
		}
	}
	return normalizeRow(strings.Join(vals, " "))
}
