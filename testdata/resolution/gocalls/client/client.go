package client

type Server struct{ URL string }

func NewServer(url string) Server { return Server{URL: url} }

func Dial() Server { return NewServer("x") }
