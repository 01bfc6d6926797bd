package build

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/tablerun/tablerun/connectors"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized"
)

// Parallel instances (Env.Parallelism > 1, streaming plans).
//
// A plan is cut at its Exchange nodes. A node runs as P instances
// (subtasks), each in its own goroutine, when it can work on a partition of
// its input (parallelSafe) and every input is parallel; an Exchange that
// hashes by keys is parallel whatever is below it. Everything else (the
// sources, a LIMIT, an Exchange to a single instance) runs once. Between a
// producer side and its consumers sits a hub:
//
//   - a hash Exchange routes each row to the subtask that owns its key's
//     key group (vectorized.HashColumns, KeyGroup, SubtaskOf), a batch at
//     a time: each producer's router (exchange_partition.go) hashes the
//     key columns, orders the rows by subtask and gathers every column
//     once into the subtasks' batches;
//   - where P instances feed a single node (or the caller), the hub
//     gathers them into one stream.
//
// A hub consumer merges the markers of its producers as Flink's input
// gates do: its watermark is the minimum over the producers that have not
// ended, EndOfInput passes once every producer has ended, and a checkpoint
// barrier passes once every live producer has sent it (aligned: the
// batches of a producer that is ahead wait behind its barrier). An idle
// producer (vectorized.Idle, until vectorized.Active) does not hold the
// watermark back; when every live producer is idle the consumer emits the
// maximum of their watermarks and forwards Idle, and Active when one of
// them produces again.

// hubQueue is the number of items a consumer's channel buffers.
const hubQueue = 8

// parallelSafe reports whether a node's instances may each process a part
// of its input (physical.ParallelSafe).
func parallelSafe(n physical.Node) bool {
	p, ok := n.(physical.ParallelSafe)
	return ok && p.ParallelSafe()
}

// isPar reports whether n runs as Env.Parallelism instances.
func (b *builder) isPar(n physical.Node) bool {
	if b.par <= 1 {
		return false
	}
	if v, ok := b.parMemo[n]; ok {
		return v
	}
	v := false
	if ex, ok := n.(*physical.Exchange); ok {
		v = len(ex.Keys) > 0
	} else if scan, ok := n.(*physical.TableSourceScan); ok {
		v = b.splittable(scan)
	} else if parallelSafe(n) && len(n.Children()) > 0 {
		v = true
		for _, c := range n.Children() {
			if !b.isPar(c) {
				v = false
				break
			}
		}
	}
	if b.parMemo == nil {
		b.parMemo = map[physical.Node]bool{}
	}
	b.parMemo[n] = v
	return v
}

// buildParallel builds P instances of a parallel node requested from a
// single context and gathers them.
func (b *builder) buildParallel(n physical.Node) (runner, error) {
	rs := make([]runner, b.par)
	saved := b.inst
	defer func() { b.inst = saved }()
	for i := range rs {
		b.inst = i
		r, err := b.buildOne(n)
		if err != nil {
			return nil, err
		}
		rs[i] = r
	}
	return &hubConsumer{hub: b.newHub(rs, nil, 1), index: 0}, nil
}

// buildExchange builds instance b.inst of a hash Exchange: a consumer of
// the hub that partitions the Exchange's input.
func (b *builder) buildExchange(ex *physical.Exchange) (runner, error) {
	h := b.hubs[ex]
	if h == nil || h.claimed[b.inst] {
		saved := b.inst
		var producers []runner
		if b.isPar(ex.Input) {
			producers = make([]runner, b.par)
			for k := range producers {
				b.inst = k
				r, err := b.buildOne(ex.Input)
				if err != nil {
					b.inst = saved
					return nil, err
				}
				producers[k] = r
			}
		} else {
			b.inst = -1
			r, err := b.buildNode(ex.Input)
			if err != nil {
				b.inst = saved
				return nil, err
			}
			producers = []runner{r}
		}
		b.inst = saved
		h = b.newHub(producers, ex.Keys, b.par)
		if b.hubs == nil {
			b.hubs = map[*physical.Exchange]*hub{}
		}
		b.hubs[ex] = h
	}
	h.claimed[b.inst] = true
	return &hubConsumer{hub: h, index: b.inst}, nil
}

// hub connects producer runners to consumer instances.
type hub struct {
	producers []runner
	keys      []int // nil: no partitioning (one consumer gathers)
	chans     []chan hubItem
	claimed   []bool

	parent context.Context
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// hubItem is a batch, a marker, or the end of a producer's run.
type hubItem struct {
	from   int
	batch  vectorized.Batch
	marker *vectorized.Marker
	done   bool
	err    error
}

func (b *builder) newHub(producers []runner, keys []int, consumers int) *hub {
	h := &hub{producers: producers, keys: keys, chans: make([]chan hubItem, consumers), claimed: make([]bool, consumers)}
	b.allHubs = append(b.allHubs, h)
	for i := range h.chans {
		h.chans[i] = make(chan hubItem, hubQueue)
	}
	return h
}

// start runs the producers, once, under the run's context (Run sets
// parent before running anything and stops every hub when the run ends):
// not under the first consumer's, which its runner may cancel when it
// finishes while other consumers still read.
func (h *hub) start(ctx context.Context) {
	h.once.Do(func() {
		if h.parent != nil {
			ctx = h.parent
		}
		h.ctx, h.cancel = context.WithCancel(ctx)
		for k, p := range h.producers {
			h.wg.Add(1)
			go func() {
				defer h.wg.Done()
				var err error
				func() {
					defer func() {
						if p := recover(); p != nil {
							err = fmt.Errorf("internal error while running the plan: %v", p)
						}
					}()
					err = p.run(h.ctx, &partitioner{hub: h, from: k})
				}()
				for _, ch := range h.chans {
					select {
					case ch <- hubItem{from: k, done: true, err: err}:
					case <-h.ctx.Done():
						return
					}
				}
			}()
		}
	})
}

// startHubs gives every hub the run's context; the returned function
// stops them all and waits for their producers.
func (b *builder) startHubs(ctx context.Context) (context.Context, func()) {
	if len(b.allHubs) == 0 {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	for _, h := range b.allHubs {
		h.parent = ctx
	}
	return ctx, func() {
		cancel()
		for _, h := range b.allHubs {
			h.wg.Wait()
		}
	}
}

// stop cancels the producers and waits for them.
func (h *hub) stop() {
	if h.cancel != nil {
		h.cancel()
	}
	h.wg.Wait()
}

func (h *hub) send(ctx context.Context, j int, it hubItem) error {
	select {
	case h.chans[j] <- it:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// partitioner is the collector of one producer: it routes rows to the
// consumers and broadcasts markers.
type partitioner struct {
	hub    *hub
	from   int
	router *router
	parts  []vectorized.Batch
}

// Emit implements vectorized.Collector.
func (p *partitioner) Emit(ctx context.Context, b vectorized.Batch) error {
	h := p.hub
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	if len(h.chans) == 1 || len(h.keys) == 0 {
		return h.send(ctx, 0, hubItem{from: p.from, batch: b})
	}
	if p.router == nil {
		p.router = newRouter(h.keys, len(h.chans))
		p.parts = make([]vectorized.Batch, len(h.chans))
	}
	if j := p.router.route(b.Rec); j >= 0 {
		return h.send(ctx, j, hubItem{from: p.from, batch: b})
	}
	if err := p.router.split(b, p.parts); err != nil {
		return err
	}
	for j, part := range p.parts {
		p.parts[j] = vectorized.Batch{}
		if part.NumRows() == 0 {
			continue
		}
		if err := h.send(ctx, j, hubItem{from: p.from, batch: part}); err != nil {
			return err
		}
	}
	return nil
}

// EmitMarker implements vectorized.Collector.
func (p *partitioner) EmitMarker(ctx context.Context, m vectorized.Marker) error {
	for j := range p.hub.chans {
		if err := p.hub.send(ctx, j, hubItem{from: p.from, marker: &m}); err != nil {
			return err
		}
	}
	return nil
}

// hubConsumer is one consumer instance of a hub, as a runner.
type hubConsumer struct {
	hub   *hub
	index int
}

// producerState is what a consumer tracks per producer.
type producerState struct {
	watermark int64
	ended     bool
	idle      bool      // between Idle and Active: not in the minimum
	blocked   bool      // aligned on a barrier: hold its items
	queue     []hubItem // held items
}

func (c *hubConsumer) run(ctx context.Context, out vectorized.Collector) (err error) {
	h := c.hub
	h.start(ctx)
	defer func() {
		if err != nil {
			h.stop()
		}
	}()
	m := &merger{out: out, ps: make([]producerState, len(h.producers)), lastWM: math.MinInt64}
	for i := range m.ps {
		m.ps[i].watermark = math.MinInt64
	}
	for live := len(h.producers); live > 0; {
		var it hubItem
		select {
		case it = <-h.chans[c.index]:
		case <-h.ctx.Done():
			if err := ctx.Err(); err != nil {
				return err
			}
			return h.ctx.Err()
		case <-ctx.Done():
			return ctx.Err()
		}
		if it.done {
			if it.err != nil {
				return it.err
			}
			live--
			if err := m.end(ctx, it.from); err != nil {
				return err
			}
			continue
		}
		if err := m.handle(ctx, it); err != nil {
			return err
		}
	}
	if !m.ended {
		// Every producer stopped without EndOfInput (a Limit that had
		// enough rows): the input is over all the same.
		m.ended = true
		if err := out.EmitMarker(ctx, endOfInput); err != nil {
			return err
		}
	}
	h.wg.Wait()
	return nil
}

// merger merges the items of several producers into one stream.
type merger struct {
	out     vectorized.Collector
	ps      []producerState
	lastWM  int64
	ended   bool
	idleOut bool               // Idle was forwarded (every live producer idle)
	barrier *vectorized.Marker // the barrier being aligned
	seen    int                // producers that delivered it
}

func (m *merger) handle(ctx context.Context, it hubItem) error {
	p := &m.ps[it.from]
	if p.blocked {
		p.queue = append(p.queue, it)
		return nil
	}
	if it.marker == nil {
		return m.out.Emit(ctx, it.batch)
	}
	mk := *it.marker
	switch mk.Kind {
	case vectorized.Watermark:
		if mk.Watermark > p.watermark {
			p.watermark = mk.Watermark
		}
		return m.advance(ctx)
	case vectorized.EndOfInput:
		return m.end(ctx, it.from)
	case vectorized.Idle, vectorized.Active:
		p.idle = mk.Kind == vectorized.Idle
		if err := m.advance(ctx); err != nil {
			return err
		}
		return m.idleChanged(ctx)
	case vectorized.CheckpointBarrier:
		if len(m.ps) == 1 {
			return m.out.EmitMarker(ctx, mk)
		}
		if m.barrier == nil || m.barrier.Checkpoint < mk.Checkpoint {
			m.barrier, m.seen = &mk, 0
		}
		p.blocked = true
		m.seen++
		return m.release(ctx)
	default: // EndOfBundle
		return m.out.EmitMarker(ctx, mk)
	}
}

// live reports the producers that have not ended.
func (m *merger) live() int {
	n := 0
	for i := range m.ps {
		if !m.ps[i].ended {
			n++
		}
	}
	return n
}

// release passes an aligned barrier and replays what its producers held.
func (m *merger) release(ctx context.Context) error {
	if m.barrier == nil || m.seen < m.live() {
		return nil
	}
	mk := *m.barrier
	m.barrier, m.seen = nil, 0
	if err := m.out.EmitMarker(ctx, mk); err != nil {
		return err
	}
	for i := range m.ps {
		p := &m.ps[i]
		if !p.blocked {
			continue
		}
		p.blocked = false
		q := p.queue
		p.queue = nil
		for k, it := range q {
			if err := m.handle(ctx, it); err != nil {
				return err
			}
			if p.blocked { // the next barrier: keep the rest queued
				p.queue = append(q[k+1:len(q):len(q)], p.queue...)
				break
			}
		}
	}
	return nil
}

// end records that producer i ended.
func (m *merger) end(ctx context.Context, i int) error {
	p := &m.ps[i]
	if p.ended {
		return nil
	}
	if p.blocked {
		// Its held items come first; it ends after them.
		p.queue = append(p.queue, hubItem{from: i, marker: &vectorized.Marker{Kind: vectorized.EndOfInput}})
		return nil
	}
	p.ended = true
	if m.barrier != nil {
		if err := m.release(ctx); err != nil {
			return err
		}
	}
	if err := m.advance(ctx); err != nil {
		return err
	}
	if err := m.idleChanged(ctx); err != nil {
		return err
	}
	if m.live() == 0 && !m.ended {
		m.ended = true
		return m.out.EmitMarker(ctx, endOfInput)
	}
	return nil
}

// idleChanged forwards Idle when every live producer became idle, and
// Active when one of them is active again.
func (m *merger) idleChanged(ctx context.Context) error {
	live, idle := 0, 0
	for i := range m.ps {
		if !m.ps[i].ended {
			live++
			if m.ps[i].idle {
				idle++
			}
		}
	}
	if live == 0 {
		return nil
	}
	if all := idle == live; all != m.idleOut {
		m.idleOut = all
		kind := vectorized.Active
		if all {
			kind = vectorized.Idle
		}
		return m.out.EmitMarker(ctx, vectorized.Marker{Kind: kind})
	}
	return nil
}

// advance emits the minimum watermark of the live, active producers when
// it moved; when every live producer is idle, the maximum of theirs (as
// Flink's StatusWatermarkValve flushes them).
func (m *merger) advance(ctx context.Context) error {
	wm, hi := int64(math.MaxInt64), int64(math.MinInt64)
	any, live := false, false
	for i := range m.ps {
		if m.ps[i].ended {
			continue
		}
		live = true
		hi = max(hi, m.ps[i].watermark)
		if m.ps[i].idle {
			continue
		}
		any = true
		if m.ps[i].watermark < wm {
			wm = m.ps[i].watermark
		}
	}
	if !any && live {
		any, wm = true, hi
	}
	if !any || wm == math.MinInt64 || wm <= m.lastWM {
		return nil
	}
	m.lastWM = wm
	return m.out.EmitMarker(ctx, vectorized.Marker{Kind: vectorized.Watermark, Watermark: wm})
}

// sinkConn returns the connector context and subtask of the sink instance
// being built. Parallel instances share the session's writers: each gets
// writers that pass whole lines, under one lock, so that the print
// connector's lines of different subtasks interleave but never mix.
func (b *builder) sinkConn() (*connectors.Context, int) {
	cx := b.conn()
	if b.inst < 0 {
		return cx, 0
	}
	if b.outMu == nil {
		b.outMu = &sync.Mutex{}
	}
	c := *cx
	if c.Stdout != nil {
		c.Stdout = &lineWriter{mu: b.outMu, w: c.Stdout}
	}
	if c.Stderr != nil {
		c.Stderr = &lineWriter{mu: b.outMu, w: c.Stderr}
	}
	return &c, b.inst
}

// lineWriter forwards complete lines to w under mu and keeps a partial
// last line until its end arrives (or Flush).
type lineWriter struct {
	mu      *sync.Mutex
	w       io.Writer
	pending []byte
}

// Write implements io.Writer.
func (l *lineWriter) Write(p []byte) (int, error) {
	l.pending = append(l.pending, p...)
	end := bytes.LastIndexByte(l.pending, '\n')
	if end < 0 {
		return len(p), nil
	}
	l.mu.Lock()
	_, err := l.w.Write(l.pending[:end+1])
	l.mu.Unlock()
	l.pending = append(l.pending[:0], l.pending[end+1:]...)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// splittable reports whether a scan runs as parallel instances: its
// connector deals the table out in splits.
func (b *builder) splittable(n *physical.TableSourceScan) bool {
	if b.env.Connectors == nil {
		return false
	}
	f, err := b.env.Connectors.Lookup(n.Table)
	if err != nil {
		return false
	}
	sf, ok := f.(connectors.SplittableFactory)
	if !ok {
		return false
	}
	spec, err := b.sourceSpec(n)
	return err == nil && sf.Splittable(spec)
}

// sourceSpec tells a scan's source what the plan reads: the projection,
// the ROW fields read downstream, the filters and the limit the source
// accepted.
func (b *builder) sourceSpec(n *physical.TableSourceScan) (connectors.SourceSpec, error) {
	filters, err := logical.CatalogExprs(n.Filters, n.Table, n.Projection)
	if err != nil {
		return connectors.SourceSpec{}, err
	}
	return connectors.SourceSpec{Table: n.Table, Projection: n.Projection, ReadFields: b.readFields[n],
		Filters: filters, Limit: n.Limit}, nil
}

// setSplit gives a parallel scan instance its split.
func (b *builder) setSplit(src vectorized.Source) error {
	if b.inst < 0 {
		return nil
	}
	ss, ok := src.(connectors.SplitSource)
	if !ok {
		return fmt.Errorf("internal: the source of a parallel scan cannot read splits")
	}
	return ss.SetSplit(b.inst, b.par)
}
