package server

import "fmt"

// Server is a homonym of client.Server.
type Server struct{ Addr string }

// NewServer is a homonym of client.NewServer: calls in this package never reach that one.
func NewServer(addr string) *Server { return &Server{Addr: addr} }

// Run calls across the package's files.
func Run(addr string) error {
	s := NewServer(addr)
	if err := s.Start(); err != nil {
		return err
	}
	report(addr)
	fmt.Println(len(addr))
	missing()
	return nil
}

// Start is a method: `s.Start()` needs the receiver's type, which this layer does not prove.
func (s *Server) Start() error { return nil }

// retry rebinds `report` as a parameter: its call is only a candidate.
func retry(report func(string)) {
	report("again")
}

// conversions and function values are not calls of a package function.
var ID = Server(Server{})
