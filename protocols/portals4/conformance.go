package portals4

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
	"github.com/seastar-sim/seastar/protocols/portals4/conform"
)

// Outcome is the verdict on one test file.
type Outcome struct {
	File    string      `json:"file"`
	Result  string      `json:"result"` // pass, fail or skip
	Reason  string      `json:"reason,omitempty"`
	SimTime actors.Time `json:"-"`
}

// skipped are the test files that cannot run on a simulated machine, with the reason.
var skipped = map[string]string{
	"test_loopback_move.xml": "written for an early Portals 4 draft and not run upstream (not in make check): it puts " +
		"into an ME with neither PTL_ME_OP_PUT nor PTL_ME_OP_GET and expects a PUT event and no LINK event, where " +
		"Portals 4.0 requires PTL_NI_OP_VIOLATION (checked by n2 tests) and a LINK event (checked by n1 tests)",
	"test_phys_client.xml": "addresses a fixed physical id (nid 0xc0a8de0d, pid 13251) of a server on another machine; " +
		"it runs only paired by hand with test_phys_server on a real network",
	"test_phys_server.xml": "waits (with pid 13251) for the separate test_phys_client program run by hand on another " +
		"machine; no client exists in the simulated job",
}

// RanksFor is the job size of a test file: two ranks for the upstream test_n2 set
// (files in a directory named n2), one otherwise.
func RanksFor(path string) int {
	if filepath.Base(filepath.Dir(path)) == "n2" {
		return 2
	}
	return 1
}

// TestUID is the user id of the test processes.
const TestUID = 1000

// RunTest runs test file path (contents data) on a simulated machine of ranks nodes,
// one process per node, and returns its verdict. The run ends at opts.End (if set) at
// the latest: a rank still running then, or blocked forever, fails the test.
func RunTest(ctx context.Context, mp machine.Params, p Params, path string, data []byte, ranks int, opts actors.Options) Outcome {
	out := Outcome{File: path}
	if why, ok := skipped[filepath.Base(path)]; ok {
		out.Result, out.Reason = "skip", why
		return out
	}
	fail := func(format string, args ...any) Outcome {
		out.Result, out.Reason = "fail", fmt.Sprintf(format, args...)
		return out
	}
	root, err := conform.Parse(data)
	if err != nil {
		return fail("parse: %v", err)
	}
	mp.Torus, mp.Wrap = fmt.Sprintf("%dx1x1", ranks), "mesh"
	j, err := NewJob(mp, p)
	if err != nil {
		return fail("%v", err)
	}
	threads := maxThreads(root)
	results := make([]string, ranks)
	done := make([]bool, ranks)
	at := make([]*conform.Node, ranks)
	for rank := range ranks {
		if err := j.Spawn(rank, "conform", func(l API) {
			results[rank] = conform.RunRank(root, l, &at[rank], ctx.Err)
			done[rank] = true
		}); err != nil {
			return fail("%v", err)
		}
		if err := j.SpawnThreads(rank, threads, "conform"); err != nil {
			return fail("%v", err)
		}
	}
	rep, err := j.Run(ctx, opts)
	if err != nil {
		return fail("run: %v", err)
	}
	out.SimTime = rep.SimTime
	for rank := range ranks {
		switch {
		case !done[rank] && opts.End > 0 && rep.SimTime >= opts.End:
			return fail("rank %d still running at the time limit (%s of simulated time), at line %d <%s>", rank, opts.End, at[rank].Line, at[rank].Name)
		case !done[rank]:
			return fail("rank %d blocked at %s in line %d <%s>: it waits for something that never happens", rank, rep.SimTime, at[rank].Line, at[rank].Name)
		case results[rank] != "":
			return fail("rank %d: %s", rank, results[rank])
		}
	}
	out.Result = "pass"
	return out
}

// maxThreads is the largest thread count a threads element of the file asks for.
func maxThreads(n *conform.Node) int {
	k := 0
	if n.Name == "threads" {
		for _, a := range n.Attrs {
			if a.Name.Local == "count" {
				var v int
				fmt.Sscan(strings.TrimSpace(a.Value), &v)
				k = v
			}
		}
	}
	for _, c := range n.Children {
		k = max(k, maxThreads(c))
	}
	return k
}
