package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseFile(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []FileEntry
		err  string
	}{
		{"empty", "", nil, ""},
		{"comments only", "# nothing\n", nil, ""},
		{"flat keys", "table.local-time-zone: Asia/Shanghai\ntable.dml-sync: true\n",
			[]FileEntry{{"table.local-time-zone", "Asia/Shanghai", 1}, {"table.dml-sync", "true", 2}}, ""},
		{"nested maps flatten", "table:\n  display:\n    max-column-width: 12\n  dml-sync: 'true'\npipeline.name: job\n",
			[]FileEntry{{"table.display.max-column-width", "12", 3}, {"table.dml-sync", "true", 4}, {"pipeline.name", "job", 5}}, ""},
		{"mixed flat and nested", "table.exec:\n  mini-batch.enabled: true\n",
			[]FileEntry{{"table.exec.mini-batch.enabled", "true", 2}}, ""},
		{"list joined with semicolons", "io.tmp.dirs: [/a, /b]\n",
			[]FileEntry{{"io.tmp.dirs", "/a;/b", 1}}, ""},
		{"null is empty", "pipeline.name:\n", []FileEntry{{"pipeline.name", "", 1}}, ""},
		{"duplicate after flattening", "table.dml-sync: true\ntable:\n  dml-sync: false\n", nil,
			"config file f.yaml: line 3: key 'table.dml-sync': duplicate key (first set on line 1)"},
		{"top level not a map", "- a\n- b\n", nil, "config file f.yaml: line 1: the top level must be a mapping"},
		{"list of maps", "k: [{a: 1}]\n", nil, "config file f.yaml: line 1: key 'k': a list value may hold only scalars"},
		{"bad yaml", "a: [\n", nil, "config file f.yaml: yaml:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := ParseFile("f.yaml", []byte(c.text))
			if c.err != "" {
				require.Error(t, err)
				require.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, f.Entries)
		})
	}
}

func TestLoadFileMissing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.yaml")
	_, err := LoadFile(p)
	require.Error(t, err)
	require.Contains(t, err.Error(), "config file "+p)
	require.True(t, errors.Is(err, os.ErrNotExist))
}

func TestDefaultFile(t *testing.T) {
	t.Setenv(EnvConfDir, "")
	require.Equal(t, "", DefaultFile())
	t.Setenv(EnvConfDir, "/etc/tablerun")
	require.Equal(t, filepath.Join("/etc/tablerun", "config.yaml"), DefaultFile())
}

func TestNewWithFilePrecedence(t *testing.T) {
	f, err := ParseFile("conf/config.yaml", []byte("table:\n  local-time-zone: Asia/Shanghai\n  dml-sync: true\npipeline.name: from-file\n"))
	require.NoError(t, err)
	c, err := NewWithFile(f, map[string]string{KeyPipelineName: "from-creation"})
	require.NoError(t, err)
	cases := []struct {
		key, value string
		src        Source
	}{
		{KeyLocalTimeZone, "Asia/Shanghai", SourceFile},
		{KeyDMLSync, "true", SourceFile},
		{KeyPipelineName, "from-creation", SourceCreation},
		{KeyMaxColumnWidth, "30", SourceDefault},
	}
	for _, x := range cases {
		v, _ := c.Get(x.key)
		require.Equal(t, x.value, v, x.key)
		require.Equal(t, x.src, c.Source(x.key), x.key)
	}
	require.NoError(t, c.Set(KeyDMLSync, "false"))
	require.Equal(t, SourceSet, c.Source(KeyDMLSync))
	require.Equal(t, SourceSet, c.Clone().Source(KeyDMLSync))
	c.Reset(KeyDMLSync)
	require.Equal(t, SourceFile, c.Source(KeyDMLSync), "RESET returns to the file's value")
	require.True(t, c.DMLSync())
	require.NoError(t, c.Set(KeyPipelineName, "x"))
	require.NoError(t, c.Set("my.key", "v"))
	c.ResetAll()
	require.Equal(t, SourceCreation, c.Source(KeyPipelineName))
	require.Equal(t, SourceDefault, c.Source("my.key"))
	require.False(t, c.IsSet("my.key"))
}

func TestNewWithFileBadValue(t *testing.T) {
	f, err := ParseFile("/etc/tablerun/config.yaml", []byte("pipeline.name: ok\ntable:\n  dml-sync: maybe\n"))
	require.NoError(t, err)
	_, err = NewWithFile(f, nil)
	require.Error(t, err)
	var fe *FileError
	require.True(t, errors.As(err, &fe))
	require.Equal(t, "table.dml-sync", fe.Key)
	require.Equal(t, 3, fe.Line)
	require.Equal(t, "java.lang.IllegalArgumentException", fe.JavaClass())
	require.Equal(t, "config file /etc/tablerun/config.yaml: line 3: key 'table.dml-sync': "+
		"Unrecognized option for boolean: maybe. Expected either true or false(case insensitive)", err.Error())

	// A bad creation value is still reported as before (no file named).
	_, err = NewWithFile(nil, map[string]string{KeyDMLSync: "maybe"})
	require.Error(t, err)
	require.False(t, errors.As(err, &fe))
}

func TestEffective(t *testing.T) {
	f, err := ParseFile("c.yaml", []byte("table.dml-sync: true\nmy.file.key: a\n"))
	require.NoError(t, err)
	c, err := NewWithFile(f, map[string]string{KeyRuntimeMode: "BATCH"})
	require.NoError(t, err)
	require.NoError(t, c.Set(KeyPipelineName, "p"))
	eff := c.Effective()
	require.Len(t, eff, len(options())+1, "every known key plus the unknown file key")
	got := map[string]EffectiveEntry{}
	for i, en := range eff {
		if i > 0 {
			require.Less(t, eff[i-1].Key, en.Key, "sorted by key")
		}
		got[en.Key] = en
	}
	require.Equal(t, EffectiveEntry{KeyDMLSync, "true", SourceFile}, got[KeyDMLSync])
	require.Equal(t, EffectiveEntry{"my.file.key", "a", SourceFile}, got["my.file.key"])
	require.Equal(t, EffectiveEntry{KeyRuntimeMode, "BATCH", SourceCreation}, got[KeyRuntimeMode])
	require.Equal(t, EffectiveEntry{KeyPipelineName, "p", SourceSet}, got[KeyPipelineName])
	require.Equal(t, EffectiveEntry{KeyBatchSize, "4096", SourceDefault}, got[KeyBatchSize])
	// SET; (Explicit) still lists the explicit options only.
	require.Len(t, c.Explicit(), 4)
}
