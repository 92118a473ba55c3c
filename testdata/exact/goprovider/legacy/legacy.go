//go:build legacy

// Package legacy only builds with the legacy tag.
package legacy

func Old() int { return 1 }
