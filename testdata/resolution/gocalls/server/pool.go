package server

import "sync"

// Pool embeds a mutex: Lock is promoted, not declared.
type Pool struct {
	sync.Mutex
	hook func()
}

func (p *Pool) Drain() {
	p.Lock()
	p.hook()
	p.reset()
}

func (p *Pool) reset() {}
