package actors

import (
	"math"
	"sync/atomic"
)

// Work is a model's progress in its own units (iterations, messages), for progress
// reports when simulated time has no end to measure against: the model's drivers
// declare the work they will do (Expect) and count what they did (Done), and a
// command that runs several simulations in a row numbers them (Stage). The engine
// only reads it for Progress.Fraction; it never affects a simulation. A nil *Work
// ignores every call, so drivers call it unconditionally. Safe for concurrent use.
type Work struct {
	done, total   atomic.Int64
	stage, stages atomic.Int64
}

// Expect adds n units to the work of the current simulation.
func (w *Work) Expect(n int64) {
	if w != nil {
		w.total.Add(n)
	}
}

// Done counts n units of the current simulation's work as done.
func (w *Work) Done(n int64) {
	if w != nil {
		w.done.Add(n)
	}
}

// Stage starts simulation i (from 0) of n run one after the other: the fraction
// counts the finished ones whole and the current one by its Expect and Done.
func (w *Work) Stage(i, n int) {
	if w == nil {
		return
	}
	w.done.Store(0)
	w.total.Store(0)
	w.stage.Store(int64(i))
	w.stages.Store(int64(n))
}

// Fraction is the share of the work done, in [0, 1], or -1 when nothing tells: a
// single simulation (or none numbered) whose drivers declared no work.
func (w *Work) Fraction() float64 {
	if w == nil {
		return -1
	}
	stages, stage := max(w.stages.Load(), 1), w.stage.Load()
	total, done := w.total.Load(), w.done.Load()
	cur := 0.0
	switch {
	case total > 0:
		cur = math.Min(float64(done)/float64(total), 1)
	case stages == 1:
		return -1 // one simulation that declared nothing: unknown
	}
	return math.Min((float64(stage)+cur)/float64(stages), 1)
}
