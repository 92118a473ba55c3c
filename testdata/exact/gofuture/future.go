// Package future needs a Go newer than any installed here.
package future

// Later is never type-checked.
func Later() int { return 1 }
