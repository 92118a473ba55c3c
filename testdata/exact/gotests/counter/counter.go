// Package counter counts.
package counter

// Counter adds up what it is given.
type Counter struct {
	n int
}

// New returns an empty counter.
func New() *Counter { return &Counter{} }

// Add adds k.
func (c *Counter) Add(k int) { c.n += k }
