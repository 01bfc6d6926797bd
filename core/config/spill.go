package config

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Spill options (batch mode).
const (
	// KeySpillMemoryBudget is tablerun's own key: the memory budget of each
	// HashAggregate, Sort and SortLimit operator in batch mode, in Flink's
	// MemorySize syntax ('64 mb', '1g', '512kb', bytes when unitless). An
	// operator whose state grows past it spills to disk (Arrow IPC, zstd).
	// The default '0' means no limit: nothing spills. Flink sizes these
	// operators from the slot's managed memory instead
	// (table.exec.resource.hash-agg.memory and table.exec.resource.sort.memory
	// are only weights there), so there is no Flink key with this meaning.
	KeySpillMemoryBudget = "tablerun.exec.spill.memory-budget"
	// KeyTmpDirs is Flink's io.tmp.dirs: the directories for temporary
	// files, separated by ',' or the path list separator. Spill files go
	// to the first one; the default '' is the system temp directory
	// (os.TempDir).
	KeyTmpDirs = "io.tmp.dirs"
	// KeySpillCompression is Flink's table.exec.spill-compression.enabled:
	// whether spill files are compressed (zstd here; Flink uses LZ4).
	KeySpillCompression = "table.exec.spill-compression.enabled"
)

// memoryUnits maps Flink's MemorySize unit spellings to multipliers.
var memoryUnits = map[string]int64{
	"": 1, "b": 1, "bytes": 1,
	"k": 1 << 10, "kb": 1 << 10, "kibibytes": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mebibytes": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gibibytes": 1 << 30,
	"t": 1 << 40, "tb": 1 << 40, "tebibytes": 1 << 40,
}

// ParseMemorySize parses a size as Flink's MemorySize does: a number and
// an optional unit (b, k/kb, m/mb, g/gb, t/tb, case-insensitive).
func ParseMemorySize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("text does not start with a number")
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("The value '%s' cannot be re represented as 64bit number (numeric overflow).", t[:i])
	}
	unit := strings.ToLower(strings.TrimLeftFunc(t[i:], unicode.IsSpace))
	mul, ok := memoryUnits[unit]
	if !ok {
		return 0, fmt.Errorf("Memory size unit '%s' does not match any of the recognized units: (b | bytes) / (k | kb | kibibytes) / (m | mb | mebibytes) / (g | gb | gibibytes) / (t | tb | tebibytes)", unit)
	}
	if n > 0 && mul > 1 && n > (1<<63-1)/mul {
		return 0, fmt.Errorf("The value '%s' cannot be re represented as 64bit number of bytes (numeric overflow).", s)
	}
	return n * mul, nil
}

func memorySizeCheck(key, v string) (string, error) {
	if _, err := ParseMemorySize(v); err != nil {
		return "", &ValueError{Key: key, Class: illegalArg, Msg: err.Error()}
	}
	return v, nil
}

// SpillMemoryBudget returns tablerun.exec.spill.memory-budget in bytes (0:
// no limit).
func (c *Config) SpillMemoryBudget() int64 {
	n, err := ParseMemorySize(c.str(KeySpillMemoryBudget))
	if err != nil {
		return 0
	}
	return n
}

// SpillCompression returns table.exec.spill-compression.enabled.
func (c *Config) SpillCompression() bool { return c.boolean(KeySpillCompression) }

// SpillDir returns the first directory of io.tmp.dirs ("" for the system
// temp directory).
func (c *Config) SpillDir() string {
	v := strings.TrimSpace(c.str(KeyTmpDirs))
	if i := strings.IndexAny(v, ",:"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v)
}
