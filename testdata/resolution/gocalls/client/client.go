package client

import (
	"strings"

	srv "example.com/gocalls/server"
	"example.com/nobody/pkg"
)

type Server struct{ URL string }

func NewServer(url string) Server { return Server{URL: url} }

func Dial() Server { return NewServer(strings.TrimSpace("x")) }

// Start reaches the server package through its alias; a parameter named like an import
// hides the import.
func Start(srvName string) error {
	srv.NewServer(srvName)
	pkg.Do()
	srv.Gone()
	return srv.Run(srvName)
}

func shadowed(srv fakeServer) { srv.NewServer("") }

type fakeServer struct{}

func (fakeServer) NewServer(string) {}

// withLiteral's variable has the type of the literal that creates it (rule G11).
func withLiteral() {
	f := &fakeServer{}
	f.NewServer("x")
}
