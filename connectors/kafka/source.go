package kafka

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/tablerun/tablerun/connectors/format"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/expr"
)

// Source reads the partitions of a kafka table that its instance owns
// (OwnerOf: Flink's assignment of partitions to source readers). It
// resolves every partition's start offset when it starts (or takes it
// from the restored checkpoint), reads with franz-go's direct partition
// consumer and emits a batch per poll (at most the batch size). Its
// position is the next offset of every owned partition, counting the
// transaction markers (control records are read and skipped, so a
// partition's position reaches its end offset).
type Source struct {
	cfg       *Config
	physical  types.Schema
	proj      []int
	out       types.Schema
	schema    *arrow.Schema
	batchSize int
	index     int
	count     int
	// Metadata columns (metadata.go): the output columns that are the
	// value format's metadata (fmtMeta[i]: its column in valRows, or -1)
	// and the record's (recMeta[i]: its column in metaRows, or -1).
	fmtMeta, recMeta []int
	metaRows         *metaReader
	recKeys          []string

	cl       *kgo.Client
	adm      *kadm.Client
	pos      map[TopicPartition]int64 // next offset of each owned partition (emitted so far)
	stop     map[TopicPartition]int64 // bounded: the offset each partition stops at
	done     map[TopicPartition]bool
	restored map[TopicPartition]int64
	known    map[TopicPartition]bool // partitions discovered (owned or not)
	started  bool
	commit   *committer       // nil: offsets are not committed on checkpoints
	wms      *splitWatermarks // nil: no watermark pushed (watermark.go)

	// Decoding: the value decoder appends each message's rows to
	// valRows; with a key format the key decoder appends one row per
	// message to keyRows (when a projected key column is not in the
	// value) and keyIndex maps every value row to its key row.
	valDec, keyDec   format.Decoder
	valRows, keyRows *format.Rows
	keyScratch       *format.Rows
	keyIndex         []int32
	needKeyRows      bool
	valuePos, keyPos []int // by physical column: its position in the value / key fields, or -1
	rows             int
}

var (
	_ vectorized.CheckpointedSource = (*Source)(nil)
)

// NewSource returns a source of the table with physical columns physical
// and the METADATA columns of keys meta (the metadata keys of the source
// columns after the physical ones: catalog.Table.SourceSchema),
// producing the columns proj (indexes into physical followed by meta;
// nil: all physical columns).
func NewSource(cfg *Config, physical types.Schema, meta []string, proj []int, batchSize int) (*Source, error) {
	if proj == nil {
		proj = make([]int, len(physical))
		for i := range proj {
			proj[i] = i
		}
	}
	if batchSize <= 0 {
		batchSize = vectorized.DefaultBatchSize
	}
	if (cfg.StartupMode == ModeGroup || cfg.BoundedMode == ModeGroup) && cfg.GroupID == "" {
		return nil, fmt.Errorf("Property group.id is required when using committed offset for offsets initializer")
	}
	if cfg.Upsert && cfg.WatermarkIdleSet {
		return nil, fmt.Errorf("not supported yet: '%s' on the 'upsert-kafka' table %s (its watermark is assigned after ChangelogNormalize, not per partition; 'table.exec.source.idle-timeout' marks the whole source idle)", KeyWatermarkIdleTimeout, cfg.Table)
	}
	if cfg.commitWithoutGroup {
		return nil, fmt.Errorf("Property group.id is required when offset commit is enabled")
	}
	s := &Source{cfg: cfg, physical: physical, proj: proj, batchSize: batchSize, count: 1}
	if cfg.CommitOnCheckpoint {
		s.commit = newCommitter()
	}
	var fmtKeys []string
	var fmtTypes types.Schema
	if len(meta) > 0 {
		avail := cfg.ValueFormat.Format.Metadata()
		for _, p := range proj {
			s.fmtMeta, s.recMeta = append(s.fmtMeta, -1), append(s.recMeta, -1)
			if p < len(physical) {
				continue
			}
			if p >= len(physical)+len(meta) {
				return nil, fmt.Errorf("kafka: projection index %d out of range", p)
			}
			key, i := meta[p-len(physical)], len(s.fmtMeta)-1
			if fk, ok := strings.CutPrefix(key, valueMetaPrefix); ok {
				found := false
				for _, m := range avail {
					if m.Key == fk {
						s.fmtMeta[i] = len(cfg.ValueFormat.Fields) + len(fmtKeys)
						fmtKeys = append(fmtKeys, fk)
						fmtTypes = append(fmtTypes, types.Field{Name: key, Type: m.Type})
						found = true
					}
				}
				if !found {
					return nil, fmt.Errorf("kafka: the value format '%s' has no metadata key '%s'", cfg.ValueFormat.Name, fk)
				}
				continue
			}
			s.recMeta[i] = len(s.recKeys)
			s.recKeys = append(s.recKeys, key)
		}
	}
	for i, p := range proj {
		switch {
		case p < 0:
			return nil, fmt.Errorf("kafka: projection index %d out of range", p)
		case p < len(physical):
			s.out = append(s.out, physical[p])
		case s.fmtMeta != nil && s.fmtMeta[i] >= 0:
			s.out = append(s.out, types.Field{Name: meta[p-len(physical)], Type: fmtTypes[s.fmtMeta[i]-len(cfg.ValueFormat.Fields)].Type})
		case s.recMeta != nil && s.recMeta[i] >= 0:
			t, _ := (&catalog.MetadataKeys{Keys: connectorMetadata}).Lookup(meta[p-len(physical)])
			if t.Kind == 0 {
				return nil, fmt.Errorf("kafka: unknown metadata key '%s'", meta[p-len(physical)])
			}
			s.out = append(s.out, types.Field{Name: meta[p-len(physical)], Type: t})
		default:
			return nil, fmt.Errorf("kafka: projection index %d out of range", p)
		}
	}
	as, err := types.ArrowSchema(s.out)
	if err != nil {
		return nil, err
	}
	s.schema = as
	s.valuePos = make([]int, len(physical))
	s.keyPos = make([]int, len(physical))
	for i := range physical {
		s.valuePos[i], s.keyPos[i] = -1, -1
	}
	for j, v := range cfg.Value {
		s.valuePos[v] = j
	}
	for k, v := range cfg.Key {
		s.keyPos[v] = k
	}
	for _, p := range proj {
		if p < len(physical) && s.valuePos[p] < 0 && s.keyPos[p] >= 0 {
			s.needKeyRows = true
		}
	}
	if s.valDec, err = cfg.ValueFormat.Format.NewDecoder(cfg.ValueFormat.Fields, nil, fmtKeys); err != nil {
		return nil, err
	}
	if cfg.KeyFormat != nil {
		if s.keyDec, err = cfg.KeyFormat.Format.NewDecoder(cfg.KeyFormat.Fields, nil, nil); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// SetSplit implements connectors.SplitSource: instance index of count
// reads the partitions OwnerOf gives it.
func (s *Source) SetSplit(index, count int) error {
	if count < 1 || index < 0 || index >= count {
		return fmt.Errorf("kafka: bad split %d of %d", index, count)
	}
	s.index, s.count = index, count
	return nil
}

func (s *Source) clientOpts() []kgo.Opt {
	opts := []kgo.Opt{
		kgo.SeedBrokers(s.cfg.Brokers...),
		kgo.KeepControlRecords(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(200 * time.Millisecond),
		kgo.FetchMaxPartitionBytes(8 << 20),
		kgo.RetryTimeout(s.cfg.RequestTimeout),
	}
	if s.cfg.ReadCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	if id, ok := s.cfg.Properties["client.id"]; ok {
		opts = append(opts, kgo.ClientID(id))
	}
	return opts
}

// Open implements vectorized.Source: it connects and lists the topics'
// partitions, failing within the request timeout when the brokers are
// unreachable.
func (s *Source) Open(ctx context.Context) error {
	cl, err := kgo.NewClient(s.clientOpts()...)
	if err != nil {
		return fmt.Errorf("Kafka source of %s: %w", s.cfg.Table, err)
	}
	s.cl = cl
	s.adm = kadm.NewClient(cl)
	if s.commit != nil {
		s.commit.start(s.adm, s.cfg.GroupID, s.cfg.RequestTimeout)
	}
	s.pos = map[TopicPartition]int64{}
	s.done = map[TopicPartition]bool{}
	s.known = map[TopicPartition]bool{}
	if _, err := s.discover(ctx); err != nil {
		return err
	}
	if s.valRows, err = format.NewRows(s.valDec.Schema()); err != nil {
		return err
	}
	if len(s.recKeys) > 0 {
		if s.metaRows, err = newMetaReader(s.recKeys); err != nil {
			return err
		}
	}
	if s.keyDec != nil {
		if s.keyRows, err = format.NewRows(s.keyDec.Schema()); err != nil {
			return err
		}
		if s.keyScratch, err = format.NewRows(s.keyDec.Schema()); err != nil {
			return err
		}
	}
	return nil
}

// topicsDesc names what the source subscribes to, for messages.
func (s *Source) topicsDesc() string {
	if s.cfg.Pattern != nil {
		return "topic-pattern '" + strings.TrimSuffix(strings.TrimPrefix(s.cfg.Pattern.String(), "^(?:"), ")$") + "'"
	}
	return "topics [" + strings.Join(s.cfg.Topics, ", ") + "]"
}

// discover lists the subscribed topics' partitions and returns the new
// ones this instance owns.
func (s *Source) discover(ctx context.Context) ([]TopicPartition, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	var td kadm.TopicDetails
	var err error
	if s.cfg.Pattern != nil {
		td, err = s.adm.ListTopics(ctx)
	} else {
		td, err = s.adm.ListTopics(ctx, s.cfg.Topics...)
	}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("Failed to get metadata for %s from Kafka at %s within %s: %w", s.topicsDesc(), strings.Join(s.cfg.Brokers, ","), s.cfg.RequestTimeout, err)
	}
	var fresh []TopicPartition
	for _, name := range td.Names() {
		d := td[name]
		if s.cfg.Pattern != nil && (d.IsInternal || !s.cfg.Pattern.MatchString(name)) {
			continue
		}
		if d.Err != nil {
			return nil, fmt.Errorf("Failed to get metadata for topic '%s' from Kafka at %s: %w", name, strings.Join(s.cfg.Brokers, ","), d.Err)
		}
		for _, p := range d.Partitions.Numbers() {
			tp := TopicPartition{name, p}
			if s.known[tp] {
				continue
			}
			s.known[tp] = true
			if OwnerOf(tp, s.count) == s.index {
				fresh = append(fresh, tp)
			}
		}
	}
	sort.Slice(fresh, func(i, j int) bool {
		if fresh[i].Topic != fresh[j].Topic {
			return fresh[i].Topic < fresh[j].Topic
		}
		return fresh[i].Partition < fresh[j].Partition
	})
	return fresh, nil
}

// startOffsets resolves the start offset of each partition by the startup
// mode (first is false for partitions discovered while running, which
// start at their earliest offset, as Flink's do).
func (s *Source) startOffsets(ctx context.Context, tps []TopicPartition, first bool) (map[TopicPartition]int64, error) {
	out := map[TopicPartition]int64{}
	var rest []TopicPartition
	for _, tp := range tps {
		if o, ok := s.restored[tp]; ok {
			out[tp] = o
		} else {
			rest = append(rest, tp)
		}
	}
	if len(rest) == 0 {
		return out, nil
	}
	mode := s.cfg.StartupMode
	if !first || s.restored != nil {
		mode = ModeEarliest
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	topics := topicsOf(rest)
	var lo kadm.ListedOffsets
	var err error
	switch mode {
	case ModeEarliest:
		lo, err = s.adm.ListStartOffsets(ctx, topics...)
	case ModeLatest:
		lo, err = s.listEnd(ctx, topics)
	case ModeTimestamp:
		lo, err = s.adm.ListOffsetsAfterMilli(ctx, s.cfg.StartupTimestamp, topics...)
	case ModeSpecific:
		lo, err = s.adm.ListStartOffsets(ctx, topics...)
		if err == nil {
			for _, tp := range rest {
				if o, ok := s.cfg.StartupOffsets[tp.Partition]; ok {
					out[tp] = o
				}
			}
		}
	case ModeGroup:
		return s.groupOffsets(ctx, rest, out)
	}
	if err != nil {
		return nil, fmt.Errorf("Failed to list the offsets of %s from Kafka at %s: %w", s.topicsDesc(), strings.Join(s.cfg.Brokers, ","), err)
	}
	for _, tp := range rest {
		if _, ok := out[tp]; ok {
			continue
		}
		l, ok := lo.Lookup(tp.Topic, tp.Partition)
		if !ok || l.Err != nil {
			return nil, fmt.Errorf("Failed to list the offset of partition %s: %v", tp, l.Err)
		}
		out[tp] = l.Offset
	}
	return out, nil
}

func (s *Source) listEnd(ctx context.Context, topics []string) (kadm.ListedOffsets, error) {
	if s.cfg.ReadCommitted {
		return s.adm.ListCommittedOffsets(ctx, topics...)
	}
	return s.adm.ListEndOffsets(ctx, topics...)
}

// groupOffsets is group-offsets: the group's committed offsets, and for
// partitions without one properties.auto.offset.reset (none: fail).
func (s *Source) groupOffsets(ctx context.Context, tps []TopicPartition, out map[TopicPartition]int64) (map[TopicPartition]int64, error) {
	resp, err := s.adm.FetchOffsets(ctx, s.cfg.GroupID)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("Failed to fetch the committed offsets of group '%s' from Kafka at %s: %w", s.cfg.GroupID, strings.Join(s.cfg.Brokers, ","), err)
	}
	var missing []TopicPartition
	for _, tp := range tps {
		if r, ok := resp.Lookup(tp.Topic, tp.Partition); ok && r.Err == nil && r.At >= 0 {
			out[tp] = r.At
		} else {
			missing = append(missing, tp)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	reset := strings.ToLower(s.cfg.Properties["auto.offset.reset"])
	var lo kadm.ListedOffsets
	switch reset {
	case "earliest":
		lo, err = s.adm.ListStartOffsets(ctx, topicsOf(missing)...)
	case "latest":
		lo, err = s.listEnd(ctx, topicsOf(missing))
	default:
		var names []string
		for _, tp := range missing {
			names = append(names, tp.String())
		}
		return nil, fmt.Errorf("Undefined offset with no reset policy for partitions: [%s]", strings.Join(names, ", "))
	}
	if err != nil {
		return nil, err
	}
	for _, tp := range missing {
		l, ok := lo.Lookup(tp.Topic, tp.Partition)
		if !ok || l.Err != nil {
			return nil, fmt.Errorf("Failed to list the offset of partition %s: %v", tp, l.Err)
		}
		out[tp] = l.Offset
	}
	return out, nil
}

// stopOffsets resolves the bounded mode's stopping offsets.
func (s *Source) stopOffsets(ctx context.Context, tps []TopicPartition) (map[TopicPartition]int64, error) {
	out := map[TopicPartition]int64{}
	if len(tps) == 0 {
		return out, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	topics := topicsOf(tps)
	var lo kadm.ListedOffsets
	var err error
	switch s.cfg.BoundedMode {
	case ModeLatest, ModeSpecific:
		lo, err = s.listEnd(ctx, topics)
		if err == nil && s.cfg.BoundedMode == ModeSpecific {
			for _, tp := range tps {
				if o, ok := s.cfg.BoundedOffsets[tp.Partition]; ok {
					out[tp] = o
				}
			}
		}
	case ModeTimestamp:
		lo, err = s.adm.ListOffsetsAfterMilli(ctx, s.cfg.BoundedTimestamp, topics...)
	case ModeGroup:
		resp, ferr := s.adm.FetchOffsets(ctx, s.cfg.GroupID)
		if ferr == nil {
			ferr = resp.Error()
		}
		if ferr != nil {
			return nil, ferr
		}
		lo, err = s.listEnd(ctx, topics)
		for _, tp := range tps {
			if r, ok := resp.Lookup(tp.Topic, tp.Partition); ok && r.Err == nil && r.At >= 0 {
				out[tp] = r.At
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("Failed to list the stopping offsets of %s: %w", s.topicsDesc(), err)
	}
	for _, tp := range tps {
		if _, ok := out[tp]; ok {
			continue
		}
		l, ok := lo.Lookup(tp.Topic, tp.Partition)
		if !ok || l.Err != nil {
			return nil, fmt.Errorf("Failed to list the offset of partition %s: %v", tp, l.Err)
		}
		out[tp] = l.Offset
	}
	return out, nil
}

func topicsOf(tps []TopicPartition) []string {
	seen := map[string]bool{}
	var out []string
	for _, tp := range tps {
		if !seen[tp.Topic] {
			seen[tp.Topic] = true
			out = append(out, tp.Topic)
		}
	}
	return out
}

// assign starts reading partitions at the given offsets.
func (s *Source) assign(ctx context.Context, tps []TopicPartition, first bool) error {
	starts, err := s.startOffsets(ctx, tps, first)
	if err != nil {
		return err
	}
	if s.cfg.Bounded() {
		stops, err := s.stopOffsets(ctx, tps)
		if err != nil {
			return err
		}
		if s.stop == nil {
			s.stop = map[TopicPartition]int64{}
		}
		for tp, o := range stops {
			s.stop[tp] = o
		}
	}
	add := map[string]map[int32]kgo.Offset{}
	for _, tp := range tps {
		o := starts[tp]
		s.pos[tp] = o
		if s.wms != nil {
			s.wms.add(tp)
		}
		if s.cfg.Bounded() && o >= s.stop[tp] {
			s.done[tp] = true
			continue
		}
		if add[tp.Topic] == nil {
			add[tp.Topic] = map[int32]kgo.Offset{}
		}
		add[tp.Topic][tp.Partition] = kgo.NewOffset().At(o)
	}
	if len(add) > 0 {
		s.cl.AddConsumePartitions(add)
	}
	return nil
}

// finished reports a bounded source whose partitions all reached their
// stopping offsets.
func (s *Source) finished() bool {
	if !s.cfg.Bounded() {
		return false
	}
	for tp := range s.pos {
		if !s.done[tp] {
			return false
		}
	}
	return true
}

type poll struct {
	fs   kgo.Fetches
	tick bool // look for new partitions
	idle bool // look for idle partitions
}

// tickInto sends p into ch every interval until ctx ends (the partition
// discovery and idleness ticks of Run).
func tickInto(ctx context.Context, every time.Duration, ch chan<- poll, p poll) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			select {
			case ch <- p:
			case <-ctx.Done():
				return
			}
		}
	}
}

// Run implements vectorized.Source.
func (s *Source) Run(ctx context.Context, out vectorized.Collector) error {
	var owned []TopicPartition
	for tp := range s.known {
		if OwnerOf(tp, s.count) == s.index {
			owned = append(owned, tp)
		}
	}
	sort.Slice(owned, func(i, j int) bool {
		if owned[i].Topic != owned[j].Topic {
			return owned[i].Topic < owned[j].Topic
		}
		return owned[i].Partition < owned[j].Partition
	})
	if err := s.assign(ctx, owned, true); err != nil {
		return err
	}
	if s.finished() {
		return nil
	}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := make(chan poll)
	go func() {
		for {
			fs := s.cl.PollRecords(pctx, s.batchSize)
			if pctx.Err() != nil || fs.IsClientClosed() {
				return
			}
			select {
			case ch <- poll{fs: fs}:
			case <-pctx.Done():
				return
			}
		}
	}()
	if s.cfg.Discovery > 0 && !s.cfg.Bounded() {
		go tickInto(pctx, s.cfg.Discovery, ch, poll{tick: true})
	}
	if s.wms != nil && s.wms.timeout > 0 {
		go tickInto(pctx, s.wms.idleTick(), ch, poll{idle: true})
	}
	for {
		p, _, err := vectorized.WaitOn(ctx, out, ch)
		if err != nil {
			return err
		}
		if p.idle {
			if err := s.emitWatermark(ctx, out); err != nil {
				return err
			}
			continue
		}
		if p.tick {
			fresh, err := s.discover(ctx)
			if err != nil {
				return err
			}
			if err := s.assign(ctx, fresh, false); err != nil {
				return err
			}
			continue
		}
		if err := s.take(ctx, p.fs, out); err != nil {
			return err
		}
		if s.finished() {
			return nil
		}
	}
}

// take turns a poll's records into batches.
func (s *Source) take(ctx context.Context, fs kgo.Fetches, out vectorized.Collector) error {
	var ferr error
	fs.EachError(func(topic string, partition int32, err error) {
		// franz-go retries what can be retried (a broker that is down or
		// restarting, a leader that moved); the job fails on what Kafka
		// answers cannot be (authorization, a deleted topic, …).
		var ke *kerr.Error
		if ferr != nil || !errors.As(err, &ke) || ke.Retriable {
			return
		}
		ferr = fmt.Errorf("Kafka source of %s: fetching topic '%s' partition %d from %s: %w", s.cfg.Table, topic, partition, strings.Join(s.cfg.Brokers, ","), err)
	})
	if ferr != nil {
		return ferr
	}
	var err error
	now := time.Now()
	fs.EachRecord(func(r *kgo.Record) {
		if err != nil {
			return
		}
		tp := TopicPartition{r.Topic, r.Partition}
		if s.done[tp] || r.Offset < s.pos[tp] {
			return
		}
		if s.stop != nil && r.Offset >= s.stop[tp] {
			s.markDone(tp)
			return
		}
		s.pos[tp] = r.Offset + 1
		if !r.Attrs.IsControl() {
			before := s.valRows.Len()
			err = s.appendRecord(r)
			if s.wms != nil && err == nil {
				s.wms.record(tp, s.valRows.Len()-before, now)
			}
		}
		if s.stop != nil && s.pos[tp] >= s.stop[tp] {
			s.markDone(tp)
		}
		if err == nil && s.rows >= s.batchSize {
			err = s.flush(ctx, out)
		}
	})
	if err != nil {
		return err
	}
	if err := s.flush(ctx, out); err != nil {
		return err
	}
	return s.emitWatermark(ctx, out)
}

func (s *Source) markDone(tp TopicPartition) {
	if s.done[tp] {
		return
	}
	s.done[tp] = true
	s.cl.PauseFetchPartitions(map[string][]int32{tp.Topic: {tp.Partition}})
}

// appendRecord decodes one record.
func (s *Source) appendRecord(r *kgo.Record) error {
	keyRow := int32(-1)
	if s.needKeyRows {
		keyRow = int32(s.keyRows.Len())
		if err := s.decodeKey(r, s.keyRows); err != nil {
			return err
		}
		if s.keyRows.Len() == int(keyRow) {
			return nil // an ignored parse error
		}
	}
	before := s.valRows.Len()
	if r.Value == nil {
		if !s.cfg.Upsert {
			return nil // a tombstone: the kafka connector skips it, as Flink's
		}
		if err := s.appendTombstone(r); err != nil {
			return err
		}
	} else if err := s.valDec.Decode(r.Value, s.valRows); err != nil {
		return s.parseError(r, "value", err)
	}
	for i := before; i < s.valRows.Len(); i++ {
		s.keyIndex = append(s.keyIndex, keyRow)
	}
	if s.metaRows != nil {
		if err := s.metaRows.appendN(r, s.valRows.Len()-before); err != nil {
			return err
		}
	}
	s.rows = s.valRows.Len()
	return nil
}

// decodeKey appends the record's key row to rows (NULLs for a record
// without a key).
func (s *Source) decodeKey(r *kgo.Record, rows *format.Rows) error {
	if r.Key == nil {
		for i := range rows.Schema() {
			rows.Builder(i).AppendNull()
		}
		rows.Commit(changelog.Insert)
		return nil
	}
	if err := s.keyDec.Decode(r.Key, rows); err != nil {
		return s.parseError(r, "key", err)
	}
	return nil
}

// appendTombstone appends the DELETE row of an upsert-kafka tombstone:
// the key's fields, NULL elsewhere.
func (s *Source) appendTombstone(r *kgo.Record) error {
	if err := s.decodeKey(r, s.keyScratch); err != nil {
		return err
	}
	if s.keyScratch.Len() == 0 {
		return nil
	}
	kb := s.keyScratch.Batch()
	defer kb.Rec.Release()
	for j, v := range s.cfg.Value {
		b := s.valRows.Builder(j)
		if k := s.keyPos[v]; k >= 0 {
			t := s.cfg.KeyFormat.Fields[k].Type
			if err := types.AppendValue(b, types.GetValue(kb.Rec.Column(k), 0, t), t); err != nil {
				return err
			}
			continue
		}
		b.AppendNull()
	}
	s.valRows.Commit(changelog.Delete)
	return nil
}

func (s *Source) parseError(r *kgo.Record, part string, err error) error {
	return fmt.Errorf("Failed to deserialize the %s of the consumer record of topic '%s', partition %d, offset %d: %w", part, r.Topic, r.Partition, r.Offset, err)
}

// flush emits the rows decoded so far.
func (s *Source) flush(ctx context.Context, out vectorized.Collector) error {
	if s.valRows.Len() == 0 {
		return nil
	}
	vb := s.valRows.Batch()
	defer vb.Rec.Release()
	var keys arrow.RecordBatch // the key row of every value row
	if s.needKeyRows {
		kb := s.keyRows.Batch()
		var err error
		keys, err = expr.Take(kb.Rec, s.keyIndex)
		kb.Rec.Release()
		if err != nil {
			return err
		}
		defer keys.Release()
	}
	n := vb.NumRows()
	var metaCols []arrow.Array
	if s.metaRows != nil {
		metaCols = s.metaRows.columns()
		defer func() {
			for _, a := range metaCols {
				a.Release()
			}
		}()
	}
	arrs := make([]arrow.Array, len(s.proj))
	for i, p := range s.proj {
		switch {
		case s.fmtMeta != nil && s.fmtMeta[i] >= 0:
			arrs[i] = vb.Rec.Column(s.fmtMeta[i])
			arrs[i].Retain()
		case s.recMeta != nil && s.recMeta[i] >= 0:
			arrs[i] = metaCols[s.recMeta[i]]
			arrs[i].Retain()
		case s.valuePos[p] >= 0:
			arrs[i] = vb.Rec.Column(s.valuePos[p])
			arrs[i].Retain()
		case s.keyPos[p] >= 0:
			arrs[i] = keys.Column(s.keyPos[p])
			arrs[i].Retain()
		default:
			arrs[i] = array.MakeArrayOfNull(vectorized.Mem, s.schema.Field(i).Type, n)
		}
	}
	rec := array.NewRecordBatch(s.schema, arrs, int64(n))
	for _, a := range arrs {
		a.Release()
	}
	s.keyIndex = s.keyIndex[:0]
	s.rows = 0
	if s.wms != nil {
		if err := s.wms.observe(rec); err != nil {
			rec.Release()
			return err
		}
		if err := s.wms.active(ctx, out); err != nil {
			rec.Release()
			return err
		}
	}
	if err := out.Emit(ctx, vectorized.Batch{Rec: rec, Kinds: vb.Kinds}); err != nil {
		return err
	}
	return s.emitWatermark(ctx, out)
}

// Close implements vectorized.Source.
func (s *Source) Close() error {
	for _, r := range []*format.Rows{s.valRows, s.keyRows, s.keyScratch} {
		if r != nil {
			r.Release()
		}
	}
	s.valRows, s.keyRows, s.keyScratch = nil, nil, nil
	if s.metaRows != nil {
		s.metaRows.release()
		s.metaRows = nil
	}
	if s.commit != nil {
		s.commit.close(min(s.cfg.RequestTimeout, 5*time.Second))
	}
	if s.cl != nil {
		s.cl.Close()
		s.cl = nil
	}
	return nil
}
