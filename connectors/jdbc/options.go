// Package jdbc is Flink's 'jdbc' table connector for PostgreSQL (through
// github.com/jackc/pgx/v5): a bounded scan, split across parallel
// instances with 'scan.partition.*', with projection and simple filter
// push-down; a lookup function for processing-time temporal joins
// (batches of keys per query, with Flink's partial cache in front, see
// vectorized.LookupFunction); and a sink that upserts (INSERT … ON
// CONFLICT) and deletes by the table's PRIMARY KEY, or appends without
// one, buffered and flushed by rows, by interval and at every checkpoint
// barrier (at-least-once, as Flink's JDBC sink).
//
// The URL's scheme chooses the dialect, as Flink's JdbcFactoryLoader:
// only jdbc:postgresql:// is supported yet. The package does not import
// connectors; connectors/jdbc_factory.go adapts it to a Factory.
package jdbc

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tablerun/tablerun/core/config"
)

// Option keys (Flink's JdbcConnectorOptions and LookupOptions).
const (
	KeyURL               = "url"
	KeyTableName         = "table-name"
	KeyDriver            = "driver"
	KeyUsername          = "username"
	KeyPassword          = "password"
	KeyMaxRetryTimeout   = "connection.max-retry-timeout"
	KeyPartitionColumn   = "scan.partition.column"
	KeyPartitionNum      = "scan.partition.num"
	KeyPartitionLower    = "scan.partition.lower-bound"
	KeyPartitionUpper    = "scan.partition.upper-bound"
	KeyFetchSize         = "scan.fetch-size"
	KeyAutoCommit        = "scan.auto-commit"
	KeyLookupCache       = "lookup.cache"
	KeyCacheMaxRows      = "lookup.partial-cache.max-rows"
	KeyExpireAfterWrite  = "lookup.partial-cache.expire-after-write"
	KeyExpireAfterAccess = "lookup.partial-cache.expire-after-access"
	KeyCacheMissingKey   = "lookup.partial-cache.cache-missing-key"
	KeyLookupMaxRetries  = "lookup.max-retries"
	KeyLegacyMaxRows     = "lookup.cache.max-rows"
	KeyLegacyTTL         = "lookup.cache.ttl"
	KeyLegacyMissingKey  = "lookup.cache.caching-missing-key"
	KeyFlushMaxRows      = "sink.buffer-flush.max-rows"
	KeyFlushInterval     = "sink.buffer-flush.interval"
	KeySinkMaxRetries    = "sink.max-retries"
	KeySinkParallelism   = "sink.parallelism"
)

// RequiredOptions are the keys a jdbc table must set.
func RequiredOptions() []string { return []string{KeyURL, KeyTableName} }

// OptionalOptions are the other keys it accepts.
func OptionalOptions() []string {
	return []string{KeyDriver, KeyUsername, KeyPassword, KeyMaxRetryTimeout,
		KeyPartitionColumn, KeyPartitionNum, KeyPartitionLower, KeyPartitionUpper,
		KeyFetchSize, KeyAutoCommit, KeyLookupCache, KeyCacheMaxRows, KeyExpireAfterWrite,
		KeyExpireAfterAccess, KeyCacheMissingKey, KeyLookupMaxRetries, KeyLegacyMaxRows,
		KeyLegacyTTL, KeyLegacyMissingKey, KeyFlushMaxRows, KeyFlushInterval, KeySinkMaxRetries,
		KeySinkParallelism}
}

// Options are a jdbc table's parsed options.
type Options struct {
	URL, Table, Driver string
	Username, Password string
	// MaxRetryTimeout bounds the time spent connecting (and reconnecting)
	// before an operation fails.
	MaxRetryTimeout time.Duration

	// Partitioned: scan.partition.* are set; the scan is cut into
	// PartitionNum ranges of PartitionColumn over [Lower, Upper].
	Partitioned     bool
	PartitionColumn string
	PartitionNum    int
	Lower, Upper    int64
	FetchSize       int
	AutoCommit      bool

	// Cache is set for 'lookup.cache' = 'PARTIAL' (or the legacy
	// lookup.cache.max-rows and ttl).
	Cache            *CacheOptions
	LookupMaxRetries int

	FlushMaxRows    int
	FlushInterval   time.Duration
	SinkMaxRetries  int
	SinkParallelism int
}

// CacheOptions are the partial lookup cache's settings
// (lookup.partial-cache.*); zero durations and MaxRows mean unlimited.
type CacheOptions struct {
	MaxRows           int64
	ExpireAfterWrite  time.Duration
	ExpireAfterAccess time.Duration
	CacheMissingKey   bool
}

func parseErr(key, v string) error {
	return fmt.Errorf("Could not parse value '%s' for key '%s'.", v, key)
}

// ParseOptions parses and checks a table's options as Flink's
// JdbcDynamicTableFactory does (after the unsupported-keys check, which
// the caller makes).
func ParseOptions(opts map[string]string) (*Options, error) {
	o := &Options{URL: opts[KeyURL], Table: opts[KeyTableName], Driver: opts[KeyDriver],
		Username: opts[KeyUsername], Password: opts[KeyPassword]}
	var err error
	intOpt := func(key string, def int) int {
		v, ok := opts[key]
		if !ok || err != nil {
			return def
		}
		n, e := strconv.Atoi(strings.TrimSpace(v))
		if e != nil {
			err = parseErr(key, v)
		}
		return n
	}
	longOpt := func(key string) int64 {
		v, ok := opts[key]
		if !ok || err != nil {
			return 0
		}
		n, e := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if e != nil {
			err = parseErr(key, v)
		}
		return n
	}
	durOpt := func(key string, def time.Duration) time.Duration {
		v, ok := opts[key]
		if !ok || err != nil {
			return def
		}
		d, e := config.ParseDuration(v)
		if e != nil {
			err = parseErr(key, v)
		}
		return d
	}
	boolOpt := func(key string, def bool) bool {
		if err != nil {
			return def
		}
		b, e := config.BoolOption(opts, key, def)
		if e != nil {
			err = e
		}
		return b
	}
	if _, err := DialectOf(o.URL); err != nil {
		return nil, err
	}
	if err := allOrNone(opts, KeyUsername, KeyPassword); err != nil {
		return nil, err
	}
	if err := allOrNone(opts, KeyPartitionColumn, KeyPartitionNum, KeyPartitionLower, KeyPartitionUpper); err != nil {
		return nil, err
	}
	o.MaxRetryTimeout = durOpt(KeyMaxRetryTimeout, 60*time.Second)
	o.PartitionColumn = opts[KeyPartitionColumn]
	o.Partitioned = o.PartitionColumn != ""
	o.PartitionNum = intOpt(KeyPartitionNum, 0)
	o.Lower, o.Upper = longOpt(KeyPartitionLower), longOpt(KeyPartitionUpper)
	o.FetchSize = intOpt(KeyFetchSize, 0)
	o.AutoCommit = boolOpt(KeyAutoCommit, true)
	o.LookupMaxRetries = intOpt(KeyLookupMaxRetries, 3)
	o.FlushMaxRows = intOpt(KeyFlushMaxRows, 100)
	o.FlushInterval = durOpt(KeyFlushInterval, time.Second)
	o.SinkMaxRetries = intOpt(KeySinkMaxRetries, 3)
	o.SinkParallelism = intOpt(KeySinkParallelism, 0)
	legacyRows := longOpt(KeyLegacyMaxRows)
	legacyTTL := durOpt(KeyLegacyTTL, 0)
	legacyMissing := boolOpt(KeyLegacyMissingKey, true)
	cacheRows := longOpt(KeyCacheMaxRows)
	eaw := durOpt(KeyExpireAfterWrite, 0)
	eaa := durOpt(KeyExpireAfterAccess, 0)
	missing := boolOpt(KeyCacheMissingKey, true)
	if err != nil {
		return nil, err
	}
	if o.Partitioned && o.Lower > o.Upper {
		return nil, fmt.Errorf("'%s'='%d' must not be larger than '%s'='%d'.", KeyPartitionLower, o.Lower, KeyPartitionUpper, o.Upper)
	}
	if o.Partitioned && o.PartitionNum < 1 {
		return nil, fmt.Errorf("The value of '%s' option must be positive, but is %d.", KeyPartitionNum, o.PartitionNum)
	}
	if err := allOrNone(opts, KeyLegacyMaxRows, KeyLegacyTTL); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		key string
		v   int
	}{{KeyLookupMaxRetries, o.LookupMaxRetries}, {KeySinkMaxRetries, o.SinkMaxRetries}} {
		if c.v < 0 {
			return nil, fmt.Errorf("The value of '%s' option shouldn't be negative, but is %d.", c.key, c.v)
		}
	}
	if o.MaxRetryTimeout < time.Second || o.MaxRetryTimeout%time.Second != 0 {
		return nil, fmt.Errorf("The value of '%s' option must be in second granularity and shouldn't be smaller than 1 second, but is %s.", KeyMaxRetryTimeout, opts[KeyMaxRetryTimeout])
	}
	if o.FetchSize < 0 {
		return nil, fmt.Errorf("The value of '%s' option shouldn't be negative, but is %d.", KeyFetchSize, o.FetchSize)
	}
	if _, ok := opts[KeySinkParallelism]; ok && o.SinkParallelism < 1 {
		return nil, fmt.Errorf("Invalid configured parallelism %d for table.", o.SinkParallelism)
	}
	if legacyRows > 0 && legacyTTL > 0 {
		o.Cache = &CacheOptions{MaxRows: legacyRows, ExpireAfterWrite: legacyTTL, CacheMissingKey: legacyMissing}
	}
	switch c := strings.ToUpper(strings.TrimSpace(opts[KeyLookupCache])); c {
	case "", "NONE":
	case "PARTIAL":
		o.Cache = &CacheOptions{MaxRows: cacheRows, ExpireAfterWrite: eaw, ExpireAfterAccess: eaa, CacheMissingKey: missing}
		if cacheRows < 0 {
			return nil, fmt.Errorf("The value of '%s' option shouldn't be negative, but is %d.", KeyCacheMaxRows, cacheRows)
		}
	case "FULL":
		return nil, fmt.Errorf("not supported yet: '%s' = 'FULL' for the jdbc connector (NONE and PARTIAL are)", KeyLookupCache)
	default:
		return nil, parseErr(KeyLookupCache, opts[KeyLookupCache])
	}
	return o, nil
}

// allOrNone is Flink's check that a group of options is set together.
func allOrNone(opts map[string]string, keys ...string) error {
	n := 0
	for _, k := range keys {
		if _, ok := opts[k]; ok {
			n++
		}
	}
	if n != 0 && n != len(keys) {
		return fmt.Errorf("Either all or none of the following options should be provided:\n%s", strings.Join(keys, "\n"))
	}
	return nil
}
