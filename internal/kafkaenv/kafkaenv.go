// Package kafkaenv starts and stops real Apache Kafka brokers for the
// kafka and upsert-kafka connectors' tests: KRaft combined mode (each node
// is broker and controller), bound to 127.0.0.1 on ports chosen free per
// start, with formatted storage, configuration and log under one temporary
// directory, 512m heap.
//
// The broker is installed by install.sh beside this file (the kafka_2.13
// jar and its runtime dependencies from Maven Central, resolved by pom.xml
// with mvn dependency:copy-dependencies, into the cache folder); Libs finds
// it.
//
//	internal/kafkaenv/install.sh
//
// A test package starts one broker for its whole run (Main and Require);
// fault tests start their own (Start, StartCluster) and stop, kill and
// restart its nodes.
package kafkaenv

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Version is the Kafka release install.sh installs (pom.xml's kafka.version).
const Version = "4.4.0"

// ErrNotInstalled is returned by Libs when the broker is not installed.
var ErrNotInstalled = errors.New("kafkaenv: Apache Kafka " + Version + " is not installed (run internal/kafkaenv/install.sh, or set TABLERUN_KAFKA_LIBS)")

// Libs returns the folder of the broker's jars: $TABLERUN_KAFKA_LIBS when
// set, else ${TABLERUN_CACHE:-$HOME/.cache/tablerun}/kafka-<Version>/libs,
// the folder install.sh fills.
func Libs() (string, error) {
	dir := os.Getenv("TABLERUN_KAFKA_LIBS")
	if dir == "" {
		cache := os.Getenv("TABLERUN_CACHE")
		if cache == "" {
			h, err := os.UserHomeDir()
			if err != nil {
				return "", ErrNotInstalled
			}
			cache = filepath.Join(h, ".cache", "tablerun")
		}
		dir = filepath.Join(cache, "kafka-"+Version, "libs")
	}
	if _, err := os.Stat(filepath.Join(dir, "kafka_2.13-"+Version+".jar")); err != nil {
		return "", fmt.Errorf("%w: %s lacks kafka_2.13-%s.jar", ErrNotInstalled, dir, Version)
	}
	if _, err := exec.LookPath("java"); err != nil {
		return "", fmt.Errorf("kafkaenv: no java on PATH: %w", err)
	}
	return dir, nil
}

// Node is one KRaft combined broker and controller of a Cluster.
type Node struct {
	ID             int
	Port           int // the PLAINTEXT listener clients use
	ControllerPort int
	dir            string
	cmd            *exec.Cmd
	done           chan struct{}
	waitErr        error
}

// Addr is the node's bootstrap address.
func (n *Node) Addr() string { return fmt.Sprintf("127.0.0.1:%d", n.Port) }

// Running reports whether the node's process is alive.
func (n *Node) Running() bool {
	if n.cmd == nil {
		return false
	}
	select {
	case <-n.done:
		return false
	default:
		return true
	}
}

// Cluster is a set of nodes started together.
type Cluster struct {
	mu    sync.Mutex
	libs  string
	dir   string
	Nodes []*Node
}

// Bootstrap is the comma-separated bootstrap addresses of every node
// ('properties.bootstrap.servers').
func (c *Cluster) Bootstrap() string {
	var a []string
	for _, n := range c.Nodes {
		a = append(a, n.Addr())
	}
	return strings.Join(a, ",")
}

// StartCluster starts n nodes (1 or 3 in the tests) and waits until they
// form a cluster that serves metadata. Stop ends them and removes dir.
func StartCluster(ctx context.Context, n int) (*Cluster, error) {
	libs, err := Libs()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "tablerun-kafka-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{libs: libs, dir: dir}
	ports, err := freePorts(2 * n)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	var voters []string
	for i := 0; i < n; i++ {
		node := &Node{ID: i + 1, Port: ports[2*i], ControllerPort: ports[2*i+1], dir: filepath.Join(dir, fmt.Sprintf("node-%d", i+1))}
		c.Nodes = append(c.Nodes, node)
		voters = append(voters, fmt.Sprintf("%d@127.0.0.1:%d", node.ID, node.ControllerPort))
	}
	clusterID, err := newClusterID()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	rf := 1
	if n >= 3 {
		rf = 3
	}
	minISR := 1
	if n >= 3 {
		minISR = 2
	}
	for _, node := range c.Nodes {
		if err := os.MkdirAll(filepath.Join(node.dir, "data"), 0o755); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		props := strings.Join([]string{
			"process.roles=broker,controller",
			fmt.Sprintf("node.id=%d", node.ID),
			"controller.quorum.voters=" + strings.Join(voters, ","),
			fmt.Sprintf("listeners=PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d", node.Port, node.ControllerPort),
			fmt.Sprintf("advertised.listeners=PLAINTEXT://127.0.0.1:%d", node.Port),
			"controller.listener.names=CONTROLLER",
			"inter.broker.listener.name=PLAINTEXT",
			"listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
			"log.dirs=" + filepath.Join(node.dir, "data"),
			"num.partitions=1",
			"num.network.threads=2",
			"num.io.threads=2",
			"background.threads=2",
			"log.cleaner.enable=false",
			fmt.Sprintf("default.replication.factor=%d", rf),
			fmt.Sprintf("offsets.topic.replication.factor=%d", rf),
			"offsets.topic.num.partitions=4",
			fmt.Sprintf("transaction.state.log.replication.factor=%d", rf),
			fmt.Sprintf("transaction.state.log.min.isr=%d", minISR),
			"transaction.state.log.num.partitions=4",
			fmt.Sprintf("min.insync.replicas=%d", minISR),
			"group.initial.rebalance.delay.ms=0",
			"share.coordinator.state.topic.replication.factor=" + fmt.Sprint(rf),
			"share.coordinator.state.topic.min.isr=" + fmt.Sprint(minISR),
			"auto.create.topics.enable=true",
			"",
		}, "\n")
		if err := os.WriteFile(node.props(), []byte(props), 0o644); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		out, err := exec.CommandContext(ctx, "java", c.jvmArgs(node, "256m", "kafka.tools.StorageTool", "format", "-t", clusterID, "-c", node.props(), "--ignore-formatted")...).CombinedOutput()
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("kafkaenv: formatting node %d: %v\n%s", node.ID, err, out)
		}
	}
	for _, node := range c.Nodes {
		if err := c.launch(node); err != nil {
			c.Stop()
			return nil, err
		}
	}
	if err := c.WaitReady(ctx, 90*time.Second); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

func (n *Node) props() string { return filepath.Join(n.dir, "server.properties") }

// Log returns the tail of the node's log (for failure messages).
func (n *Node) Log() string {
	b, _ := os.ReadFile(filepath.Join(n.dir, "server.log"))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

func (c *Cluster) jvmArgs(n *Node, heap, main string, args ...string) []string {
	a := []string{
		"-Xmx" + heap, "-Xms" + heap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-Xshare:auto", "-Djava.awt.headless=true",
		"-Dlog4j2.level=WARN", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
		"-cp", filepath.Join(c.libs, "*"), main,
	}
	return append(a, args...)
}

// launch starts a node's JVM (its storage is formatted already).
func (c *Cluster) launch(n *Node) error {
	log, err := os.OpenFile(filepath.Join(n.dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command("java", c.jvmArgs(n, "512m", "kafka.Kafka", n.props())...)
	cmd.Stdout, cmd.Stderr = log, log
	// its own process group, so that a stop reaches only this JVM
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("kafkaenv: starting node %d: %w", n.ID, err)
	}
	n.cmd = cmd
	n.done = make(chan struct{})
	go func(done chan struct{}) {
		n.waitErr = cmd.Wait()
		log.Close()
		close(done)
	}(n.done)
	return nil
}

// WaitReady waits until every running node answers metadata requests and
// the cluster has as many brokers as running nodes.
func (c *Cluster) WaitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		running := 0
		for _, n := range c.Nodes {
			if n.cmd != nil && !n.Running() {
				return fmt.Errorf("kafkaenv: node %d exited: %v\n%s", n.ID, n.waitErr, n.Log())
			}
			if n.Running() {
				running++
			}
		}
		last = c.probe(ctx, running)
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
	var logs string
	for _, n := range c.Nodes {
		logs += fmt.Sprintf("--- node %d\n%s\n", n.ID, n.Log())
	}
	return fmt.Errorf("kafkaenv: cluster not ready after %s: %v\n%s", timeout, last, logs)
}

func (c *Cluster) probe(ctx context.Context, want int) error {
	var seeds []string
	for _, n := range c.Nodes {
		if n.Running() {
			seeds = append(seeds, n.Addr())
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.RequestRetries(0))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	adm := kadm.NewClient(cl)
	bm, err := adm.BrokerMetadata(ctx)
	if err != nil {
		return err
	}
	if len(bm.Brokers) < want {
		return fmt.Errorf("%d of %d brokers registered", len(bm.Brokers), want)
	}
	return nil
}

// StopNode ends node i (0-based) gracefully (SIGTERM, then SIGKILL after
// 20 s) and waits for it.
func (c *Cluster) StopNode(i int) error { return c.signal(c.Nodes[i], syscall.SIGTERM, 20*time.Second) }

// KillNode ends node i with SIGKILL and waits for it.
func (c *Cluster) KillNode(i int) error { return c.signal(c.Nodes[i], syscall.SIGKILL, 0) }

func (c *Cluster) signal(n *Node, sig syscall.Signal, grace time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !n.Running() {
		return nil
	}
	_ = syscall.Kill(-n.cmd.Process.Pid, sig)
	if grace > 0 {
		select {
		case <-n.done:
			return nil
		case <-time.After(grace):
		}
		_ = syscall.Kill(-n.cmd.Process.Pid, syscall.SIGKILL)
	}
	<-n.done
	return nil
}

// RestartNode starts node i again on its ports and storage (after
// StopNode or KillNode) and waits until the cluster is ready.
func (c *Cluster) RestartNode(ctx context.Context, i int) error {
	n := c.Nodes[i]
	if n.Running() {
		return fmt.Errorf("kafkaenv: node %d is running", n.ID)
	}
	if err := c.launch(n); err != nil {
		return err
	}
	return c.WaitReady(ctx, 90*time.Second)
}

// Stop ends every node and removes the cluster's directory.
func (c *Cluster) Stop() error {
	var wg sync.WaitGroup
	for i := range c.Nodes {
		wg.Add(1)
		go func(i int) { defer wg.Done(); _ = c.StopNode(i) }(i)
	}
	wg.Wait()
	if os.Getenv("TABLERUN_KAFKA_KEEP") == "" {
		return os.RemoveAll(c.dir)
	}
	return nil
}

// Client returns a franz-go client of the cluster with opts added.
func (c *Cluster) Client(opts ...kgo.Opt) (*kgo.Client, error) {
	return kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(strings.Split(c.Bootstrap(), ",")...)}, opts...)...)
}

// CreateTopic creates a topic with the given partitions and the cluster's
// replication (1, or 3 for three nodes).
func (c *Cluster) CreateTopic(ctx context.Context, topic string, partitions int) error {
	cl, err := c.Client()
	if err != nil {
		return err
	}
	defer cl.Close()
	rf := int16(1)
	if len(c.Nodes) >= 3 {
		rf = 3
	}
	res, err := kadm.NewClient(cl).CreateTopic(ctx, int32(partitions), rf, nil, topic)
	if err != nil {
		return err
	}
	return res.Err
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

func newClusterID() (string, error) {
	for {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		// an id starting with '-' (1 in 64) reads as an option to
		// kafka-storage's argument parser: "--cluster-id: expected one
		// argument" (seen in CI)
		if id := base64.RawURLEncoding.EncodeToString(b[:]); id[0] != '-' {
			return id, nil
		}
	}
}
