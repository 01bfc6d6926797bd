package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseMemorySize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  string
	}{
		{"0", 0, ""},
		{"1024", 1024, ""},
		{"64 mb", 64 << 20, ""},
		{"64MB", 64 << 20, ""},
		{"512kb", 512 << 10, ""},
		{"2 g", 2 << 30, ""},
		{"1 tebibytes", 1 << 40, ""},
		{"10 bytes", 10, ""},
		{"mb", 0, "does not start with a number"},
		{"3 parsecs", 0, "Memory size unit 'parsecs' does not match"},
		{"99999999999999999999", 0, "numeric overflow"},
		{"99999999999 tb", 0, "numeric overflow"},
	}
	for _, tc := range tests {
		got, err := ParseMemorySize(tc.in)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}

func TestSpillOptions(t *testing.T) {
	c, err := New(nil)
	require.NoError(t, err)
	require.Zero(t, c.SpillMemoryBudget())
	require.Equal(t, "", c.SpillDir())
	require.True(t, c.SpillCompression())
	require.NoError(t, c.Set(KeySpillMemoryBudget, "16 mb"))
	require.NoError(t, c.Set(KeyTmpDirs, "/a/b,/c"))
	require.NoError(t, c.Set(KeySpillCompression, "false"))
	require.Equal(t, int64(16<<20), c.SpillMemoryBudget())
	require.Equal(t, "/a/b", c.SpillDir())
	require.False(t, c.SpillCompression())
	require.Error(t, c.Set(KeySpillMemoryBudget, "lots"))
	require.Error(t, c.Set(KeySpillCompression, "maybe"))
}
