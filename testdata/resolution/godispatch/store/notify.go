package store

// Notifier has several implementations: a call through it reaches one of them.
type Notifier interface {
	Notify(message string) error
}

type EmailNotifier struct{}

func (EmailNotifier) Notify(message string) error { return nil }

// Counter declares Notify with another signature: it is not a Notifier.
type Counter struct{}

func (Counter) Notify(times int) error { return nil }

// flusher has an unexported method: only a type of this package can implement it.
type flusher interface {
	flush() error
}

type diskFlusher struct{}

func (diskFlusher) flush() error { return nil }

// Both embeds two types declaring Reset: the selector is ambiguous on it.
type Both struct {
	Left
	Right
}

type Left struct{}

func (Left) Reset() {}

type Right struct{}

func (Right) Reset() {}

func (b Both) Send() {
	b.Reset()
}
