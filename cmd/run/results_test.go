package main

import (
	"math"
	"os"
	"testing"
)

// TestMain sends the results directories of commands run without --out to a
// temporary directory, so that tests never write into the source tree.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "seastar-run-results-")
	if err != nil {
		panic(err)
	}
	resultsRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func mathNaN() float64 { return math.NaN() }
