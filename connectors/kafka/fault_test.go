package kafka_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	osexec "os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/tablerun/tablerun/internal/kafkaenv"
)

// The kill -9 test of the Kafka connectors (internal/faulttest's way): a
// tablerun process runs Kafka source → TUMBLE window aggregation →
// exactly-once Kafka sink, checkpointed every 100 ms, and is killed with
// SIGKILL at random moments, each time restarted from its latest
// checkpoint; a read_committed consumer of the output topic then sees
// exactly the rows of a crash-free run: nothing lost (the source's
// offsets and the windows' state are restored together), nothing
// duplicated (the transactions of uncompleted checkpoints are aborted,
// those of completed ones committed once).

const faultEvents = 120_000

func buildTablerun(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tablerun")
	out, err := osexec.Command("go", "build", "-o", bin, "github.com/tablerun/tablerun/cmd/tablerun").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// produceEvents writes the input: one partition, event times in order
// (1 ms apart), 40 keys.
func produceEvents(t *testing.T, c *kafkaenv.Cluster, topic string) {
	t.Helper()
	cl, err := c.Client(kgo.ProducerLinger(5*time.Millisecond), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var recs []*kgo.Record
	for i := 0; i < faultEvents; i++ {
		ts := base.Add(time.Duration(i) * time.Millisecond).Format("2006-01-02 15:04:05.000")
		v := fmt.Sprintf(`{"k":%d,"v":%d,"ts":"%s"}`, i%40, i, ts)
		recs = append(recs, &kgo.Record{Topic: topic, Partition: 0, Value: []byte(v)})
		if len(recs) == 5000 {
			require.NoError(t, cl.ProduceSync(ctx, recs...).FirstErr())
			recs = recs[:0]
		}
	}
	require.NoError(t, cl.ProduceSync(ctx, recs...).FirstErr())
}

func faultScript(c *kafkaenv.Cluster, in, out, chk, restore string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "SET 'execution.checkpointing.interval' = '100 ms';\n")
	fmt.Fprintf(&b, "SET 'execution.checkpointing.dir' = '%s';\n", chk)
	fmt.Fprintf(&b, "SET 'execution.checkpointing.num-retained' = '3';\n")
	if restore != "" {
		fmt.Fprintf(&b, "SET 'execution.savepoint.path' = '%s';\n", restore)
	}
	fmt.Fprintf(&b, `CREATE TABLE src (k INT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'format' = 'json',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'properties.isolation.level' = 'read_committed');
`, in, c.Bootstrap())
	fmt.Fprintf(&b, `CREATE TABLE snk (k INT, wstart TIMESTAMP(3), cnt BIGINT, total BIGINT) WITH (
  'connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s', 'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'tx-%s',
  'properties.transaction.timeout.ms' = '60000');
`, out, c.Bootstrap(), out)
	b.WriteString("INSERT INTO snk SELECT k, window_start, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end;\n")
	return b.String()
}

func startScript(t *testing.T, bin, script string) (*osexec.Cmd, *bytes.Buffer) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "job.sql")
	require.NoError(t, os.WriteFile(f, []byte(script), 0o644))
	cmd := osexec.Command(bin, "-f", f)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	require.NoError(t, cmd.Start())
	return cmd, &log
}

func completedCheckpoints(chk string) []string {
	ms, _ := filepath.Glob(filepath.Join(chk, "*", "chk-*", "_metadata"))
	return ms
}

func latestCheckpoint(chk string) int64 {
	var best int64
	for _, m := range completedCheckpoints(chk) {
		var id int64
		if _, err := fmt.Sscanf(filepath.Base(filepath.Dir(m)), "chk-%d", &id); err == nil && id > best {
			best = id
		}
	}
	return best
}

func TestKillNineExactlyOnceKafka(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test: kills and restarts a process many times")
	}
	c := kafkaenv.Require(t)
	bin := buildTablerun(t)
	in := newTopic(t, c, 1)
	produceEvents(t, c, in)

	dir := t.TempDir()
	ref := newTopic(t, c, 2)
	cmd, log := startScript(t, bin, faultScript(c, in, ref, filepath.Join(dir, "refrun"), ""))
	require.NoError(t, cmd.Wait(), "%s", log)
	perRun := latestCheckpoint(filepath.Join(dir, "refrun"))
	want := sorted(consume(t, c, ref, true))
	require.Len(t, want, 40*faultEvents/1000)

	kills := 20
	if v := os.Getenv("TABLERUN_KAFKA_KILLS"); v != "" {
		fmt.Sscan(v, &kills)
	}
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewPCG(uint64(seed), 17))
	t.Logf("seed %d, %d result rows, crash-free run: %d checkpoints", seed, len(want), perRun)
	total := 0
	for round := 0; total < kills; round++ {
		require.Less(t, round, 40)
		out := newTopic(t, c, 2)
		chk := filepath.Join(dir, fmt.Sprintf("round%d", round))
		restore := ""
		k := 0
		for run := 0; ; run++ {
			require.Less(t, run, 100, "the job makes no progress")
			cmd, log := startScript(t, bin, faultScript(c, in, out, chk, restore))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			killed := false
			if total+k < kills {
				target := latestCheckpoint(chk) + 1 + rng.Int64N(max(1, perRun*6/10))
				killed = waitAndKill(cmd, done, chk, target, rng)
			}
			if !killed {
				require.NoError(t, <-done, "job failed:\n%s", log)
				break
			}
			k++
			if len(completedCheckpoints(chk)) > 0 {
				restore = chk
			}
		}
		got := sorted(consume(t, c, out, true))
		require.Equal(t, want, got, "round %d: committed output after %d kills", round, k)
		t.Logf("round %d: %d kills, output identical", round, k)
		total += k
	}
}

// waitAndKill kills cmd with SIGKILL at a random moment after checkpoint
// target completed; false when the job ended first.
func waitAndKill(cmd *osexec.Cmd, done chan error, chk string, target int64, rng *rand.Rand) bool {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			done <- err
			return false
		case <-tick.C:
			if latestCheckpoint(chk) < target {
				continue
			}
			time.Sleep(time.Duration(rng.Int64N(int64(100 * time.Millisecond))))
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-done
			return true
		}
	}
}

var _ = sort.Strings
