package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Mini-batch and aggregation-phase options (streaming mode).
const (
	// KeyMiniBatchEnabled is table.exec.mini-batch.enabled: buffer input
	// rows into bundles so that stateful aggregates update each key once
	// per bundle and emit one net change per key.
	KeyMiniBatchEnabled = "table.exec.mini-batch.enabled"
	// KeyMiniBatchLatency is table.exec.mini-batch.allow-latency: the
	// longest a bundle is held (processing time); must be > 0 when
	// mini-batch is on.
	KeyMiniBatchLatency = "table.exec.mini-batch.allow-latency"
	// KeyMiniBatchSize is table.exec.mini-batch.size: the most rows a
	// bundle buffers; must be > 0 when mini-batch is on.
	KeyMiniBatchSize = "table.exec.mini-batch.size"
	// KeyAggPhaseStrategy is table.optimizer.agg-phase-strategy: AUTO,
	// ONE_PHASE or TWO_PHASE. In streaming mode two-phase (local/global)
	// aggregation needs mini-batch.
	KeyAggPhaseStrategy = "table.optimizer.agg-phase-strategy"
	// KeyDistinctAggSplit is table.optimizer.distinct-agg.split.enabled:
	// split streaming DISTINCT aggregates into two levels over a bucket of
	// the distinct key (Flink's SplitAggregateRule).
	KeyDistinctAggSplit = "table.optimizer.distinct-agg.split.enabled"
	// KeyDistinctAggSplitBuckets is
	// table.optimizer.distinct-agg.split.bucket-num: the number of buckets
	// the distinct key is split into.
	KeyDistinctAggSplitBuckets = "table.optimizer.distinct-agg.split.bucket-num"
)

// AggPhaseStrategy is the value of table.optimizer.agg-phase-strategy.
type AggPhaseStrategy string

// The aggregation phase strategies.
const (
	AggPhaseAuto     AggPhaseStrategy = "AUTO"
	AggPhaseOne      AggPhaseStrategy = "ONE_PHASE"
	AggPhaseTwo      AggPhaseStrategy = "TWO_PHASE"
	aggPhaseEnumName                  = "org.apache.flink.table.api.config.OptimizerConfigOptions$AggregatePhaseStrategy"
)

// ParseDuration parses a duration as Flink's configuration does (TimeUtils):
// a number and an optional unit ("0", "10 s", "1h", "500 ms", "2 min",
// "1 d"); a bare number is milliseconds.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	bad := fmt.Errorf("Could not parse value '%s' for key", s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, bad
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, bad
	}
	var mul time.Duration
	switch strings.ToLower(strings.TrimFunc(t[i:], unicode.IsSpace)) {
	case "", "ms", "milli", "millis", "millisecond", "milliseconds":
		mul = time.Millisecond
	case "ns", "nano", "nanos", "nanosecond", "nanoseconds":
		mul = time.Nanosecond
	case "us", "µs", "micro", "micros", "microsecond", "microseconds":
		mul = time.Microsecond
	case "s", "sec", "secs", "second", "seconds":
		mul = time.Second
	case "m", "min", "mins", "minute", "minutes":
		mul = time.Minute
	case "h", "hour", "hours":
		mul = time.Hour
	case "d", "day", "days":
		mul = 24 * time.Hour
	default:
		return 0, bad
	}
	return time.Duration(n) * mul, nil
}

func durationCheck(key, v string) (string, error) {
	if _, err := ParseDuration(v); err != nil {
		return "", &ValueError{Key: key, Class: illegalArg, Msg: fmt.Sprintf("Could not parse value '%s' for key '%s'.", v, key)}
	}
	return v, nil
}

func longCheck(key, v string) (string, error) {
	if _, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err != nil {
		return "", &ValueError{Key: key, Class: illegalArg, Msg: fmt.Sprintf("Could not parse value '%s' for key '%s'.", v, key)}
	}
	return v, nil
}

// MiniBatch is the mini-batch configuration of a streaming job.
type MiniBatch struct {
	// Enabled is table.exec.mini-batch.enabled.
	Enabled bool
	// Latency is table.exec.mini-batch.allow-latency.
	Latency time.Duration
	// Size is table.exec.mini-batch.size.
	Size int64
}

// MiniBatch returns the mini-batch options, validated as Flink validates
// them when a streaming job is planned: with mini-batch on, the latency
// must be > 0 ms and the size > 0 (Flink's IllegalArgumentException texts).
func (c *Config) MiniBatch() (MiniBatch, error) {
	m := MiniBatch{Enabled: c.boolean(KeyMiniBatchEnabled)}
	if d, err := ParseDuration(c.str(KeyMiniBatchLatency)); err == nil {
		m.Latency = d
	}
	m.Size = -1
	if n, err := strconv.ParseInt(strings.TrimSpace(c.str(KeyMiniBatchSize)), 10, 64); err == nil {
		m.Size = n
	}
	if !m.Enabled {
		return m, nil
	}
	if m.Latency.Milliseconds() <= 0 {
		return m, &ValueError{Key: KeyMiniBatchLatency, Class: illegalArg, Msg: "MiniBatch Latency must be greater than 0 ms."}
	}
	if m.Size <= 0 {
		return m, &ValueError{Key: KeyMiniBatchSize, Class: illegalArg, Msg: fmt.Sprintf(
			"Key: '%s' , default: -1 (fallback keys: []) must be > 0.", KeyMiniBatchSize)}
	}
	return m, nil
}

// AggPhaseStrategy returns table.optimizer.agg-phase-strategy (upper case).
func (c *Config) AggPhaseStrategy() AggPhaseStrategy {
	return AggPhaseStrategy(strings.ToUpper(strings.TrimSpace(c.str(KeyAggPhaseStrategy))))
}

// DistinctAggSplit returns table.optimizer.distinct-agg.split.enabled.
func (c *Config) DistinctAggSplit() bool { return c.boolean(KeyDistinctAggSplit) }

// DistinctAggSplitBuckets returns
// table.optimizer.distinct-agg.split.bucket-num.
func (c *Config) DistinctAggSplitBuckets() int {
	n, err := strconv.Atoi(strings.TrimSpace(c.str(KeyDistinctAggSplitBuckets)))
	if err != nil || n <= 0 {
		return 1024
	}
	return n
}
