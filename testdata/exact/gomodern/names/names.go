// Package names builds greetings.
package names

// Set is a generic type alias, a Go 1.24 feature.
type Set[T comparable] = map[T]struct{}

// Greeting greets who.
func Greeting(who string) string {
	seen := Set[string]{who: {}}
	return "hello " + who + string(rune('0'+len(seen)))
}
