package kernel

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A `go run` build lives in the go-build cache, deleted when go run ends:
// the kernelspec starts a stable copy instead.
func TestInstallTemporaryBuild(t *testing.T) {
	tmp := t.TempDir()
	exe := filepath.Join(tmp, "go-build123456", "b001", "exe", "tablerun")
	require.NoError(t, os.MkdirAll(filepath.Dir(exe), 0o755))
	require.NoError(t, os.WriteFile(exe, []byte("#!/bin/sh\necho fake tablerun\n"), 0o755))
	require.True(t, IsTemporaryBuild(exe))
	require.False(t, IsTemporaryBuild("/usr/local/bin/tablerun"))
	require.False(t, IsTemporaryBuild(filepath.Join(tmp, "work", "tablerun")))

	dir := filepath.Join(tmp, "kernels", KernelName)
	got, err := InstallExecutable(dir, exe)
	require.NoError(t, err)
	stable := filepath.Join(dir, "tablerun")
	require.Equal(t, stable, got)
	data, err := os.ReadFile(filepath.Join(dir, "kernel.json"))
	require.NoError(t, err)
	var spec KernelSpec
	require.NoError(t, json.Unmarshal(data, &spec))
	require.Equal(t, stable, spec.Argv[0])
	copied, err := os.ReadFile(stable)
	require.NoError(t, err)
	require.Equal(t, "#!/bin/sh\necho fake tablerun\n", string(copied))
	st, err := os.Stat(stable)
	require.NoError(t, err)
	require.NotZero(t, st.Mode()&0o100, "executable")

	// the go run cache goes away; the kernelspec's program stays
	require.NoError(t, os.RemoveAll(filepath.Join(tmp, "go-build123456")))
	_, err = os.Stat(spec.Argv[0])
	require.NoError(t, err)
}
