package main

import (
	"strings"

	"example.com/gocalls/server"
)

// typed calls methods on values declared with another package's type (rule G11).
func typed(s *server.Server, b *strings.Builder) {
	s.Start()
	b.WriteString("x")
}

// retired calls a function the provider repository does not declare (any more).
func retired() {
	server.Shutdown()
}
