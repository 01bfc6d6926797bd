package kernel

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// helperEnv makes the test binary run as the kernel (see TestMain), so that
// Jupyter's own client can start it from a kernelspec.
const helperEnv = "TABLERUN_KERNEL_TEST_MAIN"

// TestMain runs the kernel when helperEnv is set: the binary is then
// started as `<binary> kernel --connection-file <file>` by jupyter_client.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		file := ""
		for i, a := range os.Args {
			if a == "--connection-file" && i+1 < len(os.Args) {
				file = os.Args[i+1]
			}
		}
		if err := Run(context.Background(), file); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// debianPython is where Debian's python3-jupyter-kernel-test is importable.
func debianPython() string {
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	if p, err := exec.LookPath("python3"); err == nil {
		return p
	}
	return ""
}

// TestJupyterKernelTest runs the jupyter_kernel_test suite
// (testdata/test_kernel.py) against the kernel, started by jupyter_client
// from a kernelspec like the one Install writes.
func TestJupyterKernelTest(t *testing.T) {
	py := debianPython()
	if py == "" || exec.Command(py, "-c", "import jupyter_kernel_test").Run() != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("jupyter_kernel_test is not installed under CI=true: .ci/run installs it (apt-get install python3-jupyter-kernel-test)")
		}
		t.Skip("jupyter_kernel_test is not installed (apt-get install python3-jupyter-kernel-test): the Jupyter conformance suite did not run")
	}
	dir := testKernelspec(t)
	cmd := exec.Command(py, "-m", "unittest", "-v", "test_kernel")
	cmd.Dir = "testdata"
	cmd.Env = append(os.Environ(), jupyterEnv(dir)...)
	out, err := cmd.CombinedOutput()
	t.Logf("jupyter_kernel_test:\n%s", out)
	require.NoError(t, err, "jupyter_kernel_test failed")
}

// testKernelspec writes a kernelspec named tablerun that starts this test
// binary as the kernel, and returns the JUPYTER_PATH directory holding it.
func testKernelspec(t *testing.T) string {
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	spec := Spec(exe)
	spec.Env = map[string]string{helperEnv: "1"}
	data, err := json.Marshal(spec)
	require.NoError(t, err)
	specDir := filepath.Join(dir, "kernels", KernelName)
	require.NoError(t, os.MkdirAll(specDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(specDir, "kernel.json"), data, 0o644))
	return dir
}

// jupyterEnv points Jupyter at the kernelspec under dir and keeps its
// runtime, data and config files there.
func jupyterEnv(dir string) []string {
	return []string{
		"JUPYTER_PATH=" + dir,
		"JUPYTER_RUNTIME_DIR=" + filepath.Join(dir, "runtime"),
		"JUPYTER_DATA_DIR=" + filepath.Join(dir, "data"),
		"JUPYTER_CONFIG_DIR=" + filepath.Join(dir, "config"),
		"PYTHONDONTWRITEBYTECODE=1",
	}
}
