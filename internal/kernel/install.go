package kernel

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// KernelName is the name of the kernelspec that Install writes.
const KernelName = "tablerun"

// DisplayName is the kernel's name in Jupyter's menus.
const DisplayName = "tablerun (Flink SQL)"

// KernelSpec is the content of a kernel.json file.
type KernelSpec struct {
	Argv          []string          `json:"argv"`
	DisplayName   string            `json:"display_name"`
	Language      string            `json:"language"`
	InterruptMode string            `json:"interrupt_mode"`
	Env           map[string]string `json:"env,omitempty"`
	Metadata      map[string]any    `json:"metadata"`
}

// Spec returns the kernelspec that starts executable as the kernel:
// [executable, "kernel", "--connection-file", "{connection_file}"].
// Interrupts are sent as interrupt_request messages on the control channel.
func Spec(executable string) KernelSpec {
	return KernelSpec{
		Argv:          []string{executable, "kernel", "--connection-file", "{connection_file}"},
		DisplayName:   DisplayName,
		Language:      "sql",
		InterruptMode: "message",
		Metadata:      map[string]any{},
	}
}

// DefaultDir returns the per-user kernelspec directory of the tablerun
// kernel: $JUPYTER_DATA_DIR/kernels/tablerun, or
// ~/.local/share/jupyter/kernels/tablerun.
func DefaultDir() (string, error) {
	if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
		return filepath.Join(d, "kernels", KernelName), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the home directory: %w", err)
	}
	return filepath.Join(home, ".local", "share", "jupyter", "kernels", KernelName), nil
}

// Install writes the kernelspec (kernel.json) into dir, creating it; dir
// is the kernelspec directory itself ("" means DefaultDir()). executable is
// the tablerun binary the kernelspec starts ("" means the running one).
// See InstallExecutable for a temporary `go run` build.
func Install(dir string, executable string) error {
	_, err := InstallExecutable(dir, executable)
	return err
}

// InstallExecutable is Install that also returns the path kernel.json
// starts. When executable is a temporary build of `go run` or `go test`
// (in the go-build cache, which Go deletes when the command ends), it is
// copied to dir/tablerun first and that stable copy is what the
// kernelspec starts (`jupyter kernelspec remove tablerun` removes it with
// the spec).
func InstallExecutable(dir string, executable string) (string, error) {
	if dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return "", err
		}
		dir = d
	}
	if executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("find the tablerun executable: %w", err)
		}
		executable = exe
	}
	if abs, err := filepath.Abs(executable); err == nil {
		executable = abs
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create kernelspec directory: %w", err)
	}
	if IsTemporaryBuild(executable) {
		stable := filepath.Join(dir, "tablerun")
		if err := copyExecutable(executable, stable); err != nil {
			return "", fmt.Errorf("copy the temporary go run build %s to %s: %w (build it with go build -o tablerun ./cmd/tablerun and run ./tablerun kernel install)", executable, stable, err)
		}
		executable = stable
	}
	data, err := json.MarshalIndent(Spec(executable), "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode kernel.json: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kernel.json"), append(data, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("write kernel.json: %w", err)
	}
	return executable, nil
}

// IsTemporaryBuild reports whether path is an executable that `go run`
// or `go test` built in the go-build cache directory
// (<tmp>/go-build<N>/b001/exe/<name>, or a test binary below go-build<N>):
// it disappears when that command ends.
func IsTemporaryBuild(path string) bool {
	for _, part := range strings.Split(filepath.ToSlash(filepath.Dir(path)), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

// copyExecutable copies src to dst (mode 0755) through a temporary file
// renamed into place, so a kernel running the old copy keeps working.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".tablerun-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}
