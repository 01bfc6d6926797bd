// Package flinkcheck finds what in a script will not run on Apache Flink:
// tablerun's extensions (Extensions, the same list as the README's
// extensions table) and Python functions that PyFlink would not accept.
// `tablerun check --flink script.sql` prints its findings.
package flinkcheck

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/parser"
)

// Extension is one tablerun extension of Flink SQL: Name is the first cell
// of its row in the README's extensions table.
type Extension struct {
	Name string
	// Flink says what to write instead on a Flink cluster.
	Flink string
}

// The extensions, in the README's order.
var (
	ExtValuesData = Extension{"`values` connector `'data'`",
		"the values connector is Flink's test connector and not in a Flink distribution: use a table of another connector (a file, datagen) or a VALUES query"}
	// ExtFlightSQL is a command, not SQL: no script uses it.
	ExtFlightSQL = Extension{"`tablerun flight-sql`",
		"Flink serves SQL through its SQL Gateway (REST, HiveServer2) and JDBC driver"}
	ExtArrowFormat = Extension{"`'format' = 'arrow'`",
		"Flink has no arrow format: use parquet, avro, csv or json"}
	ExtInferredColumns = Extension{"tables without columns (`CREATE TABLE t WITH (…)`)",
		"Flink does not read a table's columns from its files: declare them"}
	ExtCSVHeader = Extension{"`'csv.header'`",
		"Flink's csv format reads no header line: remove it from the files (or filter it out) and drop the option"}
	ExtNexmark = Extension{"`nexmark` connector",
		"Flink has no built-in nexmark connector: add the Nexmark project's connector jar (nexmark-flink) to the cluster"}
	ExtOptions = Extension{"`tablerun.*` options",
		"tablerun's own options mean nothing to Flink: drop them"}
	ExtFileCatalog = Extension{"`tablerun_file` catalog",
		"use a catalog Flink has (generic_in_memory, hive, jdbc) or a catalog store"}
	ExtShowEffective = Extension{"`SHOW EFFECTIVE CONFIGURATION`",
		"Flink's SET; lists the session's options"}
	ExtExplainAnalyze = Extension{"`EXPLAIN ANALYZE`",
		"Flink's EXPLAIN shows the plan without running it; the Flink web UI shows the counts of a running job"}
	ExtJavaScript = Extension{"`LANGUAGE JAVASCRIPT` functions",
		"Flink runs JAVA, SCALA and PYTHON functions: port the function to Python (python.files) or Java"}
	ExtInlineFunction = Extension{"inline function bodies (`RETURNS … LANGUAGE PYTHON AS $$ … $$`)",
		"PyFlink registers a function of a Python file: SET 'python.files' = 'udfs.py'; CREATE TEMPORARY FUNCTION f AS 'udfs.f' LANGUAGE PYTHON"}
	ExtReservedNames = Extension{"reserved words as names",
		"Flink's parser refuses a reserved word as an unquoted name: write it in backticks"}
)

// Extensions lists every extension the check knows; a test checks that it
// is the README's extensions table, row for row.
var Extensions = []Extension{
	ExtValuesData, ExtFlightSQL, ExtArrowFormat, ExtInferredColumns, ExtCSVHeader, ExtNexmark, ExtOptions, ExtFileCatalog,
	ExtShowEffective, ExtExplainAnalyze, ExtJavaScript, ExtInlineFunction, ExtReservedNames,
}

// Finding is one thing that will not run on Flink, at a line and column of
// the script.
type Finding struct {
	Line, Col int
	// What names the construct ("'data' of the values connector").
	What string
	// Ext is the extension it uses; nil for other findings (Python code
	// PyFlink does not accept).
	Ext *Extension
	// Hint says what to do instead.
	Hint string
}

func (f Finding) String() string {
	s := fmt.Sprintf("%d:%d: %s", f.Line, f.Col, f.What)
	if f.Ext != nil {
		s += " (tablerun extension " + f.Ext.Name + ")"
	}
	if f.Hint != "" {
		s += ": " + f.Hint
	}
	return s
}

// Options of a check.
type Options struct {
	// ReadFile reads a file the script names (python.files); nil leaves
	// Python files unchecked.
	ReadFile func(path string) ([]byte, error)
}

// Check returns the findings in script, in script order. A script that does
// not parse returns the parse error (with the script's line and column).
func Check(script string, opts Options) ([]Finding, error) {
	stmts, err := parser.ParseScript(script)
	if err != nil {
		return nil, err
	}
	c := &checker{opts: opts}
	for _, st := range stmts {
		node, err := parser.ParseStatement(st.Text)
		if err != nil {
			var pe *parser.Error
			if errors.As(err, &pe) && pe.Line > 0 {
				moved := pe.Offset(st.Line, st.Col)
				return nil, &ParseError{Line: moved.Line, Col: moved.Col, Msg: moved.Msg}
			}
			return nil, &ParseError{Line: st.Line, Col: st.Col, Msg: err.Error()}
		}
		c.st = st
		c.statement(node)
		c.reservedNames()
	}
	sort.SliceStable(c.out, func(i, j int) bool {
		if c.out[i].Line != c.out[j].Line {
			return c.out[i].Line < c.out[j].Line
		}
		return c.out[i].Col < c.out[j].Col
	})
	return c.out, nil
}

// ParseError is a statement that does not parse, at the script's line and
// column.
type ParseError struct {
	Line, Col int
	Msg       string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// shift moves a position inside a statement into the script.
func shift(st parser.ScriptStatement, line, col int) (int, int) {
	if line <= 0 {
		return st.Line, st.Col
	}
	if line == 1 {
		col += st.Col - 1
	}
	return line + st.Line - 1, col
}

type checker struct {
	opts Options
	st   parser.ScriptStatement
	out  []Finding
	// pythonFiles is the session's python.files (SET), for the Python
	// functions' modules.
	pythonFiles []string
}

func (c *checker) add(p ast.Pos, what string, ext *Extension) {
	line, col := shift(c.st, p.Line, p.Col)
	hint := ""
	if ext != nil {
		hint = ext.Flink
	}
	c.out = append(c.out, Finding{Line: line, Col: col, What: what, Ext: ext, Hint: hint})
}

// posOf returns the position of the first match of re in the statement's
// text (outside nothing: good enough for keywords the parser does not
// record), or the statement's own position.
func (c *checker) posOf(re *regexp.Regexp, def ast.Pos) ast.Pos {
	loc := re.FindStringIndex(c.st.Text)
	if loc == nil {
		return def
	}
	before := c.st.Text[:loc[0]]
	line := 1 + strings.Count(before, "\n")
	col := loc[0] + 1
	if i := strings.LastIndexByte(before, '\n'); i >= 0 {
		col = len([]rune(before[i+1:])) + 1
	} else {
		col = len([]rune(before)) + 1
	}
	return ast.Pos{Line: line, Col: col}
}

var (
	analyzeRE    = regexp.MustCompile(`(?i)\bANALYZE\b`)
	effectiveRE  = regexp.MustCompile(`(?i)\bEFFECTIVE\b`)
	javascriptRE = regexp.MustCompile(`(?i)\bLANGUAGE\s+(JAVASCRIPT|JS)\b`)
	bodyRE       = regexp.MustCompile(`(?i)\bAS\s+\$\$`)
	keyRE        = func(key string) *regexp.Regexp { return regexp.MustCompile(`'` + regexp.QuoteMeta(key) + `'`) }
)

// reservedNames adds the unquoted names of the statement that Flink's
// parser reserves (`value`, `user`, `year`, `count` …).
func (c *checker) reservedNames() {
	names, err := parser.ReservedNames(c.st.Text)
	if err != nil {
		return // it parsed as a statement a moment ago
	}
	for _, w := range names {
		c.add(ast.Pos{Line: w.Line, Col: w.Col}, fmt.Sprintf("name %s, a reserved word in Flink (write `%s`)", w.Text, w.Text), &ExtReservedNames)
	}
}

func (c *checker) statement(node ast.Statement) {
	switch s := node.(type) {
	case *ast.ShowEffectiveConfiguration:
		c.add(c.posOf(effectiveRE, s.Pos), "SHOW EFFECTIVE CONFIGURATION", &ExtShowEffective)
	case *ast.Explain:
		if s.Analyze {
			c.add(c.posOf(analyzeRE, s.Pos), "EXPLAIN ANALYZE", &ExtExplainAnalyze)
		}
	case *ast.Set:
		if s.HasKey && strings.HasPrefix(s.Key, "tablerun.") {
			c.add(c.posOf(keyRE(s.Key), s.Pos), fmt.Sprintf("option '%s'", s.Key), &ExtOptions)
		}
		if s.HasKey && s.Key == "python.files" {
			c.pythonFiles = splitFiles(s.Value)
		}
	case *ast.Reset:
		if strings.HasPrefix(s.Key, "tablerun.") {
			c.add(c.posOf(keyRE(s.Key), s.Pos), fmt.Sprintf("option '%s'", s.Key), &ExtOptions)
		}
	case *ast.CreateTable:
		if len(s.Columns) == 0 && s.AsQuery == nil && s.Like == nil && infersColumns(s.Options) {
			c.add(s.Pos, fmt.Sprintf("table %s declares no columns (tablerun reads them from its files)", s.Name.Last()), &ExtInferredColumns)
		}
	case *ast.CreateFunction:
		c.function(s.Pos, s.Language, s.Inline, s.ClassName, s.Name.Last())
	case *ast.AlterFunction:
		c.function(s.Pos, s.Language, false, s.ClassName, s.Name.Last())
	}
	c.options(reflect.ValueOf(node), node)
}

func splitFiles(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (c *checker) function(p ast.Pos, lang string, inline bool, class, name string) {
	switch strings.ToUpper(lang) {
	case "JAVASCRIPT", "JS":
		c.add(c.posOf(javascriptRE, p), "a JavaScript function", &ExtJavaScript)
		return
	}
	if inline {
		c.add(c.posOf(bodyRE, p), fmt.Sprintf("the inline body of function %s", name), &ExtInlineFunction)
		return
	}
	if strings.EqualFold(lang, "PYTHON") {
		c.pythonFunction(p, class)
	}
}

// options walks every WITH clause and hint of a statement.
func (c *checker) options(v reflect.Value, stmt ast.Statement) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return
		}
		c.options(v.Elem(), stmt)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				c.options(v.Field(i), stmt)
			}
		}
	case reflect.Slice:
		if opts, ok := v.Interface().([]ast.Option); ok {
			c.optionList(opts, stmt)
			return
		}
		for i := 0; i < v.Len(); i++ {
			c.options(v.Index(i), stmt)
		}
	}
}

func (c *checker) optionList(opts []ast.Option, stmt ast.Statement) {
	values := map[string]string{}
	for _, o := range opts {
		values[o.Key] = o.Value
	}
	_, catalog := stmt.(*ast.CreateCatalog)
	for _, o := range opts {
		switch {
		case strings.HasPrefix(o.Key, "tablerun."):
			c.add(o.Pos, fmt.Sprintf("option '%s'", o.Key), &ExtOptions)
		case o.Key == "data" && values["connector"] == "values":
			c.add(o.Pos, "'data' of the values connector", &ExtValuesData)
		case (o.Key == "format" || strings.HasSuffix(o.Key, ".format")) && strings.EqualFold(o.Value, "arrow"):
			c.add(o.Pos, fmt.Sprintf("'%s' = 'arrow'", o.Key), &ExtArrowFormat)
		case o.Key == "csv.header" || strings.HasSuffix(o.Key, ".csv.header"):
			c.add(o.Pos, fmt.Sprintf("option '%s'", o.Key), &ExtCSVHeader)
		case o.Key == "connector" && o.Value == "nexmark":
			c.add(o.Pos, "'connector' = 'nexmark'", &ExtNexmark)
		case catalog && o.Key == "type" && o.Value == "tablerun_file":
			c.add(o.Pos, "a tablerun_file catalog", &ExtFileCatalog)
		}
	}
}

// pythonFunction checks a PYTHON function of the AS 'module.function'
// form: PyFlink needs that dotted reference (a module of python.files).
func (c *checker) pythonFunction(p ast.Pos, class string) {
	if !strings.Contains(class, ".") {
		c.add(p, fmt.Sprintf("PYTHON function AS '%s': PyFlink needs 'module.function' (a module of python.files)", class), nil)
	}
}

// infersColumns reports a filesystem table whose columns tablerun infers
// (connectors/filesystem/infer.go).
func infersColumns(opts []ast.Option) bool {
	v := map[string]string{}
	for _, o := range opts {
		v[o.Key] = o.Value
	}
	if v["connector"] != "filesystem" {
		return false
	}
	switch strings.ToLower(v["format"]) {
	case "parquet", "avro", "arrow":
		return true
	case "csv":
		return strings.EqualFold(v["csv.header"], "true")
	}
	return false
}
