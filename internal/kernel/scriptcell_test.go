package kernel

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseScriptCell(t *testing.T) {
	cases := []struct {
		name   string
		code   string
		lang   string
		module string
		defs   []string
		err    string
	}{
		{name: "sql", code: "SELECT 1"},
		{name: "python", code: "%%python\ndef shout(s):\n    return s.upper()\n\nclass Total:\n    pass\n", lang: "PYTHON", module: "notebook", defs: []string{"shout", "Total"}},
		{name: "javascript module", code: "%%javascript text\nfunction twice(x) { return 2 * x; }\n", lang: "JAVASCRIPT", module: "text", defs: []string{"twice"}},
		{name: "js alias", code: "%%js\nfunction* gen(n) { yield n; }\n", lang: "JAVASCRIPT", module: "notebook", defs: []string{"gen"}},
		{name: "unknown magic", code: "%%ruby\nputs 1", err: "not supported yet: cell magic %%ruby"},
		{name: "bad module", code: "%%python my-mod\n", err: `module name "my-mod" is not an identifier`},
		{name: "too many words", code: "%%python a b\n", err: "at most a module name"},
		{name: "empty magic", code: "%%\n", err: "empty cell magic"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc, err := parseScriptCell(c.code)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			if c.lang == "" {
				require.Nil(t, sc)
				return
			}
			require.Equal(t, c.lang, sc.Lang)
			require.Equal(t, c.module, sc.Module)
			require.Equal(t, c.defs, sc.definitions())
		})
	}
}

// A %%python / %%javascript cell with a syntax error fails in that cell,
// with the line (and column) within the cell.
func TestScriptCellSyntaxError(t *testing.T) {
	cases := []struct {
		name  string
		code  string
		ename string
		tb    []string
	}{
		{"python", "%%python\ndef ok(x):\n    return x\n\ndef bad(x):\n    return x +\n", "SyntaxError",
			[]string{"[ERROR] Python module 'notebook' at cell line 6: SyntaxError: invalid syntax", "    return x +"}},
		{"javascript after blank lines", "\n\n%%javascript m\nfunction f(x) {\n  return x +;\n}\n", "SyntaxError",
			[]string{"[ERROR] JavaScript module 'm' at cell line 5, column 13: SyntaxError: Unexpected token ;", "  return x +;", "            ^"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc, err := parseScriptCell(c.code)
			require.NoError(t, err)
			ce := sc.check()
			require.NotNil(t, ce)
			require.Equal(t, c.ename, ce.ename)
			require.Equal(t, c.tb, ce.traceback)
		})
	}
	sc, err := parseScriptCell("%%python\ndef f(x):\n    return x\n")
	require.NoError(t, err)
	require.Nil(t, sc.check())
	sc, err = parseScriptCell("%%js\nfunction f(x) { return x; }\n")
	require.NoError(t, err)
	require.Nil(t, sc.check())
}
