// Package server runs the service.
package server

import "io"

// Server accepts connections. It is safe for concurrent use.
type Server struct {
	// Addr is where it listens.
	Addr string
	io.Writer
	retries int
}

// Handler serves one request.
type Handler interface {
	// Serve handles the request.
	Serve(path string) error
}

// ID names a server.
type ID = string

// Start begins listening on the configured address.
func (s *Server) Start() error {
	return nil
}

// NewServer builds a Server.
func NewServer(addr string) *Server {
	return &Server{Addr: addr}
}

const (
	// DefaultPort is used when none is given.
	DefaultPort = 8080
	maxRetries  = 3
)

var Registry, fallback = map[string]*Server{}, "none"
