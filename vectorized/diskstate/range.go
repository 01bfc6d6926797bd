package diskstate

import "github.com/cockroachdb/pebble/v2"

// Range reads and range deletes, for the operators whose state is laid
// out so that what they read together is one range of keys (the window
// operators: a window's groups of one key group).

// Iter is an iterator over a store's keys in order.
type Iter struct{ it *pebble.Iterator }

// NewIter returns an iterator over the store; Close it.
func (s *Store) NewIter() (*Iter, error) {
	it, err := s.db.NewIter(nil)
	if err != nil {
		return nil, err
	}
	return &Iter{it: it}, nil
}

// SeekGE moves to the first key at or above k; false past the last key.
func (i *Iter) SeekGE(k []byte) bool { return i.it.SeekGE(k) }

// Next moves to the next key; false past the last key.
func (i *Iter) Next() bool { return i.it.Next() }

// Key returns the current key (valid until the iterator moves).
func (i *Iter) Key() []byte { return i.it.Key() }

// Value returns the current value (valid until the iterator moves).
func (i *Iter) Value() ([]byte, error) { return i.it.ValueAndErr() }

// Close releases the iterator.
func (i *Iter) Close() error { return i.it.Close() }

// DeleteRange removes every key in [lo, hi).
func (b *Batch) DeleteRange(lo, hi []byte) error { return b.b.DeleteRange(lo, hi, nil) }

// PrefixEnd returns the smallest key above every key starting with p (nil
// when there is none: p is all 0xff).
func PrefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
