package kernel

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

const cliUsage = `Usage:
  tablerun kernel --connection-file <file> [-D key=value ...]
                                             serve a Jupyter kernel (Jupyter starts this);
                                             -D sets initial session options, e.g.
                                             -D execution.runtime-mode=streaming
  tablerun kernel install [--dir <dir>]      write the kernelspec (default: the user's
                                             Jupyter data directory, kernels/tablerun)
`

// Main is the `tablerun kernel` command: args are the arguments after
// "kernel". It returns the process exit code (0 ok, 1 failure, 2 usage).
func Main(ctx context.Context, args []string, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "install" {
		fs := flag.NewFlagSet("tablerun kernel install", flag.ContinueOnError)
		fs.SetOutput(stderr)
		fs.Usage = func() { fmt.Fprint(stderr, cliUsage) }
		dir := fs.String("dir", "", "kernelspec directory")
		if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
			return 2
		}
		if *dir == "" {
			d, err := DefaultDir()
			if err != nil {
				fmt.Fprintf(stderr, "tablerun kernel install: %v\n", err)
				return 1
			}
			*dir = d
		}
		self, _ := os.Executable()
		exe, err := InstallExecutable(*dir, "")
		if err != nil {
			fmt.Fprintf(stderr, "tablerun kernel install: %v\n", err)
			return 1
		}
		fmt.Fprintf(stderr, "Installed the %s kernelspec in %s\n", KernelName, *dir)
		if IsTemporaryBuild(self) {
			fmt.Fprintf(stderr, "The running tablerun is a temporary go run build: the kernelspec starts a copy of it, %s (install again after rebuilding).\n", exe)
		}
		return 0
	}
	fs := flag.NewFlagSet("tablerun kernel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, cliUsage) }
	conn := fs.String("connection-file", "", "Jupyter connection file")
	options := map[string]string{}
	fs.Func("D", "session option key=value (repeatable)", func(kv string) error {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("expected key=value, got %q", kv)
		}
		options[strings.TrimSpace(k)] = strings.TrimSpace(v)
		return nil
	})
	if err := fs.Parse(args); err != nil || *conn == "" || fs.NArg() > 0 {
		if err == nil {
			fmt.Fprint(stderr, cliUsage)
		}
		return 2
	}
	if err := RunWith(ctx, *conn, options); err != nil {
		fmt.Fprintf(stderr, "tablerun kernel: %v\n", err)
		return 1
	}
	return 0
}
