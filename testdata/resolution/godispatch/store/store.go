package store

import "context"

// Store keeps values. MemoryStore is its only implementation.
type Store interface {
	Get(ctx context.Context, key string) (string, error)
	Put(ctx context.Context, key, value string) error
}

// Closer adds Close to a Store.
type Closer interface {
	Store
	Close() error
}

// Reporter embeds the predeclared error.
type Reporter interface {
	error
	Report() []Entry
}

// Entry is one stored value.
type Entry struct {
	Key   string
	Value string
}

// MemoryStore implements Store and Closer.
type MemoryStore struct {
	values map[string]string
}

func (m *MemoryStore) Get(ctx context.Context, key string) (string, error) {
	return m.values[key], nil
}

func (m *MemoryStore) Put(_ context.Context, key string, value string) error {
	m.values[key] = value
	return nil
}

func (m *MemoryStore) Close() error { return nil }

// Audit embeds MemoryStore; its promoted methods are not followed.
type Audit struct {
	*MemoryStore
	Log []Entry
}

func (a Audit) Error() string { return "audit" }

func (a Audit) Report() []Entry { return a.Log }

// Flush calls Put, promoted from the embedded *MemoryStore (rule G14).
func (a Audit) Flush() error {
	return a.Put(nil, "audit", "flushed")
}
