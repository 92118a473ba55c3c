package app

import (
	"context"

	"example.com/godispatch/store"
)

// SlackNotifier is a second Notifier, from another package.
type SlackNotifier struct{ Channel string }

func (s SlackNotifier) Notify(text string) error { return nil }

func Load(ctx context.Context, s store.Store, key string) (string, error) {
	return s.Get(ctx, key)
}

func Save(ctx context.Context, s store.Store, key, value string) error {
	return s.Put(ctx, key, value)
}

func Alert(n store.Notifier) error {
	return n.Notify("down")
}

func Count(c store.Counter) error {
	return c.Notify(3)
}

// buffer's flush is another package's method name: it is no store.flusher.
type buffer struct{}

func (buffer) flush() error { return nil }

func anonymous() any {
	return struct{ store.Entry }{}
}

func inspect(ctx context.Context, a store.Audit) (string, error) {
	return a.Get(ctx, "k")
}

// Wrapped is a Store through the methods its embedded *MemoryStore promotes.
type Wrapped struct{ *store.MemoryStore }
