package kafka

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/tablerun/tablerun/connectors/format"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// Sink writes rows as records of the table's topic.
//
// With sink.delivery-guarantee 'none' records are sent asynchronously;
// 'at-least-once' (the default) also waits on every checkpoint barrier
// until every record sent so far is acknowledged (PreCommit), so a
// restored job re-sends at most what followed the checkpoint.
// 'exactly-once' writes the records between two checkpoints in one Kafka
// transaction of a producer whose transactional id is
// <sink.transactional-id-prefix>-<subtask>-<checkpoint id> (Flink's
// naming): PreCommit flushes it and records the transaction (id, producer
// id and epoch) in the checkpoint, Commit ends it with a commit once the
// checkpoint is complete, and a restored sink commits the transactions
// its checkpoint recorded (again: a commit is idempotent) and aborts the
// ones begun after it (lingering transactions that would hold back
// read_committed consumers).
type Sink struct {
	cfg      *Config
	physical types.Schema
	// the input columns of the persisted METADATA columns 'headers' and
	// 'timestamp' (the last one of each wins)
	headersCol, timestampCol []int
	subtask                  int
	parallelism              int

	keyFields, valueFields types.Schema
	keyEnc, valEnc         format.Encoder

	cl         *kgo.Client // none and at-least-once
	partitions int32       // of the topic, for the fixed partitioner
	errMu      sync.Mutex
	err        error // first failed produce

	// exactly-once
	nextID  int64       // the checkpoint id the open transaction belongs to
	txn     *kgo.Client // nil when no transaction is open
	txnID   string
	mu      sync.Mutex
	pending []*committable
	upsert  bool
	// cleaned: the transactions a previous run of this subtask may have
	// left open were aborted (RestoreState, or the first transaction of
	// a fresh start).
	cleaned bool
	// final: PreCommitFinal recorded the last transaction in the final
	// state; Finish waits for finalDone (closed by the Commit of
	// checkpoint finalID or later) or a failed commit (finalErr).
	final       bool
	finalID     int64
	finalDone   chan struct{}
	finalClosed bool
	finalErr    error

	// upsert-kafka's sink.buffer-flush.*: the last record per key since
	// the last flush, in first-seen order (Flink's ReducingUpsertWriter).
	buffered  map[string]int
	buffer    []*kgo.Record
	lastFlush time.Time
}

// committable is one pre-committed transaction.
type committable struct {
	checkpoint int64
	txnID      string
	producerID int64
	epoch      int16
	cl         *kgo.Client // the producer, until committed (nil after a restore)
}

// NewSink returns the sink of one parallel instance, writing rows of
// schema (the physical columns, then the persisted METADATA columns of
// keys meta: catalog.Table.SinkSchema).
func NewSink(cfg *Config, schema types.Schema, meta []string, subtask, parallelism int) (*Sink, error) {
	if len(cfg.Topics) != 1 {
		if cfg.Pattern != nil {
			return nil, fmt.Errorf("not supported yet: writing to a 'topic-pattern' (set 'topic' to the one topic to write to)")
		}
		return nil, fmt.Errorf("not supported yet: writing to several topics without a 'topic' metadata column")
	}
	if parallelism < 1 {
		parallelism = 1
	}
	if len(meta) > len(schema) {
		return nil, fmt.Errorf("kafka: %d metadata columns in a schema of %d", len(meta), len(schema))
	}
	physical := schema[:len(schema)-len(meta)]
	s := &Sink{cfg: cfg, physical: physical, subtask: subtask, parallelism: parallelism, nextID: 1, upsert: cfg.Upsert}
	for j, k := range meta {
		col := len(physical) + j
		switch t := schema[col].Type; {
		case k == MetaHeaders && t.EqualIgnoringNull(headersType):
			s.headersCol = append(s.headersCol, col)
		case k == MetaTimestamp && t.EqualIgnoringNull(timestampType):
			s.timestampCol = append(s.timestampCol, col)
		default:
			return nil, fmt.Errorf("kafka: cannot write metadata '%s' from a column of type %s", k, t)
		}
	}
	for _, k := range cfg.Key {
		f := physical[k]
		f.Name = strings.TrimPrefix(f.Name, cfg.KeyPrefix)
		s.keyFields = append(s.keyFields, f)
	}
	for _, v := range cfg.Value {
		s.valueFields = append(s.valueFields, physical[v])
	}
	var err error
	if cfg.KeyFormat != nil {
		if s.keyEnc, err = cfg.KeyFormat.Format.NewEncoder(s.keyFields); err != nil {
			return nil, err
		}
	}
	if s.valEnc, err = cfg.ValueFormat.Format.NewEncoder(s.valueFields); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Sink) topic() string { return s.cfg.Topics[0] }

func (s *Sink) baseOpts() []kgo.Opt {
	opts := []kgo.Opt{
		kgo.SeedBrokers(s.cfg.Brokers...),
		kgo.DefaultProduceTopic(s.topic()),
		kgo.RetryTimeout(s.cfg.RequestTimeout),
		kgo.ProducerLinger(5 * time.Millisecond),
		kgo.ProducerBatchMaxBytes(1 << 20),
	}
	switch s.cfg.Partitioner {
	case "fixed":
		opts = append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	case "round-robin":
		opts = append(opts, kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	default:
		// Kafka's default partitioner: murmur2 of the key, sticky
		// batches for records without a key.
		opts = append(opts, kgo.RecordPartitioner(kgo.UniformBytesPartitioner(64<<10, true, true, nil)))
	}
	if s.cfg.Guarantee == GuaranteeNone {
		opts = append(opts, kgo.DisableIdempotentWrite(), kgo.RequiredAcks(kgo.LeaderAck()))
	}
	if id, ok := s.cfg.Properties["client.id"]; ok {
		opts = append(opts, kgo.ClientID(id))
	}
	return opts
}

// Open implements connectors.Sink: it checks that the topic exists (and
// learns its partitions), failing within the request timeout when the
// brokers are unreachable.
func (s *Sink) Open(ctx context.Context) error {
	cl, err := kgo.NewClient(s.baseOpts()...)
	if err != nil {
		return fmt.Errorf("Kafka sink of %s: %w", s.cfg.Table, err)
	}
	tctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	td, err := kadm.NewClient(cl).ListTopics(tctx, s.topic())
	if err == nil && tctx.Err() != nil {
		err = tctx.Err()
	}
	if err != nil {
		cl.Close()
		return fmt.Errorf("Failed to get metadata for topic '%s' from Kafka at %s within %s: %w", s.topic(), strings.Join(s.cfg.Brokers, ","), s.cfg.RequestTimeout, err)
	}
	if d, ok := td[s.topic()]; ok && d.Err == nil {
		s.partitions = int32(len(d.Partitions))
	}
	if s.cfg.Guarantee == GuaranteeExactlyOnce {
		cl.Close() // each transaction has a producer of its own
		return nil
	}
	s.cl = cl
	return nil
}

func (s *Sink) setErr(err error) {
	s.errMu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.errMu.Unlock()
}

func (s *Sink) firstErr() error {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.err
}

// Write implements connectors.Sink.
func (s *Sink) Write(ctx context.Context, b vectorized.Batch) error {
	if err := s.firstErr(); err != nil {
		return err
	}
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	recs, err := s.records(b)
	if err != nil {
		return err
	}
	if s.cfg.BufferFlushRows > 0 {
		if s.buffered == nil {
			s.buffered, s.lastFlush = map[string]int{}, time.Now()
		}
		for _, r := range recs {
			if r == nil {
				continue
			}
			if i, ok := s.buffered[string(r.Key)]; ok {
				s.buffer[i] = r
				continue
			}
			s.buffered[string(r.Key)] = len(s.buffer)
			s.buffer = append(s.buffer, r)
		}
		if len(s.buffer) >= s.cfg.BufferFlushRows || time.Since(s.lastFlush) >= s.cfg.BufferFlushPeriod {
			return s.flushBuffer(ctx)
		}
		return nil
	}
	return s.produce(ctx, recs)
}

// flushBuffer sends the buffered upserts.
func (s *Sink) flushBuffer(ctx context.Context) error {
	recs := s.buffer
	s.buffer, s.buffered, s.lastFlush = nil, map[string]int{}, time.Now()
	return s.produce(ctx, recs)
}

func (s *Sink) produce(ctx context.Context, recs []*kgo.Record) error {
	if len(recs) == 0 {
		return nil
	}
	cl := s.cl
	if s.cfg.Guarantee == GuaranteeExactlyOnce {
		var err error
		if cl, err = s.beginTxn(ctx); err != nil {
			return err
		}
	}
	for _, r := range recs {
		if r == nil {
			continue
		}
		cl.Produce(ctx, r, func(r *kgo.Record, err error) {
			if err != nil {
				s.setErr(fmt.Errorf("Kafka sink of %s: writing to topic '%s': %w", s.cfg.Table, r.Topic, err))
			}
		})
	}
	return nil
}

// records encodes a batch's rows. Updates and deletes are written as
// upserts (upsert-kafka: -U rows are dropped, -D rows are tombstones);
// the kafka sink takes inserts only, or what its value format encodes.
func (s *Sink) records(b vectorized.Batch) ([]*kgo.Record, error) {
	n := b.NumRows()
	var keys, values [][]byte
	if s.keyEnc != nil {
		kr, err := project(b.Rec, s.cfg.Key, s.keyFields)
		if err != nil {
			return nil, err
		}
		keys, err = encodeAll(s.keyEnc, kr, func(int) changelog.RowKind { return changelog.Insert })
		kr.Release()
		if err != nil {
			return nil, err
		}
	}
	vr, err := project(b.Rec, s.cfg.Value, s.valueFields)
	if err != nil {
		return nil, err
	}
	values, err = encodeAll(s.valEnc, vr, b.Kind)
	vr.Release()
	if err != nil {
		return nil, err
	}
	out := make([]*kgo.Record, n)
	for i := 0; i < n; i++ {
		kind := b.Kind(i)
		r := &kgo.Record{Topic: s.topic()}
		if keys != nil {
			r.Key = keys[i]
		}
		switch kind {
		case changelog.UpdateBefore:
			if s.upsert {
				continue // the +U that follows replaces the key's value
			}
			r.Value = values[i]
		case changelog.Delete:
			if s.upsert {
				r.Value = nil // a tombstone
			} else {
				r.Value = values[i]
			}
		default:
			r.Value = values[i]
		}
		if err := s.writeMetadata(b.Rec, i, r); err != nil {
			return nil, err
		}
		if s.cfg.Partitioner == "fixed" {
			p := s.partitions
			if p <= 0 {
				p = 1
			}
			r.Partition = int32(s.subtask) % p
		}
		out[i] = r
	}
	return out, nil
}

// writeMetadata sets the headers and the timestamp of r from row i's
// persisted METADATA columns (NULL: none, and the producer's time).
func (s *Sink) writeMetadata(rec arrow.RecordBatch, i int, r *kgo.Record) error {
	for _, c := range s.headersCol {
		col := rec.Column(c)
		if col.IsNull(i) {
			continue
		}
		m, ok := types.GetValue(col, i, headersType).(*types.MapValue)
		if !ok {
			return fmt.Errorf("kafka: headers of row %d are not a map", i)
		}
		r.Headers = r.Headers[:0]
		for j := range m.Keys {
			k, _ := m.Keys[j].(string)
			v, _ := m.Values[j].([]byte)
			r.Headers = append(r.Headers, kgo.RecordHeader{Key: k, Value: v})
		}
	}
	for _, c := range s.timestampCol {
		col := rec.Column(c)
		if col.IsNull(i) {
			continue
		}
		ts, ok := col.(*array.Timestamp)
		if !ok {
			return fmt.Errorf("kafka: timestamp of row %d is not a timestamp", i)
		}
		us := int64(ts.Value(i))
		if ts.DataType().(*arrow.TimestampType).Unit == arrow.Nanosecond {
			us /= 1000
		}
		r.Timestamp = time.UnixMilli(floorDiv(us, 1000))
	}
	return nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// flush waits for every record sent so far.
func (s *Sink) flush(ctx context.Context, cl *kgo.Client) error {
	if cl == nil {
		return s.firstErr()
	}
	if err := cl.Flush(ctx); err != nil {
		return fmt.Errorf("Kafka sink of %s: flushing: %w", s.cfg.Table, err)
	}
	return s.firstErr()
}

// Finish implements connectors.Sink: it flushes (and commits the open
// transaction and every pending one).
func (s *Sink) Finish(ctx context.Context) error {
	if err := s.flushBuffer(ctx); err != nil {
		return err
	}
	if s.cfg.Guarantee != GuaranteeExactlyOnce {
		return s.flush(ctx, s.cl)
	}
	s.mu.Lock()
	final, done := s.final, s.finalDone
	s.mu.Unlock()
	if final {
		select {
		case <-done:
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.finalErr
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if s.txn != nil {
		if err := s.preCommit(ctx, s.nextID); err != nil {
			return err
		}
	}
	return s.Commit(ctx, 1<<62)
}

// Close implements connectors.Sink. Uncommitted transactions stay open
// for a restored sink to commit or abort.
func (s *Sink) Close() error {
	if s.cl != nil {
		s.cl.Close()
		s.cl = nil
	}
	if s.txn != nil {
		s.txn.Close()
		s.txn = nil
	}
	s.mu.Lock()
	for _, c := range s.pending {
		if c.cl != nil {
			c.cl.Close()
			c.cl = nil
		}
	}
	s.mu.Unlock()
	return nil
}

// ---- checkpoints ----

// PreCommit implements connectors.TwoPhaseSink: at-least-once flushes;
// exactly-once flushes the open transaction and records it.
func (s *Sink) PreCommit(ctx context.Context, id int64, w vectorized.StateWriter) error {
	if err := s.flushBuffer(ctx); err != nil {
		return err
	}
	switch s.cfg.Guarantee {
	case GuaranteeNone:
		return s.firstErr()
	case GuaranteeAtLeastOnce:
		return s.flush(ctx, s.cl)
	}
	if s.txn != nil {
		if err := s.preCommit(ctx, id); err != nil {
			return err
		}
	}
	s.nextID = id + 1
	return s.writePending(w)
}

func (s *Sink) preCommit(ctx context.Context, id int64) error {
	if err := s.flush(ctx, s.txn); err != nil {
		return err
	}
	pid, epoch, err := s.txn.ProducerID(ctx)
	if err != nil {
		return fmt.Errorf("Kafka sink of %s: transaction %s: %w", s.cfg.Table, s.txnID, err)
	}
	s.mu.Lock()
	s.pending = append(s.pending, &committable{checkpoint: id, txnID: s.txnID, producerID: pid, epoch: epoch, cl: s.txn})
	s.mu.Unlock()
	s.txn = nil
	return nil
}

// PreCommitFinal implements connectors.FinalCheckpointSink: the open
// transaction is pre-committed into the final state, and committed with
// the next checkpoint.
func (s *Sink) PreCommitFinal(ctx context.Context, w vectorized.StateWriter) error {
	if err := s.flushBuffer(ctx); err != nil {
		return err
	}
	if s.cfg.Guarantee != GuaranteeExactlyOnce {
		return s.flush(ctx, s.cl)
	}
	if s.txn != nil {
		if err := s.preCommit(ctx, s.nextID); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.final, s.finalID, s.finalDone = true, s.nextID, make(chan struct{})
	s.mu.Unlock()
	s.nextID++
	if err := s.writePending(w); err != nil {
		return err
	}
	return nil
}

// beginTxn returns the producer of the open transaction, beginning one.
func (s *Sink) beginTxn(ctx context.Context) (*kgo.Client, error) {
	if s.txn != nil {
		return s.txn, nil
	}
	if !s.cleaned {
		// A fresh start: abort what an earlier run (killed before its
		// first checkpoint completed) left open, as Flink does.
		if err := s.abortLingering(ctx, s.subtask, 0); err != nil {
			return nil, err
		}
		s.cleaned = true
	}
	id := fmt.Sprintf("%s-%d-%d", s.cfg.TransactionalID, s.subtask, s.nextID)
	opts := append(s.baseOpts(), kgo.TransactionalID(id), kgo.TransactionTimeout(s.cfg.TxnTimeout))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	if err := cl.BeginTransaction(); err != nil {
		cl.Close()
		return nil, fmt.Errorf("Kafka sink of %s: beginning transaction %s: %w", s.cfg.Table, id, err)
	}
	s.txn, s.txnID = cl, id
	return cl, nil
}

// Commit implements connectors.TwoPhaseSink: it commits the transactions
// of every checkpoint up to id.
func (s *Sink) Commit(ctx context.Context, id int64) error {
	if s.cfg.Guarantee != GuaranteeExactlyOnce {
		return nil
	}
	s.mu.Lock()
	var due, rest []*committable
	for _, c := range s.pending {
		if c.checkpoint <= id {
			due = append(due, c)
		} else {
			rest = append(rest, c)
		}
	}
	s.pending = rest
	s.mu.Unlock()
	var first error
	for _, c := range due {
		if err := s.commit(ctx, c); err != nil && first == nil {
			first = err
		}
	}
	s.mu.Lock()
	if s.final && id >= s.finalID && !s.finalClosed {
		s.finalErr = first
		s.finalClosed = true
		close(s.finalDone)
	}
	s.mu.Unlock()
	return first
}

func (s *Sink) commit(ctx context.Context, c *committable) error {
	if c.cl != nil {
		err := c.cl.EndTransaction(ctx, kgo.TryCommit)
		c.cl.Close()
		c.cl = nil
		if err == nil {
			return nil
		}
		return fmt.Errorf("Kafka sink of %s: committing transaction %s: %w", s.cfg.Table, c.txnID, err)
	}
	return s.endTxn(ctx, c.txnID, c.producerID, c.epoch, true)
}

// endTxn ends a transaction by its ids (a restored sink's committables).
// A transaction that is no longer open under that epoch was completed
// before (the commit is being retried): that is success, as in Flink's
// committer.
func (s *Sink) endTxn(ctx context.Context, txnID string, pid int64, epoch int16, commit bool) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.cfg.Brokers...), kgo.RetryTimeout(s.cfg.RequestTimeout))
	if err != nil {
		return err
	}
	defer cl.Close()
	deadline := time.Now().Add(s.cfg.RequestTimeout)
	for {
		req := kmsg.NewPtrEndTxnRequest()
		req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = txnID, pid, epoch, commit
		resp, err := req.RequestWith(ctx, cl)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		switch {
		case err == nil:
			return nil
		case errors.Is(err, kerr.InvalidProducerEpoch), errors.Is(err, kerr.ProducerFenced),
			errors.Is(err, kerr.InvalidTxnState), errors.Is(err, kerr.TransactionalIDNotFound),
			errors.Is(err, kerr.InvalidProducerIDMapping):
			return nil
		case kerr.IsRetriable(err) || errors.Is(err, kerr.ConcurrentTransactions):
			if time.Now().After(deadline) {
				return fmt.Errorf("Kafka sink of %s: ending transaction %s: %w", s.cfg.Table, txnID, err)
			}
			time.Sleep(100 * time.Millisecond)
		default:
			return fmt.Errorf("Kafka sink of %s: ending transaction %s: %w", s.cfg.Table, txnID, err)
		}
	}
}

// abortLingering fences and aborts the transactions an instance may have
// begun after checkpoint id: those of subtask sub at checkpoints id+1,
// id+2, … up to the first transactional id the broker never saw (epoch
// 0 after initialisation).
func (s *Sink) abortLingering(ctx context.Context, sub int, id int64) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.cfg.Brokers...), kgo.RetryTimeout(s.cfg.RequestTimeout))
	if err != nil {
		return err
	}
	defer cl.Close()
	for cp := id + 1; cp < id+1000; cp++ {
		txnID := fmt.Sprintf("%s-%d-%d", s.cfg.TransactionalID, sub, cp)
		deadline := time.Now().Add(s.cfg.RequestTimeout)
		for {
			req := kmsg.NewPtrInitProducerIDRequest()
			req.TransactionalID = &txnID
			req.TransactionTimeoutMillis = int32(s.cfg.TxnTimeout / time.Millisecond)
			req.ProducerID, req.ProducerEpoch = -1, -1
			resp, err := req.RequestWith(ctx, cl)
			if err == nil {
				err = kerr.ErrorForCode(resp.ErrorCode)
			}
			if err == nil {
				if resp.ProducerEpoch == 0 && cp > id+2 {
					return nil // never used before: nothing lingers after it
				}
				break
			}
			if !(kerr.IsRetriable(err) || errors.Is(err, kerr.ConcurrentTransactions)) || time.Now().After(deadline) {
				return fmt.Errorf("Kafka sink of %s: aborting lingering transaction %s: %w", s.cfg.Table, txnID, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// The "transactions" part has a row per pending transaction of the
// instance, and one row (empty txn) that gives the instance's subtask,
// parallelism and checkpoint id, so that a restored sink knows whose
// lingering transactions to abort.
const txnPart = "transactions"

var txnSchema = arrow.NewSchema([]arrow.Field{
	{Name: "subtask", Type: arrow.PrimitiveTypes.Int32},
	{Name: "parallelism", Type: arrow.PrimitiveTypes.Int32},
	{Name: "checkpoint", Type: arrow.PrimitiveTypes.Int64},
	{Name: "txn", Type: arrow.BinaryTypes.String},
	{Name: "producer_id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "epoch", Type: arrow.PrimitiveTypes.Int16},
}, nil)

func (s *Sink) writePending(w vectorized.StateWriter) error {
	b := array.NewRecordBuilder(vectorized.Mem, txnSchema)
	defer b.Release()
	add := func(cp int64, txn string, pid int64, epoch int16) {
		b.Field(0).(*array.Int32Builder).Append(int32(s.subtask))
		b.Field(1).(*array.Int32Builder).Append(int32(s.parallelism))
		b.Field(2).(*array.Int64Builder).Append(cp)
		b.Field(3).(*array.StringBuilder).Append(txn)
		b.Field(4).(*array.Int64Builder).Append(pid)
		b.Field(5).(*array.Int16Builder).Append(epoch)
	}
	add(s.nextID-1, "", -1, -1)
	s.mu.Lock()
	for _, c := range s.pending {
		add(c.checkpoint, c.txnID, c.producerID, c.epoch)
	}
	s.mu.Unlock()
	rec := b.NewRecordBatch()
	defer rec.Release()
	return w.Write(txnPart, rec)
}

// RestoreState implements connectors.TwoPhaseSink.
func (s *Sink) RestoreState(ctx context.Context, r vectorized.StateReader) error {
	if s.cfg.Guarantee != GuaranteeExactlyOnce {
		return nil
	}
	s.cleaned = true
	type old struct {
		sub int
		cp  int64
	}
	var olds []old
	var commits []committable
	var maxCP int64
	err := r.Read(txnPart, func(rec arrow.RecordBatch) error {
		if !rec.Schema().Equal(txnSchema) {
			return fmt.Errorf("kafka: restore: unexpected transactions schema %s", rec.Schema())
		}
		sub := rec.Column(0).(*array.Int32)
		cp := rec.Column(2).(*array.Int64)
		txn := rec.Column(3).(*array.String)
		pid := rec.Column(4).(*array.Int64)
		ep := rec.Column(5).(*array.Int16)
		for i := 0; i < int(rec.NumRows()); i++ {
			if cp.Value(i) > maxCP {
				maxCP = cp.Value(i)
			}
			if int(sub.Value(i))%s.parallelism != s.subtask {
				continue
			}
			if txn.Value(i) == "" {
				olds = append(olds, old{int(sub.Value(i)), cp.Value(i)})
				continue
			}
			commits = append(commits, committable{checkpoint: cp.Value(i), txnID: txn.Value(i), producerID: pid.Value(i), epoch: ep.Value(i)})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, c := range commits {
		if err := s.endTxn(ctx, c.txnID, c.producerID, c.epoch, true); err != nil {
			return err
		}
	}
	// The restored job's checkpoints continue after the restored one.
	if maxCP+1 > s.nextID {
		s.nextID = maxCP + 1
	}
	for _, o := range olds {
		if err := s.abortLingering(ctx, o.sub, o.cp); err != nil {
			return err
		}
	}
	return nil
}
