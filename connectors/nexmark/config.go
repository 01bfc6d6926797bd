package nexmark

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Option keys of the Flink nexmark connector ('connector' = 'nexmark').
const (
	OptFirstEventRate    = "first-event.rate"
	OptNextEventRate     = "next-event.rate"
	OptRateShape         = "rate.shape"
	OptRatePeriod        = "rate.period"
	OptRateLimited       = "rate.limited"
	OptEventsNum         = "events.num"
	OptPersonProportion  = "person.proportion"
	OptAuctionProportion = "auction.proportion"
	OptBidProportion     = "bid.proportion"
	OptPersonAvgSize     = "person.avg-size"
	OptAuctionAvgSize    = "auction.avg-size"
	OptBidAvgSize        = "bid.avg-size"
	OptHotAuctionRatio   = "bid.hot-ratio.auctions"
	OptHotBiddersRatio   = "bid.hot-ratio.bidders"
	OptHotSellersRatio   = "auction.hot-ratio.sellers"
	OptKeepAlive         = "keep-alive"
	OptStopAt            = "stop-at"
	OptMaxEmitSpeed      = "max-emit-speed"

	// Extensions of tablerun (not in Flink), for reproducibility.

	// OptBaseTime is the event time of event number 0: milliseconds since
	// the epoch, or 'yyyy-MM-dd HH:mm:ss[.SSS]' read as UTC. Flink uses the
	// planning wall-clock time; tablerun uses DefaultBaseTime.
	OptBaseTime = "base-time"
	// OptSeed salts every per-event random generator and the string pools.
	OptSeed = "seed"
	// OptBidderOffset keeps Flink's quirk of adding FIRST_PERSON_ID twice
	// to bid.bidder (true, the default) or adds it once (false, as the
	// Rust port and Beam do).
	OptBidderOffset = "bid.bidder-double-offset"
)

// DefaultBaseTime is the default event time of event number 0:
// 2025-01-01 00:00:00 UTC, in milliseconds since the epoch.
const DefaultBaseTime int64 = 1735689600000

// Fixed generator constants (not configurable in Flink either).
const (
	FirstPersonID       = 1000
	FirstAuctionID      = 1000
	FirstCategoryID     = 10
	NumCategories       = 5
	NumActivePeople     = 1000
	NumInFlightAuctions = 100
	PersonIDLead        = 10
	AuctionIDLead       = 10
	HotBatch            = 100 // hot seller / bidder / auction block size
	NumChannels         = 10000
	PadLen              = 1 << 20
)

// unboundedEvents is Flink's stand-in for "no limit" (events.num = 0).
const unboundedEvents = math.MaxInt64 / (50 * 500)

// Config is a parsed set of nexmark options.
type Config struct {
	FirstEventRate    int64
	NextEventRate     int64
	RateShape         string
	RatePeriod        time.Duration
	RateLimited       bool
	EventsNum         int64 // 0: unbounded
	PersonProportion  int64
	AuctionProportion int64
	BidProportion     int64
	PersonAvgSize     int64
	AuctionAvgSize    int64
	BidAvgSize        int64
	HotAuctionRatio   int64
	HotBiddersRatio   int64
	HotSellersRatio   int64
	KeepAlive         bool
	StopAt            int64 // -1: off
	MaxEmitSpeed      bool
	BaseTime          int64 // ms since the epoch
	Seed              uint64
	BidderOffset      bool
}

// DefaultConfig returns Flink's defaults (with tablerun's fixed base time).
func DefaultConfig() Config {
	return Config{
		FirstEventRate: 10000, NextEventRate: 10000, RateShape: "SQUARE", RatePeriod: 600 * time.Second,
		PersonProportion: 1, AuctionProportion: 3, BidProportion: 46,
		PersonAvgSize: 200, AuctionAvgSize: 500, BidAvgSize: 100,
		HotAuctionRatio: 2, HotBiddersRatio: 4, HotSellersRatio: 4,
		StopAt: -1, MaxEmitSpeed: true, BaseTime: DefaultBaseTime, BidderOffset: true,
	}
}

// OptionalOptions lists every option key the connector accepts.
func OptionalOptions() []string {
	return []string{OptFirstEventRate, OptNextEventRate, OptRateShape, OptRatePeriod, OptRateLimited,
		OptEventsNum, OptPersonProportion, OptAuctionProportion, OptBidProportion,
		OptPersonAvgSize, OptAuctionAvgSize, OptBidAvgSize, OptHotAuctionRatio, OptHotBiddersRatio,
		OptHotSellersRatio, OptKeepAlive, OptStopAt, OptMaxEmitSpeed, OptBaseTime, OptSeed, OptBidderOffset}
}

func parseErr(v, k string) error {
	return fmt.Errorf("Could not parse value '%s' for key '%s'.", v, k)
}

// ParseConfig reads the connector options (unknown keys are checked by the
// caller). Values are parsed as Flink's ConfigOptions do; a value out of
// range is an error naming the key.
func ParseConfig(opts map[string]string) (Config, error) {
	c := DefaultConfig()
	var err error
	ints := []struct {
		key string
		dst *int64
		min int64
	}{
		{OptFirstEventRate, &c.FirstEventRate, 1}, {OptNextEventRate, &c.NextEventRate, 1},
		{OptEventsNum, &c.EventsNum, 0},
		{OptPersonProportion, &c.PersonProportion, 0}, {OptAuctionProportion, &c.AuctionProportion, 0},
		{OptBidProportion, &c.BidProportion, 0},
		{OptHotAuctionRatio, &c.HotAuctionRatio, 1}, {OptHotBiddersRatio, &c.HotBiddersRatio, 1},
		{OptHotSellersRatio, &c.HotSellersRatio, 1}, {OptStopAt, &c.StopAt, math.MinInt64},
	}
	for _, o := range ints {
		v, ok := opts[o.key]
		if !ok {
			continue
		}
		x, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || x < o.min {
			return c, parseErr(v, o.key)
		}
		*o.dst = x
	}
	if c.PersonProportion+c.AuctionProportion+c.BidProportion <= 0 {
		return c, fmt.Errorf("nexmark: the sum of '%s', '%s' and '%s' must be positive", OptPersonProportion, OptAuctionProportion, OptBidProportion)
	}
	sizes := []struct {
		key string
		dst *int64
	}{{OptPersonAvgSize, &c.PersonAvgSize}, {OptAuctionAvgSize, &c.AuctionAvgSize}, {OptBidAvgSize, &c.BidAvgSize}}
	for _, o := range sizes {
		if v, ok := opts[o.key]; ok {
			if *o.dst, err = parseMemorySize(v); err != nil || *o.dst > math.MaxInt32 {
				return c, parseErr(v, o.key)
			}
		}
	}
	bools := []struct {
		key string
		dst *bool
	}{{OptRateLimited, &c.RateLimited}, {OptKeepAlive, &c.KeepAlive}, {OptMaxEmitSpeed, &c.MaxEmitSpeed},
		{OptBidderOffset, &c.BidderOffset}}
	for _, o := range bools {
		if v, ok := opts[o.key]; ok {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "true":
				*o.dst = true
			case "false":
				*o.dst = false
			default:
				return c, parseErr(v, o.key)
			}
		}
	}
	if v, ok := opts[OptRateShape]; ok {
		s := strings.ToUpper(strings.TrimSpace(v))
		if s != "SQUARE" && s != "SINE" {
			return c, fmt.Errorf("Could not parse value '%s' for key '%s'. Expected one of: [SQUARE, SINE]", v, OptRateShape)
		}
		c.RateShape = s
	}
	if v, ok := opts[OptRatePeriod]; ok {
		if c.RatePeriod, err = parseDuration(v); err != nil {
			return c, parseErr(v, OptRatePeriod)
		}
	}
	if v, ok := opts[OptBaseTime]; ok {
		if c.BaseTime, err = parseBaseTime(v); err != nil {
			return c, parseErr(v, OptBaseTime)
		}
	}
	if v, ok := opts[OptSeed]; ok {
		x, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return c, parseErr(v, OptSeed)
		}
		c.Seed = uint64(x)
	}
	return c, nil
}

// Bounded reports whether a source with this configuration ends.
func (c Config) Bounded() bool { return !c.KeepAlive && (c.EventsNum > 0 || c.StopAt >= 0) }

// NumEvents returns the number of events the generator emits (for an
// unbounded configuration Flink's huge stand-in limit).
func (c Config) NumEvents() int64 {
	n := c.EventsNum
	if n <= 0 {
		n = unboundedEvents
	}
	if c.StopAt >= 0 && c.StopAt < n {
		n = c.StopAt
	}
	return n
}

// parseMemorySize reads Flink's MemorySize syntax: a number with an
// optional unit (bytes by default): "200", "200b", "1kb", "2 mb".
func parseMemorySize(v string) (int64, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, err
	}
	mult := map[string]int64{"": 1, "b": 1, "bytes": 1, "k": 1 << 10, "kb": 1 << 10, "kibibytes": 1 << 10,
		"m": 1 << 20, "mb": 1 << 20, "mebibytes": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gibibytes": 1 << 30}
	m, ok := mult[strings.TrimSpace(s[i:])]
	if !ok {
		return 0, fmt.Errorf("unknown memory unit")
	}
	return n * m, nil
}

// parseDuration reads Flink's Duration syntax ("600 s", "10min", "500").
func parseDuration(v string) (time.Duration, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, err
	}
	units := map[string]time.Duration{
		"": time.Millisecond, "ms": time.Millisecond, "milli": time.Millisecond, "millis": time.Millisecond,
		"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
		"m": time.Minute, "min": time.Minute, "minute": time.Minute, "minutes": time.Minute,
		"h": time.Hour, "hour": time.Hour, "hours": time.Hour, "d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
	}
	u, ok := units[strings.TrimSpace(s[i:])]
	if !ok {
		return 0, fmt.Errorf("unknown duration unit")
	}
	return time.Duration(n) * u, nil
}

func parseBaseTime(v string) (int64, error) {
	s := strings.TrimSpace(v)
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return ms, nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, fmt.Errorf("bad base time")
}
