package kernel

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
func Install(dir string, executable string) error {
	if dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return err
		}
		dir = d
	}
	if executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("find the tablerun executable: %w", err)
		}
		executable = exe
	}
	if abs, err := filepath.Abs(executable); err == nil {
		executable = abs
	}
	data, err := json.MarshalIndent(Spec(executable), "", "  ")
	if err != nil {
		return fmt.Errorf("encode kernel.json: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create kernelspec directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kernel.json"), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write kernel.json: %w", err)
	}
	return nil
}
