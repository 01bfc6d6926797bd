package core

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/config"
)

func writeConfigFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

func TestConfigFilePrecedence(t *testing.T) {
	path := writeConfigFile(t, "table:\n  local-time-zone: Asia/Shanghai\n  dml-sync: true\npipeline.name: from-file\nsql-client.verbose: true\n")
	// WithOption after WithConfigFile keeps the file.
	e := NewTableEnvironment(InBatchMode().WithConfigFile(path).WithOption(config.KeyPipelineName, "from-creation"))
	var sink bytes.Buffer
	e.SetOutput(&sink, &sink)
	exec(t, e, "SET 'sql-client.verbose' = 'false'")
	cases := []struct {
		key, value string
		src        config.Source
	}{
		{config.KeyLocalTimeZone, "Asia/Shanghai", config.SourceFile},
		{config.KeyDMLSync, "true", config.SourceFile},
		{config.KeyPipelineName, "from-creation", config.SourceCreation},
		{config.KeyRuntimeMode, "BATCH", config.SourceCreation},
		{config.KeyVerbose, "false", config.SourceSet},
		{config.KeyMaxColumnWidth, "30", config.SourceDefault},
	}
	for _, c := range cases {
		v, _ := e.Config().Get(c.key)
		require.Equal(t, c.value, v, c.key)
		require.Equal(t, c.src, e.Config().Source(c.key), c.key)
	}
	require.Equal(t, "Asia/Shanghai", e.Config().LocalTimeZone().String())
	// RESET returns to the file's value.
	exec(t, e, "RESET 'sql-client.verbose'")
	require.True(t, e.Config().Verbose())
	// SET; lists the explicit options (file and creation included), as Flink.
	require.Len(t, exec(t, e, "SET").Rows(), 5)
}

func TestShowEffectiveConfiguration(t *testing.T) {
	path := writeConfigFile(t, "table.dml-sync: true\n")
	e := NewTableEnvironment(InStreamingMode().WithConfigFile(path).WithOption(config.KeyPipelineName, "p"))
	exec(t, e, "SET 'table.display.max-column-width' = '40'")
	res := exec(t, e, "SHOW EFFECTIVE CONFIGURATION")
	require.Equal(t, []string{"key", "value", "source"}, []string{res.Schema()[0].Name, res.Schema()[1].Name, res.Schema()[2].Name})
	eff := e.Config().Effective()
	require.Len(t, res.Rows(), len(eff))
	got := map[string][2]string{}
	for i, r := range res.Rows() {
		require.Equal(t, eff[i].Key, r[0])
		got[r[0].(string)] = [2]string{r[1].(string), r[2].(string)}
	}
	require.Equal(t, [2]string{"true", "file"}, got[config.KeyDMLSync])
	require.Equal(t, [2]string{"p", "creation"}, got[config.KeyPipelineName])
	require.Equal(t, [2]string{"40", "set"}, got[config.KeyMaxColumnWidth])
	require.Equal(t, [2]string{"STREAMING", "default"}, got[config.KeyRuntimeMode])
	// The column widths depend on the longest known key; match the row loosely.
	require.Regexp(t, `\n\| +table\.dml-sync \| +true \| +file \|\n`, printed(t, res))
}

func TestConfigFileErrors(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"bad value", "pipeline.name: x\ntable:\n  local-time-zone: Mars/Olympus\n",
			"line 3: key 'table.local-time-zone': The supported Zone ID"},
		{"bad yaml", "table: [\n", "yaml:"},
		{"missing", "", "no such file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "missing.yaml")
			if c.name != "missing" {
				path = writeConfigFile(t, c.text)
			}
			e := NewTableEnvironment(InBatchMode().WithConfigFile(path))
			_, err := e.ExecuteSQL(context.Background(), "SELECT 1")
			require.Error(t, err)
			require.Contains(t, err.Error(), "config file "+path)
			require.Contains(t, err.Error(), c.want)
			// Every statement reports it, as for other invalid initial options.
			_, err = e.ExecuteSQL(context.Background(), "SHOW EFFECTIVE CONFIGURATION")
			require.ErrorContains(t, err, "config file "+path)
		})
	}
}
