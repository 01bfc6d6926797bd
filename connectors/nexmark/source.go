// Package nexmark is a deterministic re-implementation of the Nexmark
// benchmark generator with the options of Flink's nexmark connector
// ('connector' = 'nexmark'), producing Arrow record batches directly.
//
// The table (ddl_gen.sql) has the physical columns event_type INT and the
// nested rows person, auction and bid; the row of the event's kind is set,
// the other two are NULL (with NULL fields). A table may declare any
// subset of these columns and of the nested fields, in any order (matched
// by name); undeclared or unprojected parts are not materialized.
//
// Generation follows the Flink generator (see SPEC.md of the benchmark
// notes) with one generator (Flink's numEventGenerators = 1, whatever the
// parallelism, so results never depend on it): the k-th event (k = 0, 1,
// …) has event number en = 1 + k and event id eid = 2 + k; the kind comes
// from eid modulo the sum of the proportions; the event time is baseTime +
// (long)(en · 10⁶/first-event.rate) / 1000 ms, so event times never
// decrease. Differences from Flink, all for reproducibility:
//   - every event draws from its own SplitMix64 generator seeded from its
//     event id and the 'seed' option, so an event is a pure function of the
//     options and its id; the draw order of each kind is Flink's;
//   - the base time is fixed ('base-time', default 2025-01-01 00:00:00 UTC)
//     instead of the planning wall-clock time;
//   - the channel/URL table and the 1 MiB padding string come from a seeded
//     generator.
//
// 'next-event.rate', 'rate.shape', 'rate.period' and 'rate.limited' are
// accepted and ignored, as in the current Flink generator.
//
// Watermarks: the source emits no Watermark markers. As in Flink, where
// the nexmark source has no watermark strategy of its own, the table's
// WATERMARK clause (`dateTime` - INTERVAL '4' SECOND over the computed
// `dateTime` column) is applied by the planner's watermark assigner after
// the scan. Event times are non-decreasing in emission order (within a
// split), so an assigner taking the batch maximum is exact.
package nexmark

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// Source generates nexmark events as record batches.
type Source struct {
	m       *model
	cfg     Config
	specs   []colSpec
	schema  *arrow.Schema
	batch   int
	split   int
	splits  int
	total   int64
	emitted int64
	pos     position // the checkpointed position (position.go)
}

// NewSource returns a source for a nexmark table with the given physical
// schema, producing the projected columns (indexes into physical; nil:
// all) in batches of batchSize events (<= 0: vectorized.DefaultBatchSize).
func NewSource(cfg Config, physical types.Schema, projection []int, batchSize int) (*Source, error) {
	if projection == nil {
		projection = make([]int, len(physical))
		for i := range projection {
			projection[i] = i
		}
	}
	if batchSize <= 0 {
		batchSize = vectorized.DefaultBatchSize
	}
	s := &Source{m: newModel(cfg), cfg: cfg, batch: batchSize, splits: 1, total: cfg.NumEvents()}
	var fields []arrow.Field
	for _, p := range projection {
		if p < 0 || p >= len(physical) {
			return nil, fmt.Errorf("nexmark: projection index %d out of range", p)
		}
		spec, err := resolveColumn(physical[p])
		if err != nil {
			return nil, err
		}
		s.specs = append(s.specs, spec)
		fields = append(fields, arrow.Field{Name: physical[p].Name, Type: spec.at, Nullable: physical[p].Type.Nullable()})
	}
	s.schema = arrow.NewSchema(fields, nil)
	// Keep each string buffer of a batch well below 2 GiB (int32 offsets).
	maxRow := max(cfg.PersonAvgSize, cfg.AuctionAvgSize, cfg.BidAvgSize)*6/5 + 256
	if limit := int64(1<<30) / maxRow; int64(s.batch) > limit {
		s.batch = int(max(limit, 1))
	}
	if !cfg.MaxEmitSpeed {
		// Paced sources emit about ten batches per second.
		s.batch = int(max(min(int64(s.batch), cfg.FirstEventRate/10), 1))
	}
	return s, nil
}

// SetReadFields tells the source which top-level fields of its ROW columns
// are read downstream (connectors.SourceSpec.ReadFields): read[i] is for
// projected column i; a nil read, a nil entry, an entry for a non-ROW
// column or one whose length is not the column's field count means all
// fields. Unread fields are emitted as NULL (the column keeps its type);
// the generator makes the same draws, so the read fields keep their
// values.
func (s *Source) SetReadFields(read [][]bool) {
	count := map[int]int{}
	for _, sp := range s.specs {
		count[sp.col]++
	}
	for i := range s.specs {
		s.specs[i].read = nil
		sp := s.specs[i]
		// A column projected twice shares one generated array: all fields.
		if i >= len(read) || sp.col == colEventType || count[sp.col] > 1 || len(read[i]) != len(sp.slots) {
			continue
		}
		s.specs[i].read = append([]bool(nil), read[i]...)
	}
}

// SetSplit makes the source produce only its share of the events when
// count copies of it run in parallel: the event stream is cut into chunks
// of one batch and copy index takes chunks index, index+count, … . Every
// copy's event times are non-decreasing and all copies advance through
// event time together.
func (s *Source) SetSplit(index, count int) error {
	if count < 1 || index < 0 || index >= count {
		return fmt.Errorf("nexmark: bad split %d of %d", index, count)
	}
	s.split, s.splits = index, count
	return nil
}

// Schema returns the schema of the emitted batches.
func (s *Source) Schema() *arrow.Schema { return s.schema }

// NumEvents returns the number of events of the whole (unsplit) stream.
func (s *Source) NumEvents() int64 { return s.total }

// Open does nothing.
func (s *Source) Open(ctx context.Context) error { return nil }

// Close does nothing.
func (s *Source) Close() error { return nil }

// Run emits the events of the source's split. A bounded configuration
// returns after the last event (or, with 'keep-alive', waits for ctx); an
// unbounded one runs until ctx is cancelled and returns ctx.Err().
func (s *Source) Run(ctx context.Context, out vectorized.Collector) error {
	wallStart := time.Now()
	paced := false
	for c := s.firstChunk(); ; c += int64(s.splits) {
		k0 := c * int64(s.batch)
		if k0 >= s.total {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(k0+int64(s.batch), s.total)
		next := (c + int64(s.splits)) * int64(s.batch)
		// Normally one run [k0, end); after a restore, only the events of
		// the chunk that were not emitted before the checkpoint.
		for _, run := range s.pos.pending(max(k0, s.pos.next), end) {
			n := int(run[1] - run[0])
			rec := s.Generate(run[0], n)
			if !s.cfg.MaxEmitSpeed {
				if s.pos.restored && !paced {
					// A restored source paces from its first event on.
					first := s.m.timestamp(eventNumber(run[0]))
					wallStart = time.Now().Add(-time.Duration(first-s.cfg.BaseTime) * time.Millisecond)
				}
				paced = true
				last := s.m.timestamp(eventNumber(run[1] - 1))
				due := wallStart.Add(time.Duration(last-s.cfg.BaseTime) * time.Millisecond)
				if d := time.Until(due); d > 0 {
					// Through the collector: an idle source is marked
					// idle while it waits (vectorized/idle.go).
					if err := vectorized.Sleep(ctx, out, d); err != nil {
						rec.Release()
						return err
					}
				}
			}
			// The position moves before Emit: a checkpoint taken inside
			// Emit records the position after this batch.
			s.pos.next = run[1]
			if run[1] == end {
				s.pos.next = next
			}
			s.emitted += int64(n)
			if err := out.Emit(ctx, vectorized.Batch{Rec: rec}); err != nil {
				return err
			}
		}
		s.pos.next = max(s.pos.next, next)
	}
	if s.cfg.KeepAlive {
		_, _, err := vectorized.WaitOn(ctx, out, ctx.Done())
		if err == nil {
			err = ctx.Err()
		}
		return err
	}
	return nil
}

// EventTime returns the event time (ms since the epoch) of the k-th event.
func (s *Source) EventTime(k int64) int64 { return s.m.timestamp(eventNumber(k)) }

// Generate builds the record batch of events first .. first+n-1 (0-based
// positions in the stream).
func (s *Source) Generate(first int64, n int) arrow.RecordBatch {
	m := s.m
	var et []int32
	var pc, ac, bc *structCol
	wantType := false
	fr := m.fractions()
	for _, sp := range s.specs {
		switch sp.col {
		case colEventType:
			wantType = true
		case colPerson:
			pc = newStructCol(sp, personFields, map[int]int{pName: 12, pEmail: 16, pCard: 19, pCity: 10, pState: 2, pExtra: int(m.cfg.PersonAvgSize)})
			pc.reset(n, fr[KindPerson])
		case colAuction:
			ac = newStructCol(sp, auctionFields, map[int]int{aItemName: 12, aDescription: 52, aExtra: int(m.cfg.AuctionAvgSize)})
			ac.reset(n, fr[KindAuction])
		case colBid:
			bc = newStructCol(sp, bidFields, map[int]int{bChannel: 13, bURL: 80, bExtra: int(m.cfg.BidAvgSize)})
			bc.reset(n, fr[KindBid])
		}
	}
	if wantType {
		et = make([]int32, n)
	}
	seed := m.cfg.Seed
	for i := 0; i < n; i++ {
		k := first + int64(i)
		en := eventNumber(k)
		eid := eventID(k)
		kind := m.kind(eid)
		if et != nil {
			et[i] = kind
		}
		if pc == nil && ac == nil && bc == nil {
			continue
		}
		ts := m.timestamp(en)
		switch kind {
		case KindPerson:
			if pc != nil {
				r := newEventRNG(seed, eid)
				m.person(&r, i, eid, ts, pc)
			}
		case KindAuction:
			if ac != nil {
				r := newEventRNG(seed, eid)
				m.auction(&r, i, eid, en, ts, ac)
			}
		default:
			if bc != nil {
				r := newEventRNG(seed, eid)
				m.bid(&r, i, eid, ts, bc)
			}
		}
	}
	cols := make([]arrow.Array, len(s.specs))
	for i, sp := range s.specs {
		switch sp.col {
		case colEventType:
			d := array.NewData(sp.at, n, []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(et))}, nil, 0, 0)
			cols[i] = array.MakeFromData(d)
			d.Release()
		case colPerson:
			cols[i] = pc.array()
		case colAuction:
			cols[i] = ac.array()
		case colBid:
			cols[i] = bc.array()
		}
	}
	rec := array.NewRecordBatch(s.schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// fractions returns the share of each event kind.
func (m *model) fractions() [3]float64 {
	t := float64(m.total)
	return [3]float64{float64(m.cfg.PersonProportion) / t, float64(m.cfg.AuctionProportion) / t, float64(m.cfg.BidProportion) / t}
}

// person generates the person event eid: draws in Flink's order.
func (m *model) person(r *rng, row int, eid, ts int64, c *structCol) {
	c.begin(row)
	c.int(pID, m.lastPersonID(eid)+FirstPersonID)
	first := firstNames[r.uniform(int64(len(firstNames)))]
	last := lastNames[r.uniform(int64(len(lastNames)))]
	b := c.scratch[:0]
	b = append(b, first...)
	b = append(b, ' ')
	b = append(b, last...)
	c.bytes(pName, b)
	b = b[:0]
	b = appendString(r, b, 7, ' ')
	b = append(b, '@')
	b = appendString(r, b, 5, ' ')
	b = append(b, ".com"...)
	emailLen := len(b)
	c.bytes(pEmail, b)
	var card [19]byte
	for g := 0; g < 4; g++ {
		v := r.uniform(10000)
		o := g * 5
		card[o] = byte('0' + v/1000)
		card[o+1] = byte('0' + v/100%10)
		card[o+2] = byte('0' + v/10%10)
		card[o+3] = byte('0' + v%10)
		if g < 3 {
			card[o+4] = ' '
		}
	}
	c.bytes(pCard, card[:])
	city := usCities[r.uniform(int64(len(usCities)))]
	state := usStates[r.uniform(int64(len(usStates)))]
	c.str(pCity, city)
	c.str(pState, state)
	c.int(pTime, ts*1000)
	cur := int64(8 + len(first) + 1 + len(last) + emailLen + len(card) + len(city) + len(state))
	off, n := padRange(r, cur, m.cfg.PersonAvgSize)
	c.bytes(pExtra, m.pools.pad[off:off+n])
	c.scratch = b
}

// auction generates the auction event eid (event number en).
func (m *model) auction(r *rng, row int, eid, en, ts int64, c *structCol) {
	c.begin(row)
	c.int(aID, m.lastAuctionID(eid)+FirstAuctionID)
	var seller int64
	if r.uniform(m.cfg.HotSellersRatio) > 0 {
		seller = m.lastPersonID(eid) / HotBatch * HotBatch
	} else {
		seller = m.nextPersonID(r, eid)
	}
	category := FirstCategoryID + r.uniform(NumCategories)
	initialBid := price(r)
	horizon := m.timestamp(en+m.auctionSpan) - ts
	expires := ts + 1 + r.uniform(max(2*horizon, 1))
	b := c.scratch[:0]
	b = appendString(r, b, 20, ' ')
	nameLen := len(b)
	b = appendString(r, b, 100, ' ')
	c.bytes(aItemName, b[:nameLen])
	c.bytes(aDescription, b[nameLen:])
	reserve := initialBid + price(r)
	c.int(aInitialBid, initialBid)
	c.int(aReserve, reserve)
	c.int(aTime, ts*1000)
	c.int(aExpires, expires*1000)
	c.int(aSeller, seller+FirstPersonID)
	c.int(aCategory, category)
	off, n := padRange(r, int64(8+len(b)+40), m.cfg.AuctionAvgSize)
	c.bytes(aExtra, m.pools.pad[off:off+n])
	c.scratch = b
}

// bid generates the bid event eid.
func (m *model) bid(r *rng, row int, eid, ts int64, c *structCol) {
	c.begin(row)
	var auction, bidder int64
	if r.uniform(m.cfg.HotAuctionRatio) > 0 {
		auction = m.lastAuctionID(eid) / HotBatch * HotBatch
	} else {
		auction = m.nextAuctionID(r, eid)
	}
	if r.uniform(m.cfg.HotBiddersRatio) > 0 {
		bidder = m.lastPersonID(eid)/HotBatch*HotBatch + 1
	} else {
		bidder = m.nextPersonID(r, eid)
	}
	c.int(bAuction, auction+FirstAuctionID)
	c.int(bBidder, bidder+m.hotBidderOff)
	c.int(bPrice, price(r))
	if r.uniform(2) > 0 {
		i := r.uniform(int64(len(hotChannels)))
		c.str(bChannel, hotChannels[i])
		c.str(bURL, m.pools.hotURLs[i])
	} else {
		j := r.uniform(NumChannels)
		p := m.pools
		lo, mid, hi := p.chanURLOff[j], p.chanURLOff[j]+uint32(p.chanLen[j]), p.chanURLOff[j+1]
		c.bytes(bChannel, p.chanURL[lo:mid])
		c.bytes(bURL, p.chanURL[mid:hi])
	}
	c.int(bTime, ts*1000)
	off, n := padRange(r, 32, m.cfg.BidAvgSize)
	c.bytes(bExtra, m.pools.pad[off:off+n])
}

var _ vectorized.Source = (*Source)(nil)
