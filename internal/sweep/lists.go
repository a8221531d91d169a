package sweep

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/seastar-sim/seastar/internal/results"
	"github.com/seastar-sim/seastar/params"
)

// MaxPoints bounds the points of a sweep, so that a typo in a range is an error
// rather than a week of simulations.
const MaxPoints = params.MaxListLen

// List is one --vary: a key and its values in canonical text form.
type List struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

// ParseVary parses the --vary items against the configuration tree t.
func ParseVary(t *params.Tree, items []string) ([]List, error) {
	var lists []List
	for _, item := range items {
		key, list, ok := strings.Cut(item, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return nil, (fmt.Errorf("--vary %q: want KEY=LIST, e.g. ppc.clock=250MHz,500MHz", item))
		}
		if slices.ContainsFunc(lists, func(l List) bool { return l.Key == key }) {
			return nil, (fmt.Errorf("--vary %s: the key is given twice; give all its values in one list", key))
		}
		var vals []string
		var err error
		if key == results.SeedKey {
			vals, err = parseSeeds(list)
		} else {
			vals, err = t.ParseList(key, list)
		}
		if err != nil {
			return nil, (fmt.Errorf("--vary: %w", err))
		}
		lists = append(lists, List{Key: key, Values: vals})
	}
	return lists, nil
}

// parseSeeds parses a list of seeds, with the ranges of params.Tree.ParseList.
func parseSeeds(list string) ([]string, error) {
	seed := struct {
		Seed uint64 `param:"seed"`
	}{}
	t, err := params.New(&seed)
	if err != nil {
		return nil, err
	}
	return t.ParseList(results.SeedKey, list)
}

// Combine makes the points' values: the cartesian product of the lists, the first
// varying slowest, or with zip the lists element by element.
func Combine(lists []List, zip bool) ([][]params.KV, error) {
	if zip {
		n := len(lists[0].Values)
		for _, l := range lists[1:] {
			if len(l.Values) != n {
				return nil, (fmt.Errorf("--zip: --vary %s has %d values and --vary %s has %d; zipped lists must be of one length",
					lists[0].Key, n, l.Key, len(l.Values)))
			}
		}
		out := make([][]params.KV, n)
		for i := range n {
			for _, l := range lists {
				out[i] = append(out[i], params.KV{Key: l.Key, Value: l.Values[i]})
			}
		}
		return out, nil
	}
	total := 1
	for _, l := range lists {
		if total *= len(l.Values); total > MaxPoints {
			return nil, (fmt.Errorf("--vary: the sweep has more than %d points", MaxPoints))
		}
	}
	out := [][]params.KV{nil}
	for _, l := range lists {
		var next [][]params.KV
		for _, prefix := range out {
			for _, v := range l.Values {
				next = append(next, append(slices.Clone(prefix), params.KV{Key: l.Key, Value: v}))
			}
		}
		out = next
	}
	return out, nil
}

// Run calls fn for the items 0..n-1, jobs at a time, launching them in order. The
// first error fn returns cancels the context the others run with and stops launching;
// Run returns it once every call has returned. Cancelling ctx stops launching too.
func Run(ctx context.Context, n, jobs int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var fatal error
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(jobs, 1) {
		wg.Go(func() {
			for i := range next {
				if err := fn(ctx, i); err != nil {
					mu.Lock()
					if fatal == nil {
						fatal = err
					}
					mu.Unlock()
					cancel()
				}
			}
		})
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	return fatal
}
