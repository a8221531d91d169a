//go:build !linux

package actors

// peakRSS returns 0: peak memory is only measured on Linux.
func peakRSS() int64 { return 0 }
