package core

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The modules shipped in modules/ work and do what their comments say.
func TestShippedModules(t *testing.T) {
	e := newEnv(t)
	exec(t, e, "LOAD MODULE text WITH ('type' = 'python', 'path' = '../modules/text.py')")
	exec(t, e, "LOAD MODULE web WITH ('type' = 'javascript', 'path' = '../modules/web.js')")
	tests := []struct {
		sql  string
		want []any
	}{
		{"SELECT count_char('abcabc', 'c'), count_char('aaaa', 'aa'), count_char(CAST(NULL AS STRING), 'c')",
			[]any{int32(2), int32(2), nil}},
		{"SELECT slugify('Hello, World!'), slugify('  --Flink SQL 2.0--  '), slugify('')",
			[]any{"hello-world", "flink-sql-2-0", ""}},
		{"SELECT levenshtein('kitten', 'sitting'), levenshtein('', 'abc'), levenshtein('same', 'same')",
			[]any{int32(3), int32(3), int32(0)}},
		{"SELECT word_count('a  b c'), word_count('')", []any{int32(3), int32(0)}},
		{"SELECT url_host('https://Flink.Apache.org:8081/what-is-flink/?x=1'), url_path('http://a.b'), url_path('http://a.b/c/d?e')",
			[]any{"flink.apache.org", "/", "/c/d"}},
		{"SELECT url_param('https://x.org/p?a=1&b=two%20words', 'b'), url_param('https://x.org/p?a=1', 'z'), url_param('nope', 'a')",
			[]any{"two words", nil, nil}},
		{"SELECT email_domain('Ann@Example.COM'), email_domain('no-at-sign')", []any{"example.com", nil}},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			res := exec(t, e, tt.sql)
			require.Equal(t, [][]any{tt.want}, res.Rows())
		})
	}
	// the module's functions beside the core module's URL_DECODE/URL_ENCODE
	names := exec(t, e, "SHOW FUNCTIONS LIKE 'url%'").Rows()
	require.Equal(t, [][]any{{"url_decode"}, {"url_encode"}, {"url_host"}, {"url_param"}, {"url_path"}}, names)

	// module order decides which module's function a name means
	exec(t, e, "USE MODULES core")
	_, err := e.ExecuteSQL(context.Background(), "SELECT slugify('a')")
	require.ErrorContains(t, err, "No match found for function signature slugify")
	exec(t, e, "USE MODULES text, core")
	require.Equal(t, [][]any{{"a"}}, exec(t, e, "SELECT slugify('A')").Rows())
}

func TestScriptModuleErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	shadow := write("shadow.py", "# sql: upper(s STRING) RETURNS STRING\ndef upper(s):\n    return s + '?'\n")
	tests := []struct {
		name string
		sql  string
		want string
	}{
		{"no declarations", "LOAD MODULE m WITH ('type' = 'python', 'path' = '" + write("none.py", "def f(a):\n    return a\n") + "')",
			"no function of " + filepath.Join(dir, "none.py") + " is declared"},
		{"syntax error", "LOAD MODULE m WITH ('type' = 'python', 'path' = '" + write("bad.py", "# sql: f(a INT) RETURNS INT\ndef f(a)\n    return a\n") + "')",
			"SyntaxError"},
		{"bad declaration", "LOAD MODULE m WITH ('type' = 'python', 'path' = '" + write("decl.py", "# sql: f(a INT) RETURNS NOPE\ndef f(a):\n    return a\n") + "')",
			"declaration \"f(a INT) RETURNS NOPE\""},
		{"missing path", "LOAD MODULE m WITH ('type' = 'python', 'path' = '" + filepath.Join(dir, "nope.py") + "')",
			"module path"},
		{"no path option", "LOAD MODULE m WITH ('type' = 'python')", "Script module 'm' needs a 'path' option"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			_, err := e.ExecuteSQL(context.Background(), tt.sql)
			require.ErrorContains(t, err, tt.want)
			require.Equal(t, []string{"core"}, e.Modules().Used(), "a failed LOAD MODULE changes nothing")
		})
	}

	// a script module used before core shadows a built-in without touching it
	e := newEnv(t)
	exec(t, e, "LOAD MODULE shadow WITH ('type' = 'python', 'path' = '"+shadow+"')")
	require.Equal(t, [][]any{{"A"}}, exec(t, e, "SELECT upper('a')").Rows())
	exec(t, e, "USE MODULES shadow, core")
	require.Equal(t, [][]any{{"a?"}}, exec(t, e, "SELECT upper('a')").Rows())
	rows := exec(t, e, "DESCRIBE FUNCTION upper").Rows()
	require.Equal(t, []any{"is system function", "true"}, rows[0])
}
