package server

// Run in a fork that claims the provider's module path: with both registered, an import of
// example.com/gocalls/server names two packages and binds neither.
func Run(addr string) error { return nil }
