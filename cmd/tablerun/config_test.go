package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestConfigFlags(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(good, []byte("table:\n  dml-sync: true\npipeline.name: from-file\n"), 0o644))
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("sql-client:\n  verbose: maybe\n"), 0o644))
	row := func(key, value, source string) *regexp.Regexp {
		return regexp.MustCompile(`\n\| +` + regexp.QuoteMeta(key) + ` \| +` + regexp.QuoteMeta(value) + ` \| +` + source + ` \|\n`)
	}
	cases := []struct {
		name    string
		args    []string
		confDir string
		code    int
		rows    []*regexp.Regexp
		out     string // substring of stdout + stderr
	}{
		{"print alone", []string{"--config", good, "--print-config"}, "", 0,
			[]*regexp.Regexp{row("table.dml-sync", "true", "file"), row("pipeline.name", "from-file", "file"),
				row("table.local-time-zone", "default", "default")}, "rows in set"},
		{"-D over the file", []string{"--config", good, "-D", "pipeline.name=cli", "--print-config"}, "", 0,
			[]*regexp.Regexp{row("pipeline.name", "cli", "creation")}, ""},
		{"env dir", []string{"--print-config"}, dir, 0,
			[]*regexp.Regexp{row("table.dml-sync", "true", "file")}, ""},
		{"flag over env dir", []string{"--config", bad, "--print-config"}, t.TempDir(), 1, nil,
			"config file " + bad + ": line 2: key 'sql-client.verbose': Unrecognized option for boolean: maybe"},
		{"env dir without config.yaml", []string{"--print-config"}, t.TempDir(), 1, nil, "no such file or directory"},
		{"with a script", []string{"--config", good, "--print-config", "-e", "SET 'pipeline.name' = 'x';SHOW EFFECTIVE CONFIGURATION;"}, "", 0,
			[]*regexp.Regexp{row("pipeline.name", "from-file", "file"), row("pipeline.name", "x", "set"),
				row("sql-client.execution.result-mode", "tableau", "creation")}, "[INFO] Execute statement succeeded."},
		{"bad file fails the script", []string{"--config", bad, "-e", "SELECT 1"}, "", 1, nil,
			"java.lang.IllegalArgumentException: config file " + bad + ": line 2: key 'sql-client.verbose'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("TABLERUN_CONF_DIR", c.confDir)
			var out, errOut bytes.Buffer
			code := run(context.Background(), c.args, &out, &errOut)
			all := out.String() + errOut.String()
			require.Equal(t, c.code, code, all)
			for _, r := range c.rows {
				require.Regexp(t, r, out.String())
			}
			require.Contains(t, all, c.out)
		})
	}
}
