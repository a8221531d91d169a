package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/assert"
)

// The ETA extrapolates from the work done since the last report that had none: a
// motif's start-up (MPI_Init, the first barrier) counts no work, and an ETA from the
// command's start would count it as part of the rate.
func TestProgressETAFromFirstWork(t *testing.T) {
	var buf bytes.Buffer
	t0 := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	clock := t0
	progress, done := progressPrinterAt(&buf, "motif", func() time.Time { return clock })
	report := func(at time.Duration, frac float64) {
		clock = t0.Add(at)
		progress(actors.Progress{Now: actors.Time(at), End: actors.MaxTime, Events: 1, Wall: at, Fraction: frac})
	}
	report(5*time.Second, -1) // nothing declared yet
	report(10*time.Second, 0) // declared, none done
	report(12*time.Second, 0.5)
	report(14*time.Second, 0.8)
	done()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	assert.Len(t, lines, 4)
	assert.NotContains(t, lines[0], "%")
	assert.Contains(t, lines[1], "(0%)")
	assert.Contains(t, lines[2], "(50%, ETA 2s)", "2 s for the first half")
	assert.Contains(t, lines[3], "(80%, ETA 1s)", "4 s for 80%")
}

// With a known end the fraction is simulated time's, and the ETA runs from the start.
func TestProgressETAWithAnEnd(t *testing.T) {
	var buf bytes.Buffer
	t0 := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	clock := t0
	progress, _ := progressPrinterAt(&buf, "phold", func() time.Time { return clock })
	clock = t0.Add(3 * time.Second)
	progress(actors.Progress{Now: actors.Time(10 * actors.Microsecond), End: actors.Time(40 * actors.Microsecond), Events: 1, Wall: 3 * time.Second, Fraction: -1})
	assert.Contains(t, buf.String(), "phold: t=10us of 40us (25%, ETA 9s)")
}
