//go:build ladybug

package counter

// Tagged exists only in a build with the ladybug tag.
func Tagged() *Counter { return New() }
