package flinkgw

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tablerun/tablerun/internal/flinkenv"
)

// -record runs the scenarios against the real gateway of the package's
// Flink cluster and rewrites testdata/<scenario>.json; without it they
// replay those recordings, so the tests run without Flink.
var record = flag.Bool("record", false, "record fixtures from a real SQL Gateway")

func TestMain(m *testing.M) {
	flag.Parse()
	if *record {
		flinkenv.Main(m)
	}
	os.Exit(m.Run())
}

type exchange struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
	// Body is the answer byte for byte.
	Body string `json:"body,omitempty"`
}

var tokenRE = regexp.MustCompile(`/result/[0-9]+`)

// sameWait reports whether two exchanges are the same page but for the
// result token.
func sameWait(a, b exchange) bool {
	return a.Method == b.Method && a.Status == b.Status &&
		tokenRE.ReplaceAllString(a.Path, "") == tokenRE.ReplaceAllString(b.Path, "") &&
		tokenRE.ReplaceAllString(a.Body, "") == tokenRE.ReplaceAllString(b.Body, "")
}

// client returns a client of the recorded scenario (replaying) or of the
// real gateway (recording, -record).
func client(t *testing.T, scenario string) *Client {
	file := filepath.Join("testdata", scenario+".json")
	if *record {
		c := New(flinkenv.Require(t).GatewayURL)
		var log []exchange
		c.Trace = func(method, path string, _ []byte, status int, body []byte) {
			e := exchange{method, path, status, string(body)}
			// a wait of n NOT_READY pages, or of n empty PAYLOAD pages, is
			// kept as two: replaying needs only that the client polls again
			if n := len(log); n >= 2 && sameWait(log[n-1], e) && sameWait(log[n-2], e) {
				return
			}
			log = append(log, e)
		}
		t.Cleanup(func() {
			if t.Failed() {
				return
			}
			b, _ := json.MarshalIndent(log, "", " ")
			if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
				t.Error(err)
			}
		})
		return c
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var log []exchange
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatal(err)
	}
	i := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if i >= len(log) {
			t.Errorf("request %d %s %s past the recording", i, r.Method, r.URL.RequestURI())
			w.WriteHeader(500)
			return
		}
		e := log[i]
		i++
		if e.Method != r.Method || tokenRE.ReplaceAllString(e.Path, "") != tokenRE.ReplaceAllString(r.URL.RequestURI(), "") {
			t.Errorf("request %d: %s %s, recorded %s %s", i, r.Method, r.URL.RequestURI(), e.Method, e.Path)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(e.Status)
		io.WriteString(w, e.Body)
	}))
	t.Cleanup(func() {
		srv.Close()
		if i != len(log) {
			t.Errorf("%d of %d recorded requests made", i, len(log))
		}
	})
	c := New(srv.URL)
	c.PollInterval = time.Millisecond
	return c
}

func open(t *testing.T, c *Client, mode string) *Session {
	ctx := context.Background()
	s, err := c.OpenSession(ctx, "flinkgw-test", map[string]string{"execution.runtime-mode": mode, "table.dml-sync": "true"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBatchTypes(t *testing.T) {
	c := client(t, "batch_types")
	ctx := context.Background()
	info, err := c.Info(ctx)
	if err != nil || info.ProductName != "Apache Flink" || info.Version != "2.3.0" {
		t.Fatalf("Info = %+v, %v", info, err)
	}
	s := open(t, c, "batch")
	if err := s.Heartbeat(ctx); err != nil {
		t.Fatal(err)
	}
	props, err := s.Properties(ctx)
	if err != nil || props["execution.runtime-mode"] != "batch" {
		t.Fatalf("Properties: %v (runtime-mode %q)", err, props["execution.runtime-mode"])
	}
	op, err := s.Execute(ctx, "SELECT 1 AS a, CAST(NULL AS STRING) AS b, CAST(1.5 AS DECIMAL(10, 2)) AS d, "+
		"TIMESTAMP '2020-01-01 10:00:00.123' AS ts, DATE '2020-01-02' AS dt, ARRAY[1, 2] AS arr, "+
		"ROW(1, 'x') AS r, X'0102' AS bin, INTERVAL '2' DAY AS iv, TO_TIMESTAMP_LTZ(0, 3) AS ltz", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := op.FetchAll(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete || !res.IsQueryResult || res.ResultKind != "SUCCESS_WITH_CONTENT" || res.JobID == "" {
		t.Errorf("result = %+v", res)
	}
	var types []string
	for _, col := range res.Columns {
		types = append(types, col.Name+" "+col.LogicalType.Type)
	}
	want := "a INTEGER,b VARCHAR,d DECIMAL,ts TIMESTAMP_WITHOUT_TIME_ZONE,dt DATE,arr ARRAY,r ROW,bin BINARY,iv INTERVAL_DAY_TIME,ltz TIMESTAMP_WITH_LOCAL_TIME_ZONE"
	if got := strings.Join(types, ","); got != want {
		t.Errorf("columns = %s\nwant      %s", got, want)
	}
	d := res.Columns[2].LogicalType
	if d.Precision == nil || *d.Precision != 10 || *d.Scale != 2 || d.Nullable {
		t.Errorf("DECIMAL type = %+v", d)
	}
	if e := res.Columns[5].LogicalType.ElementType; e == nil || e.Type != "INTEGER" {
		t.Errorf("ARRAY element = %+v", e)
	}
	if f := res.Columns[6].LogicalType.Fields; len(f) != 2 || f[1].FieldType.Type != "CHAR" {
		t.Errorf("ROW fields = %+v", f)
	}
	if len(res.Rows) != 1 || res.Rows[0].Kind != "INSERT" {
		t.Fatalf("rows = %+v", res.Rows)
	}
	var fields []string
	for _, f := range res.Rows[0].Fields {
		fields = append(fields, string(f))
	}
	wantRow := `1|null|1.5|"2020-01-01T10:00:00.123"|"2020-01-02"|[1,2]|{"EXPR$0":1,"EXPR$1":"x"}|"AQI="|172800000|"1970-01-01T00:00:00Z"`
	if got := strings.Join(fields, "|"); got != wantRow {
		t.Errorf("row = %s\nwant  %s", got, wantRow)
	}
	if err := op.Close(ctx); err != nil {
		t.Error(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Error(err)
	}
}

func TestErrors(t *testing.T) {
	c := client(t, "errors")
	ctx := context.Background()
	s := open(t, c, "batch")
	defer s.Close(ctx)
	op, err := s.Execute(ctx, "SELECT nope FROM t", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = op.FetchAll(ctx, 0)
	var ge *Error
	if !errors.As(err, &ge) {
		t.Fatalf("FetchAll error = %v, want *Error", err)
	}
	if ge.Status != 500 || !ge.HasClass("org.apache.flink.table.api.ValidationException") ||
		ge.RootCause() != "org.apache.calcite.sql.validate.SqlValidatorException: Object 't' not found" {
		t.Errorf("error = %d %v\ncauses %q", ge.Status, ge, ge.Causes())
	}
	st, err := op.Status(ctx)
	if err != nil || st != "ERROR" {
		t.Errorf("Status = %q, %v", st, err)
	}
	op, err = s.Execute(ctx, "SELEC 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = op.FetchAll(ctx, 0)
	if !errors.As(err, &ge) || !ge.HasClass("SqlParserException") {
		t.Errorf("parse error = %v; classes %q", err, ge.Classes())
	}
	// a bad handle is a 400 with the handler's message
	bad := &Operation{s: s, Handle: "nothandle"}
	if _, err := bad.Status(ctx); !errors.As(err, &ge) || ge.Status != 400 || !strings.Contains(ge.Error(), "Cannot resolve path parameter (operation_handle)") {
		t.Errorf("bad handle: %v", err)
	}
}

// TestStreamingChangelog reads a GROUP BY's changelog and cancels an
// unbounded query after its first rows.
func TestStreamingChangelog(t *testing.T) {
	c := client(t, "streaming")
	ctx := context.Background()
	s := open(t, c, "streaming")
	defer s.Close(ctx)
	op, err := s.Execute(ctx, "SELECT k, COUNT(*) AS n FROM (VALUES ('a'), ('a'), ('b')) AS t(k) GROUP BY k", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := op.FetchAll(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Rows {
		got = append(got, r.Kind+" "+string(r.Fields[0])+" "+string(r.Fields[1]))
	}
	want := `INSERT "a" 1,UPDATE_BEFORE "a" 1,UPDATE_AFTER "a" 2,INSERT "b" 1`
	if strings.Join(got, ",") != want || !res.Complete {
		t.Errorf("changelog = %s (complete %v)\nwant        %s", strings.Join(got, ","), res.Complete, want)
	}
	if _, err := s.Execute(ctx, "CREATE TEMPORARY TABLE g (x BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '50', 'fields.x.kind' = 'sequence', 'fields.x.start' = '1', 'fields.x.end' = '1000000')", nil); err != nil {
		t.Fatal(err)
	}
	op, err = s.Execute(ctx, "SELECT x FROM g", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err = op.FetchAll(ctx, 3)
	if err != nil || len(res.Rows) < 3 || res.Complete {
		t.Fatalf("unbounded: %d rows, complete %v, %v", len(res.Rows), res.Complete, err)
	}
	// closing the operation of a streaming query stops its job
	if err := op.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if st, err := op.Status(ctx); err == nil {
		t.Errorf("status of a closed operation: %q, want an error", st)
	}
	// cancelling while the statement is still being submitted
	op, err = s.Execute(ctx, "SELECT x FROM g", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if st, err := op.Status(ctx); err != nil || st != "CANCELED" {
		t.Errorf("after Cancel: %q, %v", st, err)
	}
	if err := op.Close(ctx); err != nil {
		t.Error(err)
	}
}

// TestRoot reads the root cause, with its whole message, from the stack
// traces of recorded error bodies.
func TestRoot(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "errors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var log []exchange
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatal(err)
	}
	var roots []string
	for _, x := range log {
		if x.Status == 200 {
			continue
		}
		e := &Error{Status: x.Status}
		if err := json.Unmarshal([]byte(x.Body), &struct {
			Errors *[]string `json:"errors"`
		}{&e.Errors}); err != nil {
			t.Fatal(err)
		}
		class, msg, ok := e.Root()
		if !ok {
			t.Fatalf("no root cause in %s", x.Body)
		}
		roots = append(roots, class+": "+msg)
	}
	want := []string{
		"org.apache.calcite.sql.validate.SqlValidatorException: Object 't' not found",
		"org.apache.calcite.runtime.CalciteException: Non-query expression encountered in illegal context",
		`org.apache.flink.runtime.rest.handler.HandlerRequestException: Cannot resolve path parameter (operation_handle) from value "nothandle".`,
	}
	if strings.Join(roots, "\n") != strings.Join(want, "\n") {
		t.Fatalf("roots:\n%s\nwant:\n%s", strings.Join(roots, "\n"), strings.Join(want, "\n"))
	}
	multi := &Error{Errors: []string{"Internal server error.", "<Exception on server side:\norg.apache.flink.table.api.SqlParserException: SQL parse failed.\n\tat a.b(C.java:1)\nCaused by: org.apache.flink.sql.parser.impl.ParseException: Encountered \"x\" at line 1, column 8.\nWas expecting one of:\n    \"FROM\" ...\n\tat d.e(F.java:2)\n\t... 3 more\n\nEnd of exception on server side>"}}
	class, msg, _ := multi.Root()
	if class != "org.apache.flink.sql.parser.impl.ParseException" || msg != "Encountered \"x\" at line 1, column 8.\nWas expecting one of:\n    \"FROM\" ..." {
		t.Fatalf("multi-line root: %q %q", class, msg)
	}
}
