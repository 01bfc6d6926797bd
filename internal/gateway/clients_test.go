package gateway

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tablerun/tablerun/internal/flinkenv"
)

// The real-client tests drive Flink's own clients against `tablerun
// gateway`: its SQL client in gateway mode (from the Flink installation of
// internal/flinkenv/install.sh) and its JDBC driver
// (org.apache.flink:flink-sql-jdbc-driver-bundle, fetched into ~/.m2 by
// .ci/run). Missing clients fail the tests under CI=true and skip them
// otherwise, saying why.

func needClient(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true but %s", why)
	}
	t.Skip(why)
}

// repoRoot is the module root (the examples' paths are relative to it).
func repoRoot(t *testing.T) string {
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// gatewayProcess builds tablerun and starts `tablerun gateway` on a free
// loopback port in the repository root; it is stopped (SIGINT, then
// killed) when the test ends. It returns the binary, "host:port" and what
// the gateway writes to stdout after its address line (the print
// connector's rows).
func gatewayProcess(t *testing.T, args ...string) (bin, endpoint string, stdout *syncBuffer) {
	t.Helper()
	root := repoRoot(t)
	bin = filepath.Join(t.TempDir(), "tablerun")
	build := exec.Command("go", "build", "-o", bin, "./cmd/tablerun")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, append([]string{"gateway", "--port", "0"}, args...)...)
	cmd.Dir = root
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("tablerun gateway did not stop on SIGINT")
		}
		if t.Failed() {
			t.Logf("gateway log:\n%s", stderr.String())
		}
	})
	r := bufio.NewReader(out)
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("tablerun gateway: %v\n%s", err, stderr.String())
	}
	stdout = &syncBuffer{}
	go func() { _, _ = io.Copy(stdout, r) }()
	return bin, strings.TrimPrefix(strings.TrimSpace(line), "http://"), stdout
}

var (
	ansiRE     = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")
	outStartRE = regexp.MustCompile(`\[INFO\]|\[ERROR\]|\[WARN\]|\+-|Job ID:|Empty set|Received a total`)
	positionRE = regexp.MustCompile(`line [0-9]+, column [0-9]+`)
	printRE    = regexp.MustCompile(`^([0-9]+> )?[+-][IUD]\[.*\]$`)
	setTableRE = regexp.MustCompile(`(?m)^\+-+\+-+\+\n\| +key \| +value \|\n(?:[+|].*\n)*[0-9]+ rows? in set\n`)
)

// normalize applies what both outputs may differ in: positions in error
// messages (the client sends statements one by one, so they are relative
// to the statement; tablerun -f counts within the script), an error's
// reason after its first line (tablerun -f adds the position, the caret
// line and a hint), and the table of SET; (a client's session holds the
// client's own configuration, its config.yaml, as on Flink).
func normalize(s string) string {
	s = setTableRE.ReplaceAllString(s, "(the session configuration)\n")
	lines := strings.Split(s, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		if lines[i] == "[ERROR] Could not execute SQL statement. Reason:" && i+1 < len(lines) {
			out = append(out, positionRE.ReplaceAllString(lines[i+1], "line L, column C"))
			i++
			for i+1 < len(lines) && lines[i+1] != "" {
				i++
			}
		}
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n") + "\n"
}

// clientOutput is what Flink's SQL client printed for the statements of a
// script, without its own banners (the JLine warning, "[INFO] Executing
// SQL from file.", the history path, "Shutting down the session..."), the
// colors, the prompts and the echo of each statement, and without the
// server-side trailer it prints after an error's root cause.
func clientOutput(raw string) string {
	s := ansiRE.ReplaceAllString(raw, "")
	s = strings.ReplaceAll(s, "\r", "")
	if i := strings.Index(s, "Flink SQL> "); i >= 0 {
		s = s[i:]
	}
	if i := strings.LastIndex(s, "Shutting down the session..."); i >= 0 {
		s = s[:i]
	}
	var b strings.Builder
	for _, chunk := range strings.Split(s, "Flink SQL> ")[1:] {
		if loc := outStartRE.FindStringIndex(chunk); loc != nil {
			chunk = chunk[loc[0]:]
		} else {
			chunk = ""
		}
		chunk = strings.Replace(chunk, "\n\nEnd of exception on server side>]", "", 1)
		b.WriteString(chunk)
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// tableauOutput splits `tablerun -f` output into what Flink's client
// shows and the print connector's rows (which a gateway writes to its own
// output, as a Flink TaskManager does).
func tableauOutput(s string) (client string, printed []string) {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if printRE.MatchString(line) {
			printed = append(printed, line)
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n"), printed
}

// TestFlinkSQLClient runs scripts with Flink 2.3's SQL client in gateway
// mode against `tablerun gateway` and compares what it prints with what
// `tablerun -f` prints for the same script. What must match: every
// statement's output — [INFO]/[ERROR]/[WARN] lines, the error's root
// cause, result tables with their borders, column widths, NULLs, the op
// column of changelogs and the row counts. What may differ: the client's
// banners, prompts, colors and statement echo, and the extra lines
// tablerun prints after an error's reason (position, caret, hint). The
// gateway runs with the two options `tablerun -f` sets itself
// (sql-client.execution.result-mode = tableau, which the client also
// requires of a script) plus table.dml-sync = true, so that the client
// reports an INSERT as finished as `tablerun -f` does (tablerun runs it to
// the end either way), and without time costs.
func TestFlinkSQLClient(t *testing.T) {
	home, err := flinkenv.Home()
	if err != nil {
		needClient(t, err.Error())
	}
	jars, _ := filepath.Glob(filepath.Join(home, "opt", "flink-sql-client-*.jar"))
	if len(jars) == 0 {
		needClient(t, "Flink's SQL client jar is missing from "+filepath.Join(home, "opt"))
	}
	if _, err := exec.LookPath("java"); err != nil {
		needClient(t, "java is not installed")
	}
	bin, endpoint, gwOut := gatewayProcess(t,
		"-D", "sql-client.execution.result-mode=tableau",
		"-D", "sql-client.display.print-time-cost=false",
		"-D", "table.dml-sync=true")
	root := repoRoot(t)
	scripts, _ := filepath.Glob(filepath.Join(root, "examples", "*.sql"))
	// and what the examples do not have; a script stops at its first
	// error, in both
	dir := t.TempDir()
	for name, text := range clientScripts {
		p := filepath.Join(dir, name+".sql")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		scripts = append(scripts, p)
	}
	for _, script := range scripts {
		name := strings.TrimSuffix(filepath.Base(script), ".sql")
		if name == "udfs" {
			// `$$ … $$` function bodies are tablerun's extension: Flink's
			// client cannot split such a script into statements
			continue
		}
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cli := exec.CommandContext(ctx, filepath.Join(home, "bin", "sql-client.sh"), "gateway", "--endpoint", endpoint, "-f", script)
			cli.Dir = root
			cli.Env = append(os.Environ(), "FLINK_HOME="+home, "JVM_ARGS=-Xmx256m -XX:TieredStopAtLevel=1")
			raw, err := cli.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("sql-client.sh timed out:\n%s", raw)
			}
			local := exec.Command(bin, "-f", script, "-D", "sql-client.display.print-time-cost=false", "-D", "table.dml-sync=true")
			local.Dir = root
			want, _ := local.CombinedOutput()
			got := normalize(clientOutput(string(raw)))
			w, printed := tableauOutput(string(want))
			if w = normalize(w); got != w {
				t.Errorf("sql-client.sh (exit %v) printed\n%s\ntablerun -f printed\n%s\nraw client output:\n%s", err, got, w, raw)
			}
			for _, p := range printed {
				if !strings.Contains(gwOut.String(), p+"\n") {
					t.Errorf("the print connector's %q is not in the gateway's output:\n%s", p, gwOut.String())
				}
			}
		})
	}
}

// clientScripts cover what the examples do not: value types, SHOW, a
// changelog, DML, and statement errors (validation, parse).
var clientScripts = map[string]string{
	"client_types": `SET 'execution.runtime-mode' = 'batch';
CREATE TEMPORARY VIEW v AS SELECT * FROM (VALUES (1, 'one'), (2, CAST(NULL AS STRING))) AS t(x, y);
SELECT x, y, CAST(x AS DECIMAL(5, 2)) AS d, DATE '2020-01-02' AS dt, TIMESTAMP '2020-01-01 10:00:00.123' AS ts FROM v;
SHOW TABLES;
SET 'execution.runtime-mode' = 'streaming';
SELECT k, COUNT(*) AS n FROM (VALUES ('a'), ('a'), ('b')) AS t(k) GROUP BY k;
CREATE TEMPORARY TABLE bh (x INT) WITH ('connector' = 'blackhole');
INSERT INTO bh SELECT x FROM v;
SELECT ARRAY[1, 2] AS arr, MAP['k', 1] AS m, ROW(1, 'x') AS r, X'0102' AS b, TRUE AS t, 1.5e0 AS dbl;
`,
	"client_validation_error": `CREATE TEMPORARY VIEW v AS SELECT * FROM (VALUES (1)) AS t(x);
SELECT nope FROM v;
`,
	"client_parse_error": `SELECT 1;
SELECT FROM WHERE;
`,
}

// jdbcClasspath is Flink's JDBC driver bundle and the SLF4J API it needs
// (with the no-op binding), from the local Maven repository where .ci/run
// puts them.
func jdbcClasspath(t *testing.T) string {
	repo := os.Getenv("MAVEN_REPO")
	if repo == "" {
		home, _ := os.UserHomeDir()
		repo = filepath.Join(home, ".m2", "repository")
	}
	jars := []string{
		filepath.Join(repo, "org/apache/flink/flink-sql-jdbc-driver-bundle", FlinkVersion, "flink-sql-jdbc-driver-bundle-"+FlinkVersion+".jar"),
		filepath.Join(repo, "org/slf4j/slf4j-api/1.7.36/slf4j-api-1.7.36.jar"),
		filepath.Join(repo, "org/slf4j/slf4j-nop/1.7.36/slf4j-nop-1.7.36.jar"),
	}
	for _, j := range jars {
		if _, err := os.Stat(j); err != nil {
			needClient(t, "Flink's JDBC driver is not installed ("+j+" is missing; .ci/run fetches it with mvn dependency:get)")
		}
	}
	return strings.Join(jars, string(os.PathListSeparator))
}

// TestFlinkJDBCDriver queries `tablerun gateway` through Flink 2.3's JDBC
// driver (DriverManager.getConnection("jdbc:flink://host:port")) from a
// small Java program, testdata/Query.java, compiled with javac: result
// rows as the driver's Java objects, ResultSetMetaData (type names, JDBC
// type codes, nullability), DDL update counts, SET, SHOW and an error's
// root cause.
func TestFlinkJDBCDriver(t *testing.T) {
	for _, tool := range []string{"java", "javac"} {
		if _, err := exec.LookPath(tool); err != nil {
			needClient(t, tool+" is not installed")
		}
	}
	cp := jdbcClasspath(t)
	classes := t.TempDir()
	if out, err := exec.Command("javac", "-cp", cp, "-d", classes, filepath.Join("testdata", "Query.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	_, endpoint, _ := gatewayProcess(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "java", "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", cp+string(os.PathListSeparator)+classes, "Query", "jdbc:flink://"+endpoint,
		"SELECT 1 AS a, 'x' AS s, CAST(1.5 AS DECIMAL(10, 2)) AS d, DATE '2020-01-02' AS dt, TIMESTAMP '2020-01-01 10:00:00.123' AS ts, "+
			"CAST(NULL AS STRING) AS n, TRUE AS b, 2.5e0 AS dbl, CAST(7 AS BIGINT) AS bi",
		"SELECT nope",
		"CREATE TEMPORARY VIEW v AS SELECT * FROM (VALUES (1), (2), (2)) AS t(x)",
		"SELECT x, COUNT(*) AS c FROM v GROUP BY x",
		"SET 'execution.runtime-mode' = 'batch'",
		"SELECT x, COUNT(*) AS c FROM v GROUP BY x ORDER BY x",
		"SHOW TABLES")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("java Query: %v\n%s", err, out)
	}
	want := `product: Flink JDBC Driver 2.3.0
> SELECT 1 AS a, 'x' AS s, CAST(1.5 AS DECIMAL(10, 2)) AS d, DATE '2020-01-02' AS dt, TIMESTAMP '2020-01-01 10:00:00.123' AS ts, CAST(NULL AS STRING) AS n, TRUE AS b, 2.5e0 AS dbl, CAST(7 AS BIGINT) AS bi
columns: a INT NOT NULL/4 NOT NULL; s CHAR(1) NOT NULL/1 NOT NULL; d DECIMAL(10, 2) NOT NULL/3 NOT NULL; dt DATE NOT NULL/91 NOT NULL; ts TIMESTAMP(3) NOT NULL/93 NOT NULL; n STRING/12 NULL; b BOOLEAN NOT NULL/16 NOT NULL; dbl DOUBLE NOT NULL/8 NOT NULL; bi BIGINT NOT NULL/-5 NOT NULL;
row: 1(Integer); x(String); 1.50(BigDecimal); 2020-01-02(Date); 2020-01-01 10:00:00.123(Timestamp); NULL; true(Boolean); 2.5(Double); 7(Long);
> SELECT nope
error: org.apache.calcite.sql.validate.SqlValidatorException: Column 'nope' not found in any table
> CREATE TEMPORARY VIEW v AS SELECT * FROM (VALUES (1), (2), (2)) AS t(x)
update count: 0
> SELECT x, COUNT(*) AS c FROM v GROUP BY x
columns: x INT NOT NULL/4 NOT NULL; c BIGINT NOT NULL/-5 NOT NULL;
row: 1(Integer); 1(Long);
row: 2(Integer); 1(Long);
row: 2(Integer); 1(Long);
row: 2(Integer); 2(Long);
> SET 'execution.runtime-mode' = 'batch'
update count: 0
> SELECT x, COUNT(*) AS c FROM v GROUP BY x ORDER BY x
columns: x INT NOT NULL/4 NOT NULL; c BIGINT NOT NULL/-5 NOT NULL;
row: 1(Integer); 1(Long);
row: 2(Integer); 2(Long);
> SHOW TABLES
columns: table name STRING/12 NULL;
row: v(String);
`
	// the streaming GROUP BY is the changelog without its kinds (the
	// driver hands out every row of it, as on Flink)
	if got := string(out); got != want {
		t.Errorf("java Query printed\n%s\nwant\n%s", got, want)
	}
}
