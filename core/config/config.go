// Package config holds the session options of a TableEnvironment under
// Flink's configuration keys, with their defaults and validation.
//
// A Config stores only the options that were explicitly set (that is what
// Flink's `SET;` lists); every other known key reads as its default. Values
// of known keys are validated by Set: a bad value is an error and leaves the
// configuration unchanged. Unknown keys are stored as given.
//
// tablerun adds one key of its own, KeyDisabledRules
// ('table.optimizer.disabled-rules'): a comma-separated list of optimizer
// rule names to switch off (see planner/rules.Names), or '*' / 'all' for
// every rule. The SQL logic test runner uses it to run each query with all
// rules on and with all rules off.
package config

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Keys of the options tablerun understands.
const (
	KeyRuntimeMode    = "execution.runtime-mode"
	KeyLocalTimeZone  = "table.local-time-zone"
	KeyMaxColumnWidth = "table.display.max-column-width"
	KeyDMLSync        = "table.dml-sync"
	KeyResultMode     = "sql-client.execution.result-mode"
	KeyVerbose        = "sql-client.verbose"
	KeyPrintTimeCost  = "sql-client.display.print-time-cost"
	// KeyMaxTableResultRows caps the rows a live materialized view (the
	// shell's table mode, the kernel) keeps: past it the oldest rows are
	// dropped, as Flink's table mode does.
	KeyMaxTableResultRows = "sql-client.execution.max-table-result.rows"
	KeyPipelineName       = "pipeline.name"
	KeyDefaultParallelism = "table.exec.resource.default-parallelism"
	KeySQLDialect         = "table.sql-dialect"
	KeyBuiltinCatalog     = "table.builtin-catalog-name"
	KeyBuiltinDatabase    = "table.builtin-database-name"
	// KeySinkNotNullEnforcer is what a NULL written into a NOT NULL sink
	// column does: ERROR (fail the job) or DROP (drop the row silently).
	KeySinkNotNullEnforcer = "table.exec.sink.not-null-enforcer"
	// KeyDisabledRules is tablerun's own key: a comma-separated list of
	// optimizer rule names that must not run ('*' or 'all' disables all).
	KeyDisabledRules = "table.optimizer.disabled-rules"
	// KeyJoinReorder is Flink's table.optimizer.join-reorder-enabled
	// (default false): order inner joins by estimated cardinality.
	KeyJoinReorder = "table.optimizer.join-reorder-enabled"
	// KeyBatchSize is tablerun's own key: the number of rows per Arrow
	// record batch produced by sources (default 4096). The SQL logic test
	// runner sets it to 1 to check batch boundaries.
	KeyBatchSize = "tablerun.exec.batch-size"
	// KeyUDFTimeout is tablerun's own key: the time limit of one call into
	// a Python or JavaScript function ('0' for none), for the functions
	// compiled after it is set.
	KeyUDFTimeout = "tablerun.udf.timeout"
	// KeyUDFMemoryLimit is tablerun's own key: the memory one call into a
	// Python or JavaScript function may take ('0' for no limit), for the
	// functions compiled after it is set.
	KeyUDFMemoryLimit = "tablerun.udf.memory-limit"
)

// RuntimeMode is the value of execution.runtime-mode.
type RuntimeMode string

// The runtime modes.
const (
	Streaming RuntimeMode = "STREAMING"
	Batch     RuntimeMode = "BATCH"
	Automatic RuntimeMode = "AUTOMATIC"
)

// ResultMode is the value of sql-client.execution.result-mode.
type ResultMode string

// The SQL client result modes.
const (
	ResultTable     ResultMode = "TABLE"
	ResultChangelog ResultMode = "CHANGELOG"
	ResultTableau   ResultMode = "TABLEAU"
)

// ValueError reports an option value that cannot be parsed. JavaClass names
// the exception Flink raises for the same mistake, so the SQL client can
// print it the way Flink does.
type ValueError struct {
	Key   string
	Class string
	Msg   string
}

// Error returns the message.
func (e *ValueError) Error() string { return e.Msg }

// JavaClass returns the Java exception class Flink reports for this error.
func (e *ValueError) JavaClass() string { return e.Class }

// option describes one known key.
type option struct {
	def string
	// check validates a value and returns its normalised form.
	check func(key, v string) (string, error)
}

const (
	illegalArg   = "java.lang.IllegalArgumentException"
	numberFormat = "java.lang.NumberFormatException"
	validation   = "org.apache.flink.table.api.ValidationException"
)

func enumCheck(class string, values ...string) func(string, string) (string, error) {
	return func(key, v string) (string, error) {
		for _, x := range values {
			if strings.EqualFold(x, strings.TrimSpace(v)) {
				return v, nil
			}
		}
		return "", &ValueError{Key: key, Class: illegalArg, Msg: fmt.Sprintf(
			"Could not parse value for enum class %s. Expected one of: [[%s]]", class, strings.Join(values, ", "))}
	}
}

func boolCheck(key, v string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "false":
		return v, nil
	}
	return "", &ValueError{Key: key, Class: illegalArg, Msg: fmt.Sprintf(
		"Unrecognized option for boolean: %s. Expected either true or false(case insensitive)", v)}
}

func intCheck(key, v string) (string, error) {
	if _, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32); err != nil {
		return "", &ValueError{Key: key, Class: numberFormat, Msg: fmt.Sprintf("For input string: \"%s\"", v)}
	}
	return v, nil
}

func anyString(_, v string) (string, error) { return v, nil }

func positiveIntCheck(key, v string) (string, error) {
	if _, err := intCheck(key, v); err != nil {
		return "", err
	}
	if n, _ := strconv.Atoi(strings.TrimSpace(v)); n <= 0 {
		return "", &ValueError{Key: key, Class: illegalArg, Msg: fmt.Sprintf("%s must be positive, got %s", key, v)}
	}
	return v, nil
}

func dialectCheck(key, v string) (string, error) {
	switch strings.ToUpper(v) {
	case "DEFAULT", "HIVE":
		return v, nil
	}
	return "", &ValueError{Key: key, Class: illegalArg, Msg: "No enum constant org.apache.flink.table.api.SqlDialect." + strings.ToUpper(v)}
}

func zoneCheck(key, v string) (string, error) {
	if _, err := parseZone(v); err != nil {
		return "", &ValueError{Key: key, Class: validation, Msg: err.Error()}
	}
	return v, nil
}

// options are the known keys. It is built on first use, not at init.
func options() map[string]option {
	return map[string]option{
		KeyRuntimeMode:        {"STREAMING", enumCheck("org.apache.flink.api.common.RuntimeExecutionMode", "STREAMING", "BATCH", "AUTOMATIC")},
		KeyLocalTimeZone:      {"default", zoneCheck},
		KeyMaxColumnWidth:     {"30", intCheck},
		KeyDMLSync:            {"false", boolCheck},
		KeyResultMode:         {"TABLE", enumCheck("org.apache.flink.table.client.config.ResultMode", "TABLE", "CHANGELOG", "TABLEAU")},
		KeyVerbose:            {"false", boolCheck},
		KeyPrintTimeCost:      {"true", boolCheck},
		KeyMaxTableResultRows: {"1000000", positiveIntCheck},
		KeyPipelineName:       {"", anyString},
		KeyDefaultParallelism: {"-1", intCheck},
		KeySQLDialect:         {"default", dialectCheck},
		KeyBuiltinCatalog:     {"default_catalog", anyString},
		KeyBuiltinDatabase:    {"default_database", anyString},
		KeyDisabledRules:      {"", anyString},
		KeyJoinReorder:        {"false", boolCheck},
		KeyBatchSize:          {"4096", positiveIntCheck},
		KeyUDFTimeout:         {"5 s", durationCheck},
		KeyUDFMemoryLimit:     {"256 mb", memorySizeCheck},
		KeySpillMemoryBudget:  {"0", memorySizeCheck},
		KeyTmpDirs:            {"", anyString},
		KeySpillCompression:   {"true", boolCheck},
		KeyMiniBatchEnabled:   {"false", boolCheck},
		KeyMiniBatchLatency:   {"0 ms", durationCheck},
		KeyMiniBatchSize:      {"-1", longCheck},
		KeyAggPhaseStrategy:   {"AUTO", enumCheck(aggPhaseEnumName, "AUTO", "TWO_PHASE", "ONE_PHASE")},
		KeyDistinctAggSplit:   {"false", boolCheck},

		KeyDistinctAggSplitBuckets: {"1024", positiveIntCheck},
		KeySinkNotNullEnforcer:     {"ERROR", enumCheck("org.apache.flink.table.api.config.ExecutionConfigOptions$NotNullEnforcer", "ERROR", "DROP")},
	}
}

// Config is a session configuration. The zero value is not usable; call New.
// A Config is not safe for concurrent mutation.
type Config struct {
	// mu guards the maps: a session's configuration is read by running
	// jobs and by Config().Effective() while SET changes it.
	mu sync.RWMutex
	// initial holds the values the session started with (RESET restores them).
	initial map[string]string
	// set holds the explicitly present options.
	set map[string]string
	// src and initialSrc record where each option of set and initial came
	// from (see Effective).
	src        map[string]Source
	initialSrc map[string]Source
}

// New returns a configuration whose explicitly present options are
// initial (validated; an invalid initial value is an error). RESET returns
// to these values.
func New(initial map[string]string) (*Config, error) {
	return NewWithFile(nil, initial)
}

// Clone returns an independent copy of c.
func (c *Config) Clone() *Config {
	c.mu.RLock()
	defer c.mu.RUnlock()
	n := newEmpty()
	for k, v := range c.initial {
		n.initial[k] = v
	}
	for k, v := range c.set {
		n.set[k] = v
	}
	for k, v := range c.src {
		n.src[k] = v
	}
	for k, v := range c.initialSrc {
		n.initialSrc[k] = v
	}
	return n
}

// Validate checks value for key without storing it.
func Validate(key, value string) error {
	if o, ok := checkpointOptions()[key]; ok { // checkpoint.go
		_, err := o.check(key, value)
		return err
	}
	if o, ok := sourceOptions()[key]; ok { // source.go
		_, err := o.check(key, value)
		return err
	}
	if o, ok := options()[key]; ok {
		_, err := o.check(key, value)
		return err
	}
	return nil
}

// Set stores key = value after validating it. On error c is unchanged.
func (c *Config) Set(key, value string) error {
	if err := Validate(key, value); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set[key] = value
	c.src[key] = SourceSet
	return nil
}

// Reset restores key to the value the session started with (removing it
// when it was not set initially).
func (c *Config) Reset(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.initial[key]; ok {
		c.set[key] = v
		c.src[key] = c.initialSrc[key]
		return
	}
	delete(c.set, key)
	delete(c.src, key)
}

// Unset removes key, so that its default applies (a remote session's copy
// of what the cluster's session holds; see core/remote.go).
func (c *Config) Unset(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.set, key)
	delete(c.src, key)
}

// ResetAll restores every option to the session's initial values.
func (c *Config) ResetAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set = map[string]string{}
	c.src = map[string]Source{}
	for k, v := range c.initial {
		c.set[k] = v
		c.src[k] = c.initialSrc[k]
	}
}

// Get returns the explicit value of key or, for a known key, its default.
// ok is false for an unknown key that was never set.
func (c *Config) Get(key string) (value string, ok bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.get(key)
}

// get is Get with c.mu held.
func (c *Config) get(key string) (value string, ok bool) {
	if v, ok := c.set[key]; ok {
		return v, true
	}
	if o, ok := options()[key]; ok {
		return o.def, true
	}
	if o, ok := checkpointOptions()[key]; ok {
		return o.def, true
	}
	if o, ok := sourceOptions()[key]; ok { // source.go
		return o.def, true
	}
	return "", false
}

// IsSet reports whether key is explicitly present.
func (c *Config) IsSet(key string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	_, ok := c.set[key]
	return ok
}

// Entry is one explicitly set option.
type Entry struct {
	Key   string
	Value string
}

// Explicit returns the explicitly present options sorted by key (the rows
// of `SET;`).
func (c *Config) Explicit() []Entry {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]Entry, 0, len(c.set))
	for k, v := range c.set {
		out = append(out, Entry{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

func (c *Config) str(key string) string {
	v, _ := c.Get(key)
	return v
}

func (c *Config) boolean(key string) bool {
	return strings.EqualFold(strings.TrimSpace(c.str(key)), "true")
}

func (c *Config) integer(key string) int {
	n, err := strconv.Atoi(strings.TrimSpace(c.str(key)))
	if err != nil {
		n, _ = strconv.Atoi(options()[key].def)
	}
	return n
}

// RuntimeMode returns execution.runtime-mode (upper case).
func (c *Config) RuntimeMode() RuntimeMode {
	return RuntimeMode(strings.ToUpper(strings.TrimSpace(c.str(KeyRuntimeMode))))
}

// LocalTimeZone returns the location of table.local-time-zone ('default' is
// the system zone).
func (c *Config) LocalTimeZone() *time.Location {
	loc, err := parseZone(c.str(KeyLocalTimeZone))
	if err != nil {
		return time.Local
	}
	return loc
}

// MaxColumnWidth returns table.display.max-column-width.
func (c *Config) MaxColumnWidth() int { return c.integer(KeyMaxColumnWidth) }

// DMLSync returns table.dml-sync.
func (c *Config) DMLSync() bool { return c.boolean(KeyDMLSync) }

// ResultMode returns sql-client.execution.result-mode (upper case).
func (c *Config) ResultMode() ResultMode {
	return ResultMode(strings.ToUpper(strings.TrimSpace(c.str(KeyResultMode))))
}

// Verbose returns sql-client.verbose.
func (c *Config) Verbose() bool { return c.boolean(KeyVerbose) }

// MaxTableResultRows returns sql-client.execution.max-table-result.rows.
func (c *Config) MaxTableResultRows() int { return c.integer(KeyMaxTableResultRows) }

// PrintTimeCost returns sql-client.display.print-time-cost.
func (c *Config) PrintTimeCost() bool { return c.boolean(KeyPrintTimeCost) }

// PipelineName returns pipeline.name ("" when unset).
func (c *Config) PipelineName() string { return c.str(KeyPipelineName) }

// DefaultParallelism returns table.exec.resource.default-parallelism (-1 =
// the environment's).
func (c *Config) DefaultParallelism() int { return c.integer(KeyDefaultParallelism) }

// SQLDialect returns table.sql-dialect in lower case.
func (c *Config) SQLDialect() string { return strings.ToLower(c.str(KeySQLDialect)) }

// BuiltinCatalog returns table.builtin-catalog-name.
func (c *Config) BuiltinCatalog() string { return c.str(KeyBuiltinCatalog) }

// BuiltinDatabase returns table.builtin-database-name.
func (c *Config) BuiltinDatabase() string { return c.str(KeyBuiltinDatabase) }

// JoinReorderEnabled is table.optimizer.join-reorder-enabled.
func (c *Config) JoinReorderEnabled() bool { return c.boolean(KeyJoinReorder) }

// DisabledRules returns the rule names of table.optimizer.disabled-rules
// (trimmed, empty entries dropped). A single "*" or "all" means every rule;
// see AllRulesDisabled.
func (c *Config) DisabledRules() []string {
	var out []string
	for _, p := range strings.Split(c.str(KeyDisabledRules), ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// AllRulesDisabled reports whether table.optimizer.disabled-rules is '*' or
// 'all'.
func (c *Config) AllRulesDisabled() bool {
	r := c.DisabledRules()
	return len(r) == 1 && (r[0] == "*" || strings.EqualFold(r[0], "all"))
}

// UDFMemoryLimit returns tablerun.udf.memory-limit in bytes; -1 for none
// (the option's '0').
func (c *Config) UDFMemoryLimit() int64 {
	n, err := ParseMemorySize(c.str(KeyUDFMemoryLimit))
	switch {
	case err != nil:
		return 256 << 20
	case n <= 0:
		return -1
	}
	return n
}

// UDFTimeout returns tablerun.udf.timeout; a negative duration for none
// (the option's '0').
func (c *Config) UDFTimeout() time.Duration {
	d, err := ParseDuration(c.str(KeyUDFTimeout))
	if err != nil || d <= 0 {
		if err == nil {
			return -1
		}
		return 5 * time.Second
	}
	return d
}

// BatchSize returns tablerun.exec.batch-size.
func (c *Config) BatchSize() int { return c.integer(KeyBatchSize) }

// parseZone parses a Flink zone id: 'default' (system zone), a region id such
// as 'Asia/Shanghai', 'UTC'/'Z', or an offset id 'GMT+08:00' / 'UTC-8' / '+08:00'.
func parseZone(v string) (*time.Location, error) {
	s := strings.TrimSpace(v)
	bad := fmt.Errorf("The supported Zone ID is either a full name such as 'America/Los_Angeles', or a custom timezone id such as 'GMT-08:00', but configured Zone ID is '%s'.", v)
	switch {
	case strings.EqualFold(s, "default"):
		return time.Local, nil
	case s == "UTC" || s == "Z" || s == "GMT" || s == "UT":
		return time.UTC, nil
	}
	for _, prefix := range []string{"GMT", "UTC", "UT", ""} {
		if strings.HasPrefix(s, prefix) && len(s) > len(prefix) && (s[len(prefix)] == '+' || s[len(prefix)] == '-') {
			if prefix == "UTC" || prefix == "UT" {
				// Flink (java.time.ZoneId) accepts UTC+8 but rejects it in
				// table.local-time-zone: only GMT offsets are allowed.
				return nil, bad
			}
			off, ok := parseOffset(s[len(prefix):])
			if !ok {
				return nil, bad
			}
			return time.FixedZone(s, off), nil
		}
	}
	if !strings.Contains(s, "/") {
		return nil, bad
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, bad
	}
	return loc, nil
}

// parseOffset parses +h, +hh, +hh:mm, +hhmm, +hh:mm:ss into seconds.
func parseOffset(s string) (int, bool) {
	sign := 1
	if s[0] == '-' {
		sign = -1
	}
	s = s[1:]
	var h, m, sec int
	var err error
	parts := strings.Split(s, ":")
	switch {
	case len(parts) == 1 && len(s) <= 2:
		h, err = strconv.Atoi(s)
	case len(parts) == 1 && len(s) == 4:
		h, err = strconv.Atoi(s[:2])
		if err == nil {
			m, err = strconv.Atoi(s[2:])
		}
	case len(parts) == 2 || len(parts) == 3:
		h, err = strconv.Atoi(parts[0])
		if err == nil {
			m, err = strconv.Atoi(parts[1])
		}
		if err == nil && len(parts) == 3 {
			sec, err = strconv.Atoi(parts[2])
		}
	default:
		return 0, false
	}
	if err != nil || h > 18 || m > 59 || sec > 59 {
		return 0, false
	}
	return sign * (h*3600 + m*60 + sec), true
}
