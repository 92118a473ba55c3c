package tally

type Tally struct{ n int }

func (t *Tally) Add() { t.n++ }

func Count(times int) int {
	t := &Tally{}
	for i := 0; i < times; i++ {
		t.Add()
	}
	return t.n
}
