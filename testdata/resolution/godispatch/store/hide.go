package store

// ReadOnly hides the Put its embedded *MemoryStore would promote (rule G15); Get and Close
// are still promoted.
type ReadOnly struct {
	*MemoryStore
}

// Put takes other parameters than the Put it hides: Go hides by name.
func (r ReadOnly) Put(key string) error { return nil }

// Mirror offers a Get and a Close of its own.
type Mirror struct{}

func (Mirror) Get() string { return "" }

func (Mirror) Close() {}

// Pair embeds two types offering Close at one depth: its own Close hides both.
type Pair struct {
	*MemoryStore
	Mirror
}

func (p Pair) Close() {}
