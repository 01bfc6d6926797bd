package flightsql

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pythonClients returns the python3 that has pyarrow.flight and ADBC's
// Flight SQL driver; without them the test fails under CI=true (.ci/run
// installs them) and skips otherwise.
func pythonClients(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err == nil {
		err = exec.Command(py, "-c", "import pyarrow.flight, adbc_driver_flightsql.dbapi, adbc_driver_manager").Run()
	}
	if err != nil {
		msg := fmt.Sprintf("python3 with pyarrow and adbc-driver-flightsql is needed (pip install pyarrow adbc-driver-flightsql adbc-driver-manager): %v", err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return py
}

// TestPythonClients runs testdata/clients.py: ADBC's DBAPI and
// pyarrow.flight query a server that wants a bearer token (a bounded
// query, DDL and INSERT, an error with its position, metadata, and
// unbounded streaming queries read partially and then cancelled: the
// server must stop their jobs while the clients stay connected).
func TestPythonClients(t *testing.T) {
	py := pythonClients(t)
	s := startServer(t, Options{Token: "tok-42"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, "testdata/clients.py", s.Addr().String(), "tok-42", t.TempDir())
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	var oks []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		t.Log(line)
		switch {
		case strings.HasPrefix(line, "ok "):
			oks = append(oks, strings.TrimPrefix(line, "ok "))
		case strings.HasPrefix(line, "wait "):
			require.Eventually(t, func() bool { return s.Running() == 0 }, 10*time.Second, 20*time.Millisecond,
				"%s: the cancelled query still runs", strings.TrimPrefix(line, "wait "))
			_, err := io.WriteString(stdin, "go on\n")
			require.NoError(t, err)
		}
	}
	err = cmd.Wait()
	require.NoError(t, err, "clients.py failed:\n%s", stderr.String())
	require.Equal(t, []string{
		"adbc refused without token",
		"adbc bounded query",
		"adbc ddl and insert",
		"adbc ingest",
		"adbc error with position",
		"adbc metadata",
		"adbc streaming read then cancel",
		"pyarrow.flight bounded query",
		"pyarrow.flight error with position",
		"pyarrow.flight changelog read then cancel",
	}, oks)
	require.Eventually(t, func() bool { return s.Sessions() == 0 }, 10*time.Second, 20*time.Millisecond, "sessions close with their connections")
}

// TestReadmePythonExample checks that the README's Python example is
// examples/flightsql/explore.py, verbatim, and runs it against a server
// started from the repository root (where its data path resolves).
func TestReadmePythonExample(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	src, err := os.ReadFile(filepath.Join(root, "examples", "flightsql", "explore.py"))
	require.NoError(t, err)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```python\n(.*?)```").FindAllSubmatch(readme, -1)
	require.NotEmpty(t, blocks, "README has no ```python block")
	require.Equal(t, string(src), string(blocks[0][1]), "README's Python example differs from examples/flightsql/explore.py")

	py := pythonClients(t)
	t.Chdir(root)
	s := startServer(t, Options{})
	cmd := exec.Command(py, filepath.Join("examples", "flightsql", "explore.py"))
	cmd.Env = append(os.Environ(), "TABLERUN_FLIGHT_SQL=grpc://"+s.Addr().String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "explore.py:\n%s", stderr.String())
	require.Empty(t, stderr.String())
	require.Equal(t, `decimal128(38, 2) 7 users
top spender: {'user_id': 1, 'total': Decimal('342.39')}
all users spent 1136.27
changes: [{'values': '+I', 'counts': 5}, {'values': '-U', 'counts': 7}, {'values': '+U', 'counts': 7}]
`, string(out))
}
