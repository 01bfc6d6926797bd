package bench

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestBenchTPCH runs `tablerun bench tpch` on a tiny scale factor: it
// generates the data, runs two queries and reports them as answered.
func TestBenchTPCH(t *testing.T) {
	dir := t.TempDir()
	for _, q := range []string{"q6", "q3"} {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), []string{"tpch", "--sf", "0.005", "--query", q, "--dir", dir}, &out, &errOut)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", q, code, out.String(), errOut.String())
		}
		if !strings.Contains(out.String(), q+" ") || !strings.Contains(out.String(), " ok") {
			t.Fatalf("%s: output without the query's line:\n%s", q, out.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := Main(context.Background(), []string{"tpch", "--query", "q23", "--dir", dir}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), `no query "q23"`) {
		t.Fatalf("unknown query: exit %d, %s", code, errOut.String())
	}
}
