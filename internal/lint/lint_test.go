package lint

import (
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestModelPackagesAreDeterministic checks every model package of this module.
func TestModelPackagesAreDeterministic(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	require.NoError(t, err)
	root, err := FindModuleRoot(wd)
	require.NoError(t, err)

	report, err := CheckModule(root, nil)
	require.NoError(t, err)
	require.Equal(t, "github.com/seastar-sim/seastar", report.Module, "module root %s", root)
	t.Logf("checked %d model packages: %s", len(report.Packages), strings.Join(report.Packages, " "))

	if len(report.Findings) > 0 {
		lines := make([]string, len(report.Findings))
		for i, f := range report.Findings {
			lines[i] = f.String()
		}
		t.Fatalf("%d determinism violations (paths relative to %s; see internal/lint/doc.go):\n%s",
			len(report.Findings), root, strings.Join(lines, "\n"))
	}
}

// where is the (file, line, rule) of a finding, what the fixture test compares.
type where struct {
	file string
	line int
	rule Rule
}

// TestLintCatchesViolations checks the fixture module in testdata/fixture, whose bad
// package holds one instance of each violation and whose good package holds every
// allowed form.
func TestLintCatchesViolations(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "fixture") // relative on purpose: names must still be relative
	// GOWORK=off: the fixture is its own module, whatever workspace encloses it.
	report, err := CheckModule(dir, append(os.Environ(), "GOWORK=off"))
	require.NoError(t, err)
	require.Equal(t, "example.com/fixture", report.Module)

	// testonly has only _test.go files; actors, cmd, internal and traces are excluded.
	assert.Equal(t, []string{
		"example.com/fixture",
		"example.com/fixture/actors/phold",
		"example.com/fixture/bad",
		"example.com/fixture/good",
	}, report.Packages)

	imports := "bad/imports.go"
	conc := "bad/concurrency.go"
	maps := "bad/maps.go"
	want := []where{
		{"actors/phold/phold.go", 6, RuleGo}, // subpackages of the engine are model code
		{conc, 5, RuleGo},
		{conc, 9, RuleChannel},    // type Queue chan int
		{conc, 12, RuleChannel},   // parameter of type <-chan int
		{conc, 13, RuleChannel},   // make(chan int, 1)
		{conc, 14, RuleChannel},   // send
		{conc, 15, RuleChannel},   // receive
		{conc, 16, RuleChannel},   // select; its cases are not reported again
		{conc, 21, RuleChannel},   // range over a channel
		{conc, 24, RuleChannel},   // close
		{imports, 5, RuleImport},  // crypto/rand
		{imports, 6, RuleImport},  // math/rand
		{imports, 7, RuleImport},  // math/rand/v2
		{imports, 8, RuleImport},  // net
		{imports, 9, RuleImport},  // net/http
		{imports, 10, RuleImport}, // os
		{imports, 11, RuleImport}, // os/exec
		{imports, 12, RuleImport}, // os/signal
		{imports, 13, RuleImport}, // runtime
		{imports, 14, RuleImport}, // sync
		{imports, 15, RuleImport}, // sync/atomic
		{imports, 16, RuleImport}, // syscall
		{imports, 17, RuleImport}, // time
		{imports, 18, RuleImport}, // unsafe
		{maps, 11, RuleMapRange},  // plain map
		{maps, 22, RuleMapRange},  // named map type through a pointer
		{maps, 30, RuleMapRange},  // type parameter ~map[K]V
		{maps, 37, RuleMapRange},  // two appends are not the collect idiom
		{maps, 47, RuleMapRange},  // appending k*2 is not the collect idiom
		{maps, 55, RuleMapRange},  // range over maps.Keys
		{maps, 62, RuleMapRange},  // maps.Values not passed to slices.Sorted
		{maps, 68, RuleDirective}, // //lint:ordered without a reason...
		{maps, 69, RuleMapRange},  // ...exempts nothing
		{maps, 78, RuleDirective}, // directive above a range over a slice
		{maps, 88, RuleDirective}, // directive trailing another statement...
		{maps, 89, RuleMapRange},  // ...does not attach to the loop below
	}
	var got []where
	for _, f := range report.Findings {
		got = append(got, where{f.File, f.Line, f.Rule})
		assert.NotEmpty(t, f.Message, "%v", f)
		assert.True(t, strings.HasPrefix(f.String(), f.File+":"), "%v", f)
		assert.False(t, strings.HasPrefix(f.File, "good/"), "allowed form reported: %v", f)
	}
	slices.SortFunc(want, compareWhere)
	assert.Equal(t, want, got)

	// A directive without a reason is itself reported, and says what is missing.
	i := slices.IndexFunc(report.Findings, func(f Finding) bool {
		return f.File == maps && f.Line == 68
	})
	require.GreaterOrEqual(t, i, 0)
	assert.Contains(t, report.Findings[i].Message, "needs a reason")

	var rules []Rule
	for _, w := range want {
		rules = append(rules, w.rule)
	}
	for _, r := range []Rule{RuleImport, RuleGo, RuleChannel, RuleMapRange, RuleDirective} {
		assert.Contains(t, rules, r, "fixture lacks an instance of %s", r)
	}
}

func compareWhere(a, b where) int {
	if c := strings.Compare(a.file, b.file); c != 0 {
		return c
	}
	if a.line != b.line {
		return a.line - b.line
	}
	return strings.Compare(string(a.rule), string(b.rule))
}

func TestIsModelPackage(t *testing.T) {
	t.Parallel()
	const mod = "github.com/seastar-sim/seastar"
	tests := []struct {
		path  string
		model bool
	}{
		{mod, true},
		{mod + "/actors", false},
		{mod + "/actors/phold", true},
		{mod + "/actors/internal/heap", true}, // only the top-level internal/ is excluded
		{mod + "/actorsx", true},
		{mod + "/ppc", true},
		{mod + "/txdma", true},
		{mod + "/protocols/portals", true},
		{mod + "/traces", false},
		{mod + "/traces/otf2", false},
		{mod + "/tracesx", true},
		{mod + "/cmd", false},
		{mod + "/cmd/seastar", false},
		{mod + "/internal", false},
		{mod + "/internal/lint", false},
		{mod + "/router/internal", true},
		{mod + "x", false}, // another module with a common prefix
		{"github.com/seastar-sim/other", false},
		{"fmt", false},
		{"", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.model, IsModelPackage(mod, tt.path), "IsModelPackage(%q)", tt.path)
	}
}

func TestModulePath(t *testing.T) {
	t.Parallel()
	tests := []struct{ gomod, want string }{
		{"module example.com/a\n\ngo 1.26\n", "example.com/a"},
		{"// comment\nmodule\texample.com/b // trailing\n", "example.com/b"},
		{"module \"example.com/c\"\n", "example.com/c"},
		{"modulex example.com/d\ngo 1.26\n", ""},
		{"go 1.26\n", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, modulePath([]byte(tt.gomod)), "%q", tt.gomod)
	}
}

func TestStartsLine(t *testing.T) {
	t.Parallel()
	src := []byte("a := 1 //x\n\t//y\n")
	assert.False(t, startsLine(src, token.Position{Offset: 7, Line: 1, Column: 8}))
	assert.True(t, startsLine(src, token.Position{Offset: 12, Line: 2, Column: 2}))
	assert.True(t, startsLine(nil, token.Position{Offset: 12, Line: 2, Column: 2}), "unreadable source")
}

func TestForbiddenImportsTable(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, f := range forbiddenImports {
		assert.False(t, seen[f.path], "duplicate %q", f.path)
		seen[f.path] = true
		assert.NotEmpty(t, f.why, "%q has no reason", f.path)
	}
	// reflect stays allowed: it is deterministic, and fmt uses it anyway.
	assert.False(t, seen["reflect"])
}

func TestFindModuleRoot(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "fixture", "bad")
	root, err := FindModuleRoot(dir)
	require.NoError(t, err)
	want, err := filepath.Abs(filepath.Join("testdata", "fixture"))
	require.NoError(t, err)
	assert.Equal(t, want, root)
}
