package actorstest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/require"
)

// Argument parsing and the "run" command shared by the datadriven block scripts.

// TimeArg returns the time argument key of a script command ("at=1.5us"), 0 if absent.
func TimeArg(t testing.TB, d *datadriven.TestData, key string) actors.Time {
	if !d.HasArg(key) {
		return 0
	}
	v, err := actors.ParseTime(StrArg(t, d, key))
	require.NoError(t, err, key)
	return v
}

// IntArg returns the integer argument key (decimal, or with a 0x prefix hexadecimal),
// def if absent.
func IntArg(t testing.TB, d *datadriven.TestData, key string, def int64) int64 {
	if !d.HasArg(key) {
		return def
	}
	v, err := strconv.ParseInt(StrArg(t, d, key), 0, 64)
	require.NoError(t, err, key)
	return v
}

// StrArg returns the argument key, "" if absent.
func StrArg(t testing.TB, d *datadriven.TestData, key string) string {
	var s string
	d.MaybeScanArgs(t, key, &s)
	return s
}

// RunScript handles a script's "run [until=T] [hide=port,...]": it runs h until T (the
// end of the queue if absent) and returns the outputs as Trace renders them with the
// actor's port names, without those on hidden ports, followed by "fatal at T: msg" if
// the actor failed.
func RunScript(t testing.TB, d *datadriven.TestData, h *Harness, ports []string) string {
	until := actors.MaxTime
	if d.HasArg("until") {
		until = TimeArg(t, d, "until")
	}
	var out []Sent
	fatal := Catch(func() { out = h.Run(until) })
	s := Trace(out, ports)
	if hide := StrArg(t, d, "hide"); hide != "" {
		hidden := strings.Split(hide, ",")
		var sb strings.Builder
		for line := range strings.Lines(s) {
			if f := strings.Fields(line); len(f) > 1 && !slices.Contains(hidden, f[1]) {
				sb.WriteString(line)
			}
		}
		s = sb.String()
	}
	return s + FatalLine(h.Now(), fatal)
}

// FatalLine is the line a script prints after the outputs when the actor failed at
// time at with msg: "fatal at T: msg", or "" if msg is empty.
func FatalLine(at actors.Time, msg string) string {
	if msg == "" {
		return ""
	}
	return fmt.Sprintf("fatal at %s: %s\n", at, msg)
}

// MsgsOf returns the messages of type T among the sends, in order.
func MsgsOf[T actors.Msg](sent []Sent) []T {
	var r []T
	for _, s := range sent {
		if m, ok := s.Msg.(T); ok {
			r = append(r, m)
		}
	}
	return r
}
