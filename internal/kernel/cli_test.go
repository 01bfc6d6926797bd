package kernel

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMainCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "spec")
	cases := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"install", []string{"install", "--dir", dir}, 0, "Installed the tablerun kernelspec in " + dir},
		{"no connection file", nil, 2, "Usage:"},
		{"stray argument", []string{"--connection-file", "x", "y"}, 2, "Usage:"},
		{"missing connection file", []string{"--connection-file", filepath.Join(dir, "none.json")}, 1, "read connection file"},
		{"bad flag", []string{"--nope"}, 2, "flag provided but not defined"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			require.Equal(t, c.code, Main(context.Background(), c.args, &b))
			require.Contains(t, b.String(), c.out)
		})
	}
	_, err := os.Stat(filepath.Join(dir, "kernel.json"))
	require.NoError(t, err)
}
