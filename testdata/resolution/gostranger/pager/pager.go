// Package pager imports nothing of godispatch, yet Pager has Notifier's method set: Go
// says it implements store.Notifier, and nothing here relies on that.
package pager

type Pager struct{}

func (Pager) Notify(message string) error { return nil }
