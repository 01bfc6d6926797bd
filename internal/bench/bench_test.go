package bench

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const queriesDir = "../../../shared/nexmark/queries"

func needQueries(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(queriesDir, "ddl_gen.sql")); err != nil {
		t.Skipf("nexmark queries not available: %v", err)
	}
}

func TestRunReportsSaneFields(t *testing.T) {
	needQueries(t)
	for _, tc := range []struct {
		query string
		opts  [][2]string
	}{
		{"q1", nil},
		{"q17", nil},
		{"q17", impliedOptions([][2]string{{"table.exec.mini-batch.size", "1000"}})},
	} {
		t.Run(tc.query, func(t *testing.T) {
			res, err := Run(context.Background(), Config{QueriesDir: queriesDir, Query: tc.query, Events: 20_000, Runs: 1, Options: tc.opts})
			require.NoError(t, err)
			require.Equal(t, tc.query, res.Query)
			require.EqualValues(t, 20_000, res.Events)
			require.Positive(t, res.Elapsed)
			require.Positive(t, res.EventsPerSec)
			require.Less(t, res.EventsPerSec, 1e10)
			require.Positive(t, res.HeapInUseBytes)
			if peakRSS() > 0 { // measured on this platform
				require.Positive(t, res.PeakRSSBytes)
				require.Less(t, res.HeapInUseBytes, uint64(res.PeakRSSBytes)*2)
			}
			if res.CPU > 0 {
				require.Positive(t, res.EventsPerCoreSec)
			}
			require.Contains(t, FormatLine(res), "events/s/core")
		})
	}
}

func TestParseMatrix(t *testing.T) {
	for _, tc := range []struct {
		spec string
		n    int
		err  string
	}{
		{"", 1, ""},
		{"a=1,2;b=x,y,z", 6, ""},
		{"a=1", 1, ""},
		{"a", 0, "not key=v1,v2"},
		{"a=1,,2", 0, "empty value"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			g, err := ParseMatrix(tc.spec)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Len(t, g, tc.n)
		})
	}
	g, err := ParseMatrix("a=1,2;b=x,y")
	require.NoError(t, err)
	require.Equal(t, [][2]string{{"a", "1"}, {"b", "y"}}, g[1])
}

func TestImpliedOptions(t *testing.T) {
	got := impliedOptions([][2]string{{"table.exec.mini-batch.size", "10"}})
	require.Equal(t, [][2]string{{"table.exec.mini-batch.enabled", "true"}, {"table.exec.mini-batch.size", "10"}, {"table.exec.mini-batch.allow-latency", "1 s"}}, got)
	plain := [][2]string{{"table.optimizer.agg-phase-strategy", "TWO_PHASE"}}
	require.Equal(t, plain, impliedOptions(plain))
}

func TestMainMatrixWritesSVG(t *testing.T) {
	needQueries(t)
	chart := filepath.Join(t.TempDir(), "out.svg")
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"nexmark", "--query", "q17", "--events", "20000", "--runs", "1",
		"--queries-dir", queriesDir, "--matrix", "table.optimizer.agg-phase-strategy=ONE_PHASE,TWO_PHASE", "--chart", chart}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	require.Contains(t, out.String(), "latency: source batch ingestion")
	require.Contains(t, out.String(), "agg-phase-strategy=ONE_PHASE")
	require.Contains(t, out.String(), "agg-phase-strategy=TWO_PHASE")
	b, err := os.ReadFile(chart)
	require.NoError(t, err)
	dec := xml.NewDecoder(bytes.NewReader(b))
	rects := 0
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			if se.Name.Local == "rect" {
				rects++
			}
		}
	}
	require.Equal(t, "svg", root)
	require.Equal(t, 1+2*2, rects) // background + two bars per configuration
}

func TestMainErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no subcommand", nil, 2, "usage"},
		{"no query", []string{"nexmark"}, 2, "--query is required"},
		{"bad -D", []string{"nexmark", "--query", "q1", "-D", "x"}, 2, "not key=value"},
		{"missing dir", []string{"nexmark", "--query", "q1", "--queries-dir", "/nonexistent"}, 1, "read nexmark query file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			require.Equal(t, tc.code, Main(context.Background(), tc.args, &out, &errb))
			require.True(t, strings.Contains(errb.String(), tc.msg), errb.String())
		})
	}
}

func TestBadOptionFails(t *testing.T) {
	needQueries(t)
	_, err := Run(context.Background(), Config{QueriesDir: queriesDir, Query: "q1", Events: 10, Runs: 1,
		Options: [][2]string{{"table.exec.mini-batch.size", "abc"}}})
	require.ErrorContains(t, err, "Could not parse value")
}
