package python

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
)

// TestHostStreams: a UDF's standard streams are its own. stdin is empty
// (never the process's), stderr writes reach the log writer, and closing
// sys.stderr closes only the UDF's stream, not descriptor 2.
func TestHostStreams(t *testing.T) {
	var buf bytes.Buffer
	old := SetOutput(&buf)
	defer SetOutput(old)
	def := scalar(t, "f", "import sys\ndef f(a):\n    n = sys.stderr.write('to the log\\n')\n    print('printed')\n    data = sys.stdin.read() + sys.__stdin__.readline()\n    sys.stderr.close()\n    sys.__stderr__.close()\n    return len(data) * 100 + n\n", types.IntT, types.IntT)
	got, err := call(def, int32(1))
	require.NoError(t, err)
	require.Equal(t, int32(11), got)
	require.Equal(t, "to the log\nprinted\n", buf.String())
	_, err = os.Stderr.Stat()
	require.NoError(t, err, "descriptor 2 must stay open")
	// A closed stream raises in the UDF, not in the process.
	def = scalar(t, "g", "import sys\ndef g(a):\n    sys.stdout.close()\n    print('x')\n    return a\n", types.IntT, types.IntT)
	_, err = call(def, int32(1))
	require.ErrorContains(t, err, "I/O operation on closed file")
	_, err = os.Stderr.Stat()
	require.NoError(t, err)
}
