// Package kafka is the 'kafka' and 'upsert-kafka' table connectors: a
// source reading the partitions of one or more topics (split across the
// parallel instances, offsets in checkpoints) and a sink writing records
// with no guarantee, at least once (flushed on every checkpoint barrier)
// or exactly once (a Kafka transaction per checkpoint, committed when the
// checkpoint completes). Records are read and written with
// github.com/twmb/franz-go; rows are turned into message keys and values
// by the key and value formats.
package kafka

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/config"
	"github.com/tablerun/tablerun/core/types"
)

// Option keys (Flink's KafkaConnectorOptions).
const (
	KeyTopic                = "topic"
	KeyTopicPattern         = "topic-pattern"
	KeyBootstrapServers     = "properties.bootstrap.servers"
	KeyGroupID              = "properties.group.id"
	KeyFormat               = "format"
	KeyKeyFormat            = "key.format"
	KeyKeyFields            = "key.fields"
	KeyKeyFieldsPrefix      = "key.fields-prefix"
	KeyValueFormat          = "value.format"
	KeyValueFieldsInclude   = "value.fields-include"
	KeyStartupMode          = "scan.startup.mode"
	KeyStartupSpecific      = "scan.startup.specific-offsets"
	KeyStartupTimestamp     = "scan.startup.timestamp-millis"
	KeyBoundedMode          = "scan.bounded.mode"
	KeyBoundedSpecific      = "scan.bounded.specific-offsets"
	KeyBoundedTimestamp     = "scan.bounded.timestamp-millis"
	KeyDiscoveryInterval    = "scan.topic-partition-discovery.interval"
	KeyScanParallelism      = "scan.parallelism"
	KeyWatermarkIdleTimeout = "scan.watermark.idle-timeout"
	KeySinkPartitioner      = "sink.partitioner"
	KeySinkParallelism      = "sink.parallelism"
	KeyDeliveryGuarantee    = "sink.delivery-guarantee"
	KeySinkSemantic         = "sink.semantic"
	KeyTransactionalPrefix  = "sink.transactional-id-prefix"
	KeyBufferFlushMaxRows   = "sink.buffer-flush.max-rows"
	KeyBufferFlushInterval  = "sink.buffer-flush.interval"
	keyKeyConnectJSONSchema = "record.key.include-kafka-connect-json-schema"
	keyValConnectJSONSchema = "record.value.include-kafka-connect-json-schema"
)

// Startup and bounded modes (scan.startup.mode, scan.bounded.mode).
const (
	ModeEarliest  = "earliest-offset"
	ModeLatest    = "latest-offset"
	ModeGroup     = "group-offsets"
	ModeTimestamp = "timestamp"
	ModeSpecific  = "specific-offsets"
	ModeUnbounded = "unbounded"
)

// Delivery guarantees (sink.delivery-guarantee).
const (
	GuaranteeNone        = "none"
	GuaranteeAtLeastOnce = "at-least-once"
	GuaranteeExactlyOnce = "exactly-once"
)

// RequiredOptions are the keys a kafka table must have.
func RequiredOptions() []string { return []string{KeyBootstrapServers} }

// OptionalOptions are the kafka connector's own optional keys (the
// format keys and properties.* come on top, see SupportedOptions).
func OptionalOptions() []string {
	return []string{
		KeyFormat, KeyKeyFormat, KeyKeyFields, KeyKeyFieldsPrefix, KeyValueFormat, KeyValueFieldsInclude,
		KeyTopic, KeyTopicPattern, KeyGroupID, KeyStartupMode, KeyStartupSpecific, KeyDiscoveryInterval,
		KeyStartupTimestamp, KeySinkPartitioner, KeySinkParallelism, KeyDeliveryGuarantee,
		KeyTransactionalPrefix, KeySinkSemantic, KeyBoundedMode, KeyBoundedSpecific, KeyBoundedTimestamp,
		keyKeyConnectJSONSchema, keyValConnectJSONSchema, KeyScanParallelism, KeyWatermarkIdleTimeout,
	}
}

// UpsertRequiredOptions are the keys an upsert-kafka table must have.
func UpsertRequiredOptions() []string {
	return []string{KeyBootstrapServers, KeyTopic, KeyKeyFormat, KeyValueFormat}
}

// UpsertOptionalOptions are upsert-kafka's own optional keys.
func UpsertOptionalOptions() []string {
	return []string{
		KeyKeyFieldsPrefix, KeyValueFieldsInclude, KeySinkParallelism, KeyBufferFlushMaxRows,
		KeyBufferFlushInterval, KeyDeliveryGuarantee, KeyTransactionalPrefix, KeyScanParallelism,
		KeyGroupID, KeyWatermarkIdleTimeout,
	}
}

// SupportedOptions lists every key valid for a table with these options:
// the connector's own keys, every properties.* key present (passed to the
// Kafka client) and the keys of the chosen key and value formats.
func SupportedOptions(opts map[string]string, upsert bool) []string {
	out := append(RequiredOptions(), OptionalOptions()...)
	if upsert {
		out = append(UpsertRequiredOptions(), UpsertOptionalOptions()...)
	}
	for k := range opts {
		if strings.HasPrefix(k, "properties.") {
			out = append(out, k)
		}
	}
	out = append(out, formatOptionKeys(opts, KeyKeyFormat)...)
	if _, ok := opts[KeyFormat]; ok && !upsert {
		out = append(out, formatOptionKeys(opts, KeyFormat)...)
	} else {
		out = append(out, formatOptionKeys(opts, KeyValueFormat)...)
	}
	return out
}

// TopicPartition names one partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

func (tp TopicPartition) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

// Config is a kafka or upsert-kafka table's options, checked.
type Config struct {
	Table   string // the table's summary name, for messages
	Upsert  bool
	Brokers []string
	GroupID string
	Topics  []string
	Pattern *regexp.Regexp

	StartupMode      string
	StartupTimestamp int64
	StartupOffsets   map[int32]int64
	BoundedMode      string
	BoundedTimestamp int64
	BoundedOffsets   map[int32]int64
	Discovery        time.Duration // 0: off
	// WatermarkIdle is scan.watermark.idle-timeout (WatermarkIdleSet: the
	// table has it; otherwise table.exec.source.idle-timeout applies).
	WatermarkIdle    time.Duration
	WatermarkIdleSet bool

	Partitioner       string // default, fixed, round-robin
	Guarantee         string
	TransactionalID   string
	BufferFlushRows   int
	BufferFlushPeriod time.Duration

	// Key and Value are the physical columns of the key and value formats
	// (indexes into the physical schema); KeyPrefix is stripped from the
	// key fields' names in the key format.
	Key, Value    []int
	KeyPrefix     string
	KeyFormat     *Format // nil without a key format
	ValueFormat   *Format
	Properties    map[string]string // properties.* without the prefix
	ReadCommitted bool
	// CommitOnCheckpoint: the source commits the offsets of every
	// completed checkpoint to the group (properties.group.id and
	// properties.commit.offsets.on.checkpoint, true by default).
	CommitOnCheckpoint bool
	// commitWithoutGroup: commits were asked for without a group id
	// (the source fails, as Flink's KafkaSource builder).
	commitWithoutGroup bool
	RequestTimeout     time.Duration
	TxnTimeout         time.Duration
}

// Bounded reports a source that stops (scan.bounded.mode other than
// unbounded).
func (c *Config) Bounded() bool { return c.BoundedMode != ModeUnbounded }

// ParseConfig reads and checks a kafka (or upsert-kafka) table's options
// as Flink's factories do.
func ParseConfig(t *catalog.ResolvedTable, upsert bool) (*Config, error) {
	opts := t.Table.Options
	physical := t.PhysicalSchema()
	c := &Config{Table: t.ID.Summary(), Upsert: upsert, Properties: map[string]string{}}
	for k, v := range opts {
		if strings.HasPrefix(k, "properties.") {
			c.Properties[strings.TrimPrefix(k, "properties.")] = v
		}
	}
	for _, b := range strings.Split(opts[KeyBootstrapServers], ",") {
		if b = strings.TrimSpace(b); b != "" {
			c.Brokers = append(c.Brokers, b)
		}
	}
	c.GroupID = opts[KeyGroupID]
	topic, hasTopic := opts[KeyTopic]
	pattern, hasPattern := opts[KeyTopicPattern]
	if hasTopic && hasPattern {
		return nil, fmt.Errorf("Option 'topic' and 'topic-pattern' shouldn't be set together.")
	}
	if !hasTopic && !hasPattern {
		return nil, fmt.Errorf("Either 'topic' or 'topic-pattern' must be set.")
	}
	if hasTopic {
		for _, s := range strings.Split(topic, ";") {
			if s = strings.TrimSpace(s); s != "" {
				c.Topics = append(c.Topics, s)
			}
		}
	} else {
		re, err := regexp.Compile("^(?:" + pattern + ")$")
		if err != nil {
			return nil, fmt.Errorf("Invalid 'topic-pattern' '%s': %v", pattern, err)
		}
		c.Pattern = re
	}
	var err error
	if err := c.parseScan(opts); err != nil {
		return nil, err
	}
	if err := c.parseSink(opts); err != nil {
		return nil, err
	}
	if err := c.parseFields(t, opts, physical); err != nil {
		return nil, err
	}
	c.ReadCommitted = strings.EqualFold(c.Properties["isolation.level"], "read_committed")
	if v, ok := c.Properties["isolation.level"]; ok && !c.ReadCommitted && !strings.EqualFold(v, "read_uncommitted") {
		return nil, fmt.Errorf("Invalid value %s for configuration isolation.level: String must be one of: read_committed, read_uncommitted", v)
	}
	c.RequestTimeout = 30 * time.Second
	for _, k := range []string{"default.api.timeout.ms", "request.timeout.ms"} {
		if v, ok := c.Properties[k]; ok {
			ms, perr := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if perr != nil || ms <= 0 {
				return nil, fmt.Errorf("Invalid value %s for configuration %s: Not a number of type INT", v, k)
			}
			c.RequestTimeout = time.Duration(ms) * time.Millisecond
			break
		}
	}
	c.TxnTimeout = 15 * time.Minute
	if v, ok := c.Properties["transaction.timeout.ms"]; ok {
		ms, perr := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if perr != nil || ms <= 0 {
			return nil, fmt.Errorf("Invalid value %s for configuration transaction.timeout.ms: Not a number of type INT", v)
		}
		c.TxnTimeout = time.Duration(ms) * time.Millisecond
	}
	if err = checkProperties(c.Properties); err != nil {
		return nil, err
	}
	if err = c.parseCommit(); err != nil {
		return nil, err
	}
	return c, nil
}

// parseCommit reads commit.offsets.on.checkpoint as Flink's KafkaSource
// builder does: on by default with a group id; without one it is off, and
// asking for it (or for enable.auto.commit) fails the source.
func (c *Config) parseCommit() error {
	commit, err := config.BoolOption(c.Properties, "commit.offsets.on.checkpoint", true)
	if err != nil {
		return err
	}
	auto, err := config.BoolOption(c.Properties, "enable.auto.commit", false)
	if err != nil {
		return err
	}
	if c.GroupID == "" {
		_, explicit := c.Properties["commit.offsets.on.checkpoint"]
		c.commitWithoutGroup = (explicit && commit) || auto
		return nil
	}
	c.CommitOnCheckpoint = commit
	return nil
}

func (c *Config) parseScan(opts map[string]string) error {
	c.StartupMode = ModeGroup
	if upsertDefault := c.Upsert; upsertDefault {
		c.StartupMode = ModeEarliest // upsert-kafka always reads from the earliest offset
	}
	if v, ok := opts[KeyStartupMode]; ok {
		switch v {
		case ModeEarliest, ModeLatest, ModeGroup, ModeTimestamp, ModeSpecific:
			c.StartupMode = v
		default:
			return fmt.Errorf("Could not parse value '%s' for key '%s'.", v, KeyStartupMode)
		}
	}
	switch c.StartupMode {
	case ModeTimestamp:
		v, ok := opts[KeyStartupTimestamp]
		if !ok {
			return fmt.Errorf("'%s' is required in '%s' startup mode but missing.", KeyStartupTimestamp, ModeTimestamp)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return fmt.Errorf("Could not parse value '%s' for key '%s'.", v, KeyStartupTimestamp)
		}
		c.StartupTimestamp = n
	case ModeSpecific:
		v, ok := opts[KeyStartupSpecific]
		if !ok {
			return fmt.Errorf("'%s' is required in '%s' startup mode but missing.", KeyStartupSpecific, ModeSpecific)
		}
		if len(c.Topics) != 1 {
			return fmt.Errorf("Currently Kafka source only supports specific offset for single topic.")
		}
		m, err := parseSpecificOffsets(v, KeyStartupSpecific)
		if err != nil {
			return err
		}
		c.StartupOffsets = m
	}
	c.BoundedMode = ModeUnbounded
	if v, ok := opts[KeyBoundedMode]; ok {
		switch v {
		case ModeUnbounded, ModeLatest, ModeGroup, ModeTimestamp, ModeSpecific:
			c.BoundedMode = v
		default:
			return fmt.Errorf("Could not parse value '%s' for key '%s'.", v, KeyBoundedMode)
		}
	}
	switch c.BoundedMode {
	case ModeTimestamp:
		v, ok := opts[KeyBoundedTimestamp]
		if !ok {
			return fmt.Errorf("'%s' is required in '%s' bounded mode but missing.", KeyBoundedTimestamp, ModeTimestamp)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return fmt.Errorf("Could not parse value '%s' for key '%s'.", v, KeyBoundedTimestamp)
		}
		c.BoundedTimestamp = n
	case ModeSpecific:
		v, ok := opts[KeyBoundedSpecific]
		if !ok {
			return fmt.Errorf("'%s' is required in '%s' bounded mode but missing.", KeyBoundedSpecific, ModeSpecific)
		}
		if len(c.Topics) != 1 {
			return fmt.Errorf("Currently Kafka source only supports specific offset for single topic.")
		}
		m, err := parseSpecificOffsets(v, KeyBoundedSpecific)
		if err != nil {
			return err
		}
		c.BoundedOffsets = m
	}
	c.Discovery = 5 * time.Minute
	if v, ok := opts[KeyDiscoveryInterval]; ok {
		d, err := config.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("Could not parse value '%s' for key '%s'.", v, KeyDiscoveryInterval)
		}
		c.Discovery = d
	}
	if v, ok := opts[KeyWatermarkIdleTimeout]; ok {
		d, err := config.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("Could not parse value '%s' for key '%s'.", v, KeyWatermarkIdleTimeout)
		}
		c.WatermarkIdle, c.WatermarkIdleSet = d, true
	}
	return nil
}

func (c *Config) parseSink(opts map[string]string) error {
	c.Partitioner = "default"
	if v, ok := opts[KeySinkPartitioner]; ok {
		switch v {
		case "default", "fixed", "round-robin":
			c.Partitioner = v
		case "":
			return fmt.Errorf("Option '%s' should be a non-empty string.", KeySinkPartitioner)
		default:
			return fmt.Errorf("not supported yet: custom sink partitioner class '%s' (use 'default', 'fixed' or 'round-robin')", v)
		}
		if v == "round-robin" {
			if _, ok := opts[KeyKeyFields]; ok {
				return fmt.Errorf("Currently 'round-robin' partitioner only works when option 'key.fields' is not specified.")
			}
		}
	}
	c.Guarantee = GuaranteeAtLeastOnce
	if v, ok := opts[KeySinkSemantic]; ok {
		c.Guarantee = strings.ReplaceAll(strings.ToLower(v), "_", "-")
	}
	if v, ok := opts[KeyDeliveryGuarantee]; ok {
		c.Guarantee = strings.ToLower(v)
	}
	switch c.Guarantee {
	case GuaranteeNone, GuaranteeAtLeastOnce, GuaranteeExactlyOnce:
	default:
		return fmt.Errorf("Could not parse value '%s' for key '%s'.", opts[KeyDeliveryGuarantee], KeyDeliveryGuarantee)
	}
	c.TransactionalID = opts[KeyTransactionalPrefix]
	if c.Guarantee == GuaranteeExactlyOnce && strings.TrimSpace(c.TransactionalID) == "" {
		return fmt.Errorf("sink.transactional-id-prefix must be specified when using DeliveryGuarantee.EXACTLY_ONCE.")
	}
	if c.Upsert {
		rows, err := optInt(opts, KeyBufferFlushMaxRows, 0)
		if err != nil {
			return err
		}
		c.BufferFlushRows = rows
		if v, ok := opts[KeyBufferFlushInterval]; ok {
			d, err := config.ParseDuration(v)
			if err != nil || d < 0 {
				return fmt.Errorf("Could not parse value '%s' for key '%s'.", v, KeyBufferFlushInterval)
			}
			c.BufferFlushPeriod = d
		}
		if (c.BufferFlushRows > 0) != (c.BufferFlushPeriod > 0) {
			return fmt.Errorf("'%s' and '%s' must be set to be greater than zero together to enable sink buffer flushing.", KeyBufferFlushMaxRows, KeyBufferFlushInterval)
		}
	}
	return nil
}

func optInt(opts map[string]string, key string, def int) (int, error) {
	v, ok := opts[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return 0, fmt.Errorf("Could not parse value '%s' for key '%s'.", v, key)
	}
	return n, nil
}

// parseFields works out the key and value columns and the formats.
func (c *Config) parseFields(t *catalog.ResolvedTable, opts map[string]string, physical types.Schema) error {
	c.KeyPrefix = opts[KeyKeyFieldsPrefix]
	keyFormat, hasKeyFormat := opts[KeyKeyFormat]
	if c.Upsert {
		hasKeyFormat = true
	}
	keyFields, hasKeyFields := opts[KeyKeyFields]
	var keyNames []string
	if c.Upsert {
		if t.Table.PrimaryKey == nil || len(t.Table.PrimaryKey.Columns) == 0 {
			return fmt.Errorf("'upsert-kafka' tables require to define a PRIMARY KEY constraint. The PRIMARY KEY specifies which columns should be read from or write to the Kafka message key. The PRIMARY KEY also defines records in the 'upsert-kafka' table should update or delete on which keys.")
		}
		keyNames = t.Table.PrimaryKey.Columns
	} else {
		if !hasKeyFormat && hasKeyFields {
			return fmt.Errorf("The option '%s' can only be declared if a key format is defined using '%s'.", KeyKeyFields, KeyKeyFormat)
		}
		if hasKeyFormat && strings.TrimSpace(keyFields) == "" {
			return fmt.Errorf("A key format '%s' requires the declaration of one or more of key fields using '%s'.", KeyKeyFormat, KeyKeyFields)
		}
		if hasKeyFormat {
			for _, k := range strings.Split(keyFields, ";") {
				keyNames = append(keyNames, strings.TrimSpace(k))
			}
		}
	}
	var names []string
	for _, f := range physical {
		names = append(names, f.Name)
	}
	for _, k := range keyNames {
		pos := -1
		for i, n := range names {
			if n == k {
				pos = i
			}
		}
		if pos < 0 {
			return fmt.Errorf("Could not find the field '%s' in the table schema for usage in the key format. A key field must be a regular, physical column. The following columns can be selected in the '%s' option:\n[%s]", k, KeyKeyFields, strings.Join(names, ", "))
		}
		if !strings.HasPrefix(k, c.KeyPrefix) {
			return fmt.Errorf("All fields in '%s' must be prefixed with '%s' when option '%s' is set but field '%s' is not prefixed.", KeyKeyFields, c.KeyPrefix, KeyKeyFieldsPrefix, k)
		}
		c.Key = append(c.Key, pos)
	}
	include := "ALL"
	if v, ok := opts[KeyValueFieldsInclude]; ok {
		include = strings.ToUpper(v)
	}
	switch include {
	case "ALL":
		if c.KeyPrefix != "" {
			return fmt.Errorf("A key prefix is not allowed when option '%s' is set to 'ALL'. Set it to 'EXCEPT_KEY' instead to avoid field overlaps.", KeyValueFieldsInclude)
		}
		for i := range physical {
			c.Value = append(c.Value, i)
		}
	case "EXCEPT_KEY":
		for i := range physical {
			isKey := false
			for _, k := range c.Key {
				isKey = isKey || k == i
			}
			if !isKey {
				c.Value = append(c.Value, i)
			}
		}
	default:
		return fmt.Errorf("Could not parse value '%s' for key '%s'.", opts[KeyValueFieldsInclude], KeyValueFieldsInclude)
	}
	// formats
	valueKey := KeyValueFormat
	if _, ok := opts[KeyFormat]; ok && !c.Upsert {
		valueKey = KeyFormat
	}
	var err error
	if hasKeyFormat {
		var fields types.Schema
		for _, k := range c.Key {
			f := physical[k]
			f.Name = strings.TrimPrefix(f.Name, c.KeyPrefix)
			fields = append(fields, f)
		}
		if c.KeyFormat, err = openFormat(opts, KeyKeyFormat, fields); err != nil {
			return err
		}
		if m := c.KeyFormat.Format.DecodeMode(); !m.IsInsertOnly() {
			if c.Upsert {
				return fmt.Errorf("'upsert-kafka' connector doesn't support '%s' as key format, because '%s' is not in insert-only mode.", keyFormat, keyFormat)
			}
			return fmt.Errorf("A key format should only deal with INSERT-only records. But %s has a changelog mode of %s.", keyFormat, m)
		}
	}
	var fields types.Schema
	for _, v := range c.Value {
		fields = append(fields, physical[v])
	}
	if c.ValueFormat, err = openFormat(opts, valueKey, fields); err != nil {
		return err
	}
	valueFormat := c.ValueFormat.Name
	if c.Upsert && !c.ValueFormat.Format.DecodeMode().IsInsertOnly() {
		return fmt.Errorf("'upsert-kafka' connector doesn't support '%s' as value format, because '%s' is not in insert-only mode.", valueFormat, valueFormat)
	}
	if !c.Upsert && t.Table.PrimaryKey != nil && len(t.Table.PrimaryKey.Columns) > 0 {
		if c.ValueFormat.Format.DecodeMode().IsInsertOnly() {
			return fmt.Errorf("The Kafka table '%s' with '%s' format doesn't support defining PRIMARY KEY constraint on the table, because it can't guarantee the semantic of primary key.", c.Table, valueFormat)
		}
	}
	return nil
}

// parseSpecificOffsets reads 'partition:0,offset:42;partition:1,offset:300'.
func parseSpecificOffsets(s, key string) (map[int32]int64, error) {
	bad := fmt.Errorf("Invalid properties '%s' should follow the format 'partition:0,offset:42;partition:1,offset:300', but is '%s'.", key, s)
	out := map[int32]int64{}
	for _, pair := range strings.Split(s, ";") {
		kv := strings.Split(pair, ",")
		if len(kv) != 2 || !strings.HasPrefix(kv[0], "partition:") || !strings.HasPrefix(kv[1], "offset:") {
			return nil, bad
		}
		p, err1 := strconv.ParseInt(strings.TrimPrefix(kv[0], "partition:"), 10, 32)
		o, err2 := strconv.ParseInt(strings.TrimPrefix(kv[1], "offset:"), 10, 64)
		if err1 != nil || err2 != nil {
			return nil, bad
		}
		out[int32(p)] = o
	}
	return out, nil
}

// knownProperties are the Kafka client properties the connector maps onto
// its client or that do not change what it reads and writes; others fail
// (not supported yet) rather than being ignored silently.
var knownProperties = map[string]bool{
	"bootstrap.servers": true, "group.id": true, "isolation.level": true, "client.id": true,
	"auto.offset.reset": true, "request.timeout.ms": true, "default.api.timeout.ms": true,
	"transaction.timeout.ms": true, "session.timeout.ms": true, "heartbeat.interval.ms": true,
	"enable.auto.commit": true, "auto.commit.interval.ms": true, "max.poll.records": true,
	"fetch.max.bytes": true, "max.partition.fetch.bytes": true, "fetch.min.bytes": true, "fetch.max.wait.ms": true,
	"acks": true, "linger.ms": true, "batch.size": true, "compression.type": true,
	"max.request.size": true, "retries": true, "delivery.timeout.ms": true, "enable.idempotence": true,
	"security.protocol": true, "partition.discovery.interval.ms": true, "commit.offsets.on.checkpoint": true,
	"client.id.prefix": true, "max.in.flight.requests.per.connection": true,
}

func checkProperties(props map[string]string) error {
	var bad []string
	for k := range props {
		if !knownProperties[k] {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("not supported yet: Kafka client properties %s (tablerun maps a subset of the Kafka client's properties onto its Go client)", "'properties."+strings.Join(bad, "', 'properties.")+"'")
	}
	if v, ok := props["security.protocol"]; ok && !strings.EqualFold(v, "PLAINTEXT") {
		return fmt.Errorf("not supported yet: 'properties.security.protocol' = '%s' (only PLAINTEXT)", v)
	}
	if v, ok := props["auto.offset.reset"]; ok {
		switch strings.ToLower(v) {
		case "earliest", "latest", "none":
		default:
			return fmt.Errorf("Invalid value %s for configuration auto.offset.reset: Invalid value `%s` for configuration auto.offset.reset. The value must be either 'earliest', 'latest', 'none' or of the format 'by_duration:<PnDTnHnMn.nS.>'.", v, v)
		}
	}
	return nil
}

// javaHash is Java's String.hashCode.
func javaHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 { // UTF-16 surrogate pair
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// OwnerOf returns the source instance (of count) that reads a partition:
// Flink's KafkaSourceEnumerator assignment, a start index from the topic's
// hash and then round-robin by partition number.
func OwnerOf(tp TopicPartition, count int) int {
	start := int((javaHash(tp.Topic)*31)&0x7FFFFFFF) % count
	return (start + int(tp.Partition)) % count
}
