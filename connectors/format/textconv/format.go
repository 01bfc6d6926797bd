package textconv

import (
	"github.com/tablerun/tablerun/core/types"
)

// AppendTime appends milliseconds of the day as ISO_LOCAL_TIME formats a
// LocalTime: HH:mm:ss plus the fraction without trailing zeros.
func AppendTime(dst []byte, ms int32) []byte {
	m := int64(ms)
	dst = appendClock(dst, m/1000)
	return types.AppendTrimmedFraction(dst, (m%1000)*1_000_000)
}

// AppendTimestamp appends wall-clock microseconds as Flink's csv/json
// formats write timestamps: `yyyy-MM-dd HH:mm:ss[.fraction]` (ISO: 'T'
// between date and time), the fraction without trailing zeros; zoned adds
// 'Z' (TIMESTAMP_LTZ, written in UTC).
func AppendTimestamp(dst []byte, micros int64, iso, zoned bool) []byte {
	days := micros / 86_400_000_000
	rem := micros % 86_400_000_000
	if rem < 0 {
		days--
		rem += 86_400_000_000
	}
	dst = types.AppendDate(dst, int32(days))
	if iso {
		dst = append(dst, 'T')
	} else {
		dst = append(dst, ' ')
	}
	dst = appendClock(dst, rem/1_000_000)
	dst = types.AppendTrimmedFraction(dst, (rem%1_000_000)*1000)
	if zoned {
		dst = append(dst, 'Z')
	}
	return dst
}

func appendClock(dst []byte, secs int64) []byte {
	dst = append2(dst, secs/3600)
	dst = append(dst, ':')
	dst = append2(dst, secs/60%60)
	dst = append(dst, ':')
	return append2(dst, secs%60)
}

func append2(dst []byte, v int64) []byte {
	return append(dst, byte('0'+v/10), byte('0'+v%10))
}
