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
