//go:build !race

package actors

// raceDetector is true in builds with the race detector (go test -race).
const raceDetector = false
