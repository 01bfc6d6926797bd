package flightsql

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
)

// TestCommand runs `tablerun flight-sql` (Main) with an init script, a -D
// option and a token from the environment, queries it and stops it.
func TestCommand(t *testing.T) {
	dir := t.TempDir()
	initFile := filepath.Join(dir, "init.sql")
	require.NoError(t, os.WriteFile(initFile, []byte("CREATE TEMPORARY VIEW greeting AS\nSELECT 'hello' AS word;\n"), 0o644))
	t.Setenv(TokenEnv, "from-env")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr strings.Builder
	code := make(chan int, 1)
	go func() {
		code <- Main(ctx, []string{"--port", "0", "-i", initFile, "-D", "execution.runtime-mode=streaming"}, pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err, stderr.String())
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "Flight SQL server listening on grpc://")
	require.True(t, ok, line)
	go func() { _, _ = io.Copy(io.Discard, pr) }()

	c, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer c.Close()
	authed := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer from-env")
	schema, rows, err := fetch(authed, t, c, "SELECT word FROM greeting")
	require.NoError(t, err)
	require.Equal(t, "op", schema.Field(0).Name, "-D execution.runtime-mode=streaming applies to sessions")
	require.Equal(t, []string{"+I hello"}, rows)
	cancel()
	select {
	case c := <-code:
		require.Equal(t, 0, c, stderr.String())
	case <-time.After(10 * time.Second):
		t.Fatal("flight-sql did not stop")
	}
	require.Empty(t, stderr.String())
}

func TestCommandUsageAndBadInit(t *testing.T) {
	var out, errb strings.Builder
	require.Equal(t, 2, Main(context.Background(), []string{"--port", "70000"}, &out, &errb))
	require.Equal(t, 2, Main(context.Background(), []string{"stray"}, &out, &errb))
	require.Equal(t, 0, Main(context.Background(), []string{"-h"}, &out, &errb))
	require.Contains(t, out.String(), "Usage: tablerun flight-sql")
	bad := filepath.Join(t.TempDir(), "bad.sql")
	require.NoError(t, os.WriteFile(bad, []byte("CREATE TABLE ( oops"), 0o644))
	errb.Reset()
	require.Equal(t, 1, Main(context.Background(), []string{"-i", bad}, &out, &errb))
	require.Contains(t, errb.String(), "init script")
}
