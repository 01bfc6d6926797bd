package shell

import (
	"context"
	"sort"
	"strings"
	"unicode"

	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/catalog"
)

// keywords are the SQL words offered by completion.
var keywords = []string{
	"ADD", "ALL", "ALTER", "AND", "AS", "ASC", "BEGIN", "BETWEEN", "BIGINT", "BINARY",
	"BOOLEAN", "BY", "BYTES", "CASE", "CAST", "CATALOG", "CATALOGS", "CHAR", "COMMENT",
	"CREATE", "CROSS", "CURRENT", "DATABASE", "DATABASES", "DATE", "DECIMAL", "DESC",
	"DESCRIBE", "DISTINCT", "DOUBLE", "DROP", "ELSE", "END", "ENFORCED", "EXCEPT",
	"EXECUTE", "EXISTS", "EXPLAIN", "FALSE", "FETCH", "FILTER", "FIRST", "FLOAT", "FOR",
	"FROM", "FULL", "FUNCTION", "FUNCTIONS", "GROUP", "HAVING", "IF", "IN", "INNER",
	"INSERT", "INT", "INTEGER", "INTERSECT", "INTERVAL", "INTO", "IS", "JOIN", "KEY",
	"LAST", "LEFT", "LIKE", "LIMIT", "MAP", "NOT", "NULL", "NULLS", "OFFSET", "ON",
	"OR", "ORDER", "OUTER", "OVERWRITE", "PRIMARY", "RESET", "RIGHT", "ROW", "ROWS",
	"SELECT", "SET", "SHOW", "SMALLINT", "STATEMENT", "STRING", "TABLE", "TABLES",
	"TEMPORARY", "THEN", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ", "TINYINT", "TRUE",
	"TRY_CAST", "UNION", "USE", "USING", "VALUES", "VARBINARY", "VARCHAR", "VIEW",
	"VIEWS", "WATERMARK", "WHEN", "WHERE", "WITH",
}

// isWordRune reports whether r can be part of a (possibly qualified) name
// being completed.
func isWordRune(r rune) bool {
	return r == '_' || r == '.' || r == '`' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// Completions returns the completions of the word that ends at cursor (an
// offset in runes into text), and the rune range [start, end) of text that
// a completion replaces. Candidates are keywords, built-in function names,
// the tables and views of the current database and the columns of the
// tables named in text; after "name." they are the columns of table name.
// Matching ignores case; keywords and functions follow the case of the
// typed word. An empty word has no completions.
func Completions(env *core.TableEnvironment, text string, cursor int) (matches []string, start, end int) {
	rs := []rune(text)
	cursor = max(0, min(cursor, len(rs)))
	start = cursor
	for start > 0 && isWordRune(rs[start-1]) {
		start--
	}
	word := string(rs[start:cursor])
	if dot := strings.LastIndexByte(word, '.'); dot >= 0 {
		qualifier := word[:dot]
		prefix := word[dot+1:]
		start = cursor - len([]rune(prefix))
		cols := columnsOf(env, splitName(qualifier))
		return filterPrefix(cols, prefix, false), start, cursor
	}
	word = strings.TrimPrefix(word, "`")
	if word == "" {
		return nil, cursor, cursor
	}
	var cands []string
	cands = append(cands, filterPrefix(keywords, word, true)...)
	var fns []string
	for _, f := range env.Functions().Names() {
		if isName(f) {
			fns = append(fns, strings.ToUpper(f))
		}
	}
	cands = append(cands, filterPrefix(fns, word, true)...)
	tables := tableNames(env)
	cands = append(cands, filterPrefix(tables, word, false)...)
	// Columns of the tables the text mentions.
	mentioned := map[string]bool{}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) }) {
		mentioned[strings.ToLower(strings.Trim(w, "`"))] = true
	}
	for _, t := range tables {
		if mentioned[strings.ToLower(t)] {
			cands = append(cands, filterPrefix(columnsOf(env, []string{t}), word, false)...)
		}
	}
	return dedupe(cands), start, cursor
}

// isName reports whether s is a plain identifier (function names such as
// "+" or "IS NULL" are operators, not completions).
func isName(s string) bool {
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return s != ""
}

// splitName splits a dotted name, dropping back quotes.
func splitName(s string) []string {
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.Trim(p, "`"), "``", "`")
	}
	return parts
}

// filterPrefix returns the candidates that start with prefix, ignoring
// case. With followCase, candidates are lower-cased when prefix starts with
// a lower-case letter.
func filterPrefix(cands []string, prefix string, followCase bool) []string {
	lp := strings.ToLower(prefix)
	lower := followCase && prefix != "" && unicode.IsLower([]rune(prefix)[0])
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(strings.ToLower(c), lp) {
			if lower {
				c = strings.ToLower(c)
			}
			out = append(out, c)
		}
	}
	return out
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	out := xs[:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) < len(out[j]) })
	return out
}

// tableNames lists the tables and views of the current database.
func tableNames(env *core.TableEnvironment) []string {
	m := env.Catalogs()
	names, err := m.ListObjects(m.CurrentCatalog(), m.CurrentDatabase(), false, true)
	if err != nil {
		return nil
	}
	return names
}

// lookup resolves a 1- to 3-part name to a table or view.
func lookup(env *core.TableEnvironment, parts []string) (catalog.Object, catalog.ObjectIdentifier, bool) {
	id, err := env.Catalogs().Qualify(parts)
	if err != nil {
		return nil, id, false
	}
	obj, _, err := env.Catalogs().Lookup(id)
	if err != nil {
		return nil, id, false
	}
	return obj, id, true
}

// columnsOf returns the column names of the table or view named by parts.
func columnsOf(env *core.TableEnvironment, parts []string) []string {
	obj, _, ok := lookup(env, parts)
	if !ok {
		return nil
	}
	switch o := obj.(type) {
	case *catalog.Table:
		out := make([]string, len(o.Columns))
		for i, c := range o.Columns {
			out[i] = c.Name
		}
		return out
	case *catalog.View:
		return o.Columns.Names()
	}
	return nil
}

// wordAt returns the (possibly qualified) name around cursor.
func wordAt(text string, cursor int) string {
	rs := []rune(text)
	cursor = max(0, min(cursor, len(rs)))
	start, end := cursor, cursor
	for start > 0 && isWordRune(rs[start-1]) {
		start--
	}
	for end < len(rs) && isWordRune(rs[end]) {
		end++
	}
	return strings.Trim(string(rs[start:end]), ".")
}

// Inspect describes the name under cursor (an offset in runes into text):
// for a table or view, the result of DESCRIBE on it; for a built-in
// function, its documentation. It returns the description as a TableResult
// (tables) or text, and false when the name is unknown.
func Inspect(env *core.TableEnvironment, text string, cursor int) (res *core.TableResult, doc string, ok bool) {
	word := wordAt(text, cursor)
	if word == "" {
		return nil, "", false
	}
	parts := splitName(word)
	if _, id, found := lookup(env, parts); found {
		r, err := env.ExecuteSQL(context.Background(), "DESCRIBE "+id.String())
		if err == nil {
			return r, "", true
		}
	}
	if d, found := env.Functions().Lookup(parts[len(parts)-1]); found {
		var b strings.Builder
		b.WriteString(strings.ToUpper(d.Name))
		if d.Doc.Args != "" {
			b.WriteString("(" + d.Doc.Args + ")")
		}
		b.WriteByte('\n')
		if d.Doc.Summary != "" {
			b.WriteString(d.Doc.Summary + "\n")
		}
		if d.Doc.Example != "" {
			b.WriteString("Example: " + d.Doc.Example + "\n")
		}
		return nil, b.String(), true
	}
	return nil, "", false
}

// wordCompleter adapts Completions to the line editor.
func wordCompleter(env *core.TableEnvironment) func(line string, pos int) (string, []string, string) {
	return func(line string, pos int) (string, []string, string) {
		rs := []rune(line)
		matches, start, end := Completions(env, line, pos)
		return string(rs[:start]), matches, string(rs[end:])
	}
}
