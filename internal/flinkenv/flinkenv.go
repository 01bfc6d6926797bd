// Package flinkenv starts and stops a real Apache Flink 2.3 next to
// tablerun: a standalone session cluster (one JobManager, one TaskManager
// with two slots) and the SQL Gateway with its REST endpoint, all bound to
// 127.0.0.1 on ports chosen free per start, with their own configuration,
// log and pid directories under one temporary directory.
//
// Flink itself is installed by install.sh beside this file (the PyPI
// distribution apache-flink==2.3.0 in a virtualenv plus the
// flink-sql-gateway jar from Maven Central in pyflink/opt); Home finds it.
//
//	FLINK_HOME=$(internal/flinkenv/install.sh)
//
// A test package starts one cluster for its whole run (TestMain) rather than
// one per test: a start costs about ten seconds and 3 GiB of memory.
package flinkenv

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Version is the Flink release the package installs and expects.
const Version = "2.3.0"

// ErrNotInstalled is returned by Home when no Flink installation is found.
var ErrNotInstalled = errors.New("flinkenv: Apache Flink " + Version + " is not installed (run internal/flinkenv/install.sh, or set TABLERUN_FLINK_HOME)")

// Home returns the FLINK_HOME of the installation: $TABLERUN_FLINK_HOME when
// set, else the pyflink directory of the virtualenv install.sh creates under
// ${TABLERUN_CACHE:-$HOME/.cache/tablerun}. It checks that the directory
// holds the start scripts, flink-dist and the SQL Gateway jar.
func Home() (string, error) {
	home := os.Getenv("TABLERUN_FLINK_HOME")
	if home == "" {
		cache := os.Getenv("TABLERUN_CACHE")
		if cache == "" {
			h, err := os.UserHomeDir()
			if err != nil {
				return "", ErrNotInstalled
			}
			cache = filepath.Join(h, ".cache", "tablerun")
		}
		m, _ := filepath.Glob(filepath.Join(cache, "flink-"+Version, "lib", "python3*", "site-packages", "pyflink"))
		if len(m) == 0 {
			return "", ErrNotInstalled
		}
		home = m[0]
	}
	for _, f := range []string{
		"bin/jobmanager.sh", "bin/taskmanager.sh", "bin/sql-gateway.sh", "conf/config.yaml",
		"lib/flink-dist-" + Version + ".jar", "opt/flink-sql-gateway-" + Version + ".jar",
	} {
		if _, err := os.Stat(filepath.Join(home, f)); err != nil {
			return "", fmt.Errorf("%w: %s lacks %s", ErrNotInstalled, home, f)
		}
	}
	return home, nil
}

// Options size the cluster. Zero values take the defaults in brackets.
type Options struct {
	JobManagerMemory  string // jobmanager.memory.process.size [1024m]
	TaskManagerMemory string // taskmanager.memory.process.size [1536m]
	Slots             int    // taskmanager.numberOfTaskSlots [2]
	GatewayHeap       string // -Xmx of the SQL Gateway's JVM [768m]
	// Dir is where the configuration, logs and pids go [a new temporary
	// directory, removed by Stop unless KeepDir].
	Dir     string
	KeepDir bool
	// Timeout bounds the wait for the gateway and the TaskManager [120s].
	Timeout time.Duration
	// Extra holds further configuration keys (flat form, e.g.
	// "table.exec.resource.default-parallelism").
	Extra map[string]string
}

// Cluster is a running Flink session cluster with its SQL Gateway.
type Cluster struct {
	Home    string
	Dir     string // holds conf/, log/, pid/
	ConfDir string
	LogDir  string
	// RESTURL is the JobManager's REST endpoint, GatewayURL the SQL
	// Gateway's (both "http://127.0.0.1:port", no trailing slash).
	RESTURL    string
	GatewayURL string

	started []string // scripts started, to stop in reverse order
	opts    Options
}

// Start writes a configuration, starts the JobManager, the TaskManager and
// the SQL Gateway, and waits until the gateway answers /v1/info and the
// TaskManager's slots are registered. On any error it stops whatever it
// started and returns the error with the tail of the logs.
func Start(ctx context.Context, opts Options) (c *Cluster, err error) {
	home, err := Home()
	if err != nil {
		return nil, err
	}
	if opts.JobManagerMemory == "" {
		opts.JobManagerMemory = "1024m"
	}
	if opts.TaskManagerMemory == "" {
		opts.TaskManagerMemory = "1536m"
	}
	if opts.Slots == 0 {
		opts.Slots = 2
	}
	if opts.GatewayHeap == "" {
		opts.GatewayHeap = "768m"
	}
	if opts.Timeout == 0 {
		opts.Timeout = 120 * time.Second
	}
	dir := opts.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "tablerun-flink-"); err != nil {
			return nil, err
		}
	}
	c = &Cluster{Home: home, Dir: dir, ConfDir: filepath.Join(dir, "conf"), LogDir: filepath.Join(dir, "log"), opts: opts}
	defer func() {
		if err != nil {
			logs := c.LogTail(40)
			_ = c.Stop()
			err = fmt.Errorf("%w\n%s", err, logs)
			c = nil
		}
	}()
	for _, d := range []string{c.ConfDir, c.LogDir, filepath.Join(dir, "pid"), filepath.Join(dir, "tmp")} {
		if err = os.MkdirAll(d, 0o755); err != nil {
			return c, err
		}
	}
	ports, err := freePorts(3)
	if err != nil {
		return c, err
	}
	c.RESTURL = fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	c.GatewayURL = fmt.Sprintf("http://127.0.0.1:%d", ports[2])
	if err = c.writeConf(ports); err != nil {
		return c, err
	}
	for _, script := range []string{"jobmanager.sh", "taskmanager.sh", "sql-gateway.sh"} {
		args := []string{"start"}
		if script == "sql-gateway.sh" {
			args = append(args, "-Dsql-gateway.endpoint.rest.address=127.0.0.1")
		}
		if err = c.script(ctx, script, args...); err != nil {
			return c, err
		}
		c.started = append(c.started, script)
	}
	deadline, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	if err = waitFor(deadline, c.GatewayURL+"/v1/info", func(b []byte) bool { return strings.Contains(string(b), "version") }); err != nil {
		return c, fmt.Errorf("flinkenv: SQL Gateway did not come up: %w", err)
	}
	if err = waitFor(deadline, c.RESTURL+"/overview", func(b []byte) bool {
		var o struct {
			Slots int `json:"slots-available"`
		}
		return json.Unmarshal(b, &o) == nil && o.Slots >= opts.Slots
	}); err != nil {
		return c, fmt.Errorf("flinkenv: TaskManager did not register its slots: %w", err)
	}
	return c, nil
}

// writeConf writes conf/ from the distribution's: config.yaml keeps the
// distribution's env.java.opts.all (the module openings Java 17 needs) and
// sets everything else; the log4j and logback files are copied.
func (c *Cluster) writeConf(ports []int) error {
	src := filepath.Join(c.Home, "conf")
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Name() == "config.yaml" || e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(c.ConfDir, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	javaOpts, err := javaOptsAll(filepath.Join(src, "config.yaml"))
	if err != nil {
		return err
	}
	kv := map[string]string{
		"jobmanager.bind-host":                   "127.0.0.1",
		"jobmanager.rpc.address":                 "127.0.0.1",
		"jobmanager.rpc.port":                    fmt.Sprint(ports[0]),
		"jobmanager.memory.process.size":         c.opts.JobManagerMemory,
		"jobmanager.execution.failover-strategy": "region",
		"taskmanager.bind-host":                  "127.0.0.1",
		"taskmanager.host":                       "127.0.0.1",
		"taskmanager.rpc.port":                   "0",
		"taskmanager.data.port":                  "0",
		"taskmanager.numberOfTaskSlots":          fmt.Sprint(c.opts.Slots),
		"taskmanager.memory.process.size":        c.opts.TaskManagerMemory,
		// batch jobs' sort-merge shuffle asks 512 buffers per result
		// partition by default, more than a 1536m TaskManager has for two
		// slots' concurrent partitions
		"taskmanager.network.sort-shuffle.min-buffers": "64",
		"taskmanager.memory.network.fraction":          "0.15",
		"blob.server.port":                             "0",
		"metrics.internal.query-service.port":          "0",
		"rest.address":                                 "127.0.0.1",
		"rest.bind-address":                            "127.0.0.1",
		"rest.port":                                    fmt.Sprint(ports[1]),
		"sql-gateway.endpoint.type":                    "rest",
		"sql-gateway.endpoint.rest.address":            "127.0.0.1",
		"sql-gateway.endpoint.rest.bind-address":       "127.0.0.1",
		"sql-gateway.endpoint.rest.port":               fmt.Sprint(ports[2]),
		"parallelism.default":                          "1",
		"restart-strategy.type":                        "none",
		"io.tmp.dirs":                                  filepath.Join(c.Dir, "tmp"),
		"web.tmpdir":                                   filepath.Join(c.Dir, "tmp"),
	}
	// Python UDFs run in the virtualenv's Python, which has apache-flink
	// (pyflink's site-packages directory is Home: <venv>/lib/python3.*/site-packages/pyflink)
	if py := filepath.Join(c.Home, "..", "..", "..", "..", "bin", "python"); fileExists(py) {
		py = filepath.Clean(py)
		kv["python.executable"] = py
		kv["python.client.executable"] = py
	}
	for k, v := range c.opts.Extra {
		kv[k] = v
	}
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("# Written by tablerun's internal/flinkenv.\n")
	// env.* stays nested as in the distribution's file; the rest is flat.
	fmt.Fprintf(&b, "env:\n  java:\n    opts:\n      all: %s\n      sql-gateway: -Xmx%s\n", javaOpts, c.opts.GatewayHeap)
	fmt.Fprintf(&b, "  log:\n    dir: %s\n  pid:\n    dir: %s\n", c.LogDir, filepath.Join(c.Dir, "pid"))
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s\n", k, kv[k])
	}
	return os.WriteFile(filepath.Join(c.ConfDir, "config.yaml"), []byte(b.String()), 0o644)
}

// javaOptsAll reads env.java.opts.all from the distribution's nested
// config.yaml (the line "all: …" under env: java: opts:).
func javaOptsAll(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var stack []string // keys by indentation level
	var indents []int
	for sc.Scan() {
		line := sc.Text()
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		ind := len(line) - len(strings.TrimLeft(line, " "))
		for len(indents) > 0 && indents[len(indents)-1] >= ind {
			indents, stack = indents[:len(indents)-1], stack[:len(stack)-1]
		}
		k, v, ok := strings.Cut(t, ":")
		if !ok {
			continue
		}
		indents, stack = append(indents, ind), append(stack, strings.TrimSpace(k))
		if strings.Join(stack, ".") == "env.java.opts.all" {
			return strings.TrimSpace(v), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("flinkenv: %s has no env.java.opts.all", path)
}

func (c *Cluster) script(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.Home, "bin", name), args...)
	cmd.Env = append(os.Environ(),
		"FLINK_HOME="+c.Home,
		"FLINK_CONF_DIR="+c.ConfDir,
		"FLINK_LOG_DIR="+c.LogDir,
		"FLINK_PID_DIR="+filepath.Join(c.Dir, "pid"),
		"FLINK_IDENT_STRING=tablerun",
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("flinkenv: %s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// Stop stops the gateway, the TaskManager and the JobManager (by the pid
// files in the cluster's own directory) and removes the directory unless
// Options.KeepDir. It is safe to call more than once.
func (c *Cluster) Stop() error {
	if c == nil {
		return nil
	}
	var errs []error
	for i := len(c.started) - 1; i >= 0; i-- {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		errs = append(errs, c.script(ctx, c.started[i], "stop"))
		cancel()
	}
	c.started = nil
	if !c.opts.KeepDir && c.opts.Dir == "" && c.Dir != "" {
		// the daemons' stop returns before the JVMs are gone; give them a
		// moment so their last log lines do not recreate the directory.
		time.Sleep(500 * time.Millisecond)
		errs = append(errs, os.RemoveAll(c.Dir))
		c.Dir = ""
	}
	return errors.Join(errs...)
}

// LogTail returns the last n lines of each log file, for error messages.
func (c *Cluster) LogTail(n int) string {
	if c == nil || c.LogDir == "" {
		return ""
	}
	files, _ := filepath.Glob(filepath.Join(c.LogDir, "*"))
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || len(data) == 0 {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) > n {
			lines = lines[len(lines)-n:]
		}
		fmt.Fprintf(&b, "--- %s (last %d lines)\n%s\n", filepath.Base(f), len(lines), strings.Join(lines, "\n"))
	}
	return b.String()
}

func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func waitFor(ctx context.Context, url string, ok func([]byte) bool) error {
	var last error
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && ok(b) {
				return nil
			}
			last = fmt.Errorf("%s: %s: %s", url, resp.Status, b)
		} else {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%v (last: %v)", ctx.Err(), last)
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// TaskManagerPID returns the process id of the cluster's TaskManager (from
// the pid file its start script wrote), e.g. to pin it to cores or to read
// its CPU time.
func (c *Cluster) TaskManagerPID() (int, error) {
	f := filepath.Join(c.Dir, "pid", "flink-tablerun-taskexecutor.pid")
	b, err := os.ReadFile(f)
	if err != nil {
		return 0, fmt.Errorf("flinkenv: the TaskManager's pid: %w", err)
	}
	var pid int
	if _, err := fmt.Sscanf(strings.TrimSpace(string(b)), "%d", &pid); err != nil || pid <= 0 {
		return 0, fmt.Errorf("flinkenv: %s holds no pid", f)
	}
	return pid, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
