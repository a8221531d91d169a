package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A worker gets the coordinator's run as a description: the command, the flags as
// typed without those of the cluster, of output files, of profiling (in both flag
// forms) and of how the process backs its memory (--huge-pages), and the
// configuration's content instead of its path.
func TestRunSpec(t *testing.T) {
	config := filepath.Join(t.TempDir(), "my.yaml")
	require.NoError(t, os.WriteFile(config, []byte("ppc:\n  clock: 1GHz\n"), 0o600))
	args := []string{"motif", "halo3d", "--peers", "a:1,b:2", "--torus=8x8x8", "--peer-timeout=3s", "--quiet",
		"--out", "dir", "--cpuprofile", "p.out", "--allow-non-loopback", "--set", "mpi.eager_max=4K", "--peer-listen", "127.0.0.1:0",
		"--workers", "2", "--config", config, "--face", "8K", "--set=host.clock=2GHz", "--huge-pages=false"}
	c := &common{args: args}
	root := newRootOf(c, io.Discard, io.Discard)
	cmd, rest, err := root.Find(args)
	require.NoError(t, err)
	require.NoError(t, cmd.ParseFlags(rest))
	spec, err := c.runSpec(cmd)
	require.NoError(t, err)
	assert.Equal(t, []string{"motif", "halo3d"}, spec.Command)
	assert.Equal(t, []actors.Flag{{Name: "torus", Value: "8x8x8"}, {Name: "set", Value: "mpi.eager_max=4K"}, {Name: "workers", Value: "2"},
		{Name: "face", Value: "8K"}, {Name: "set", Value: "host.clock=2GHz"}}, spec.Flags)
	assert.Equal(t, "ppc:\n  clock: 1GHz\n", string(spec.Config))
}

// A sweep is not split across processes, and a coordinator whose worker does not
// exist fails with an error naming it, within the peer timeout.
func TestPeersErrors(t *testing.T) {
	t.Setenv(tokenEnv, "0123456789abcdef-peers-errors")
	code, _, errs := invoke(t, "sweep", "--bench", "motif", "--vary", "mpi.eager_max=4K,8K", "--peers", "127.0.0.1:1", "--out", "none")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errs, "--peers: a sweep is not split across processes")
	if testing.Short() {
		return
	}
	start := time.Now()
	code, _, errs = invoke(t, append(append([]string{}, smallPhold...), "--peers", "127.0.0.1:1", "--peer-timeout", "2s", "--out", "none")...)
	assert.Equal(t, exitSimulation, code, errs)
	assert.Contains(t, errs, "127.0.0.1:1")
	assert.Contains(t, errs, "cannot reach")
	assert.Less(t, time.Since(start), time.Minute)
}

// buildRun builds this command into dir and returns the binary's path.
func buildRun(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "run")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// proc is a started OS process of the simulator.
type proc struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan error
}

// syncBuffer is a bytes.Buffer safe for a writer goroutine and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startWorker starts `bin worker` with args and returns it with its address.
func startWorker(t *testing.T, bin string, args ...string) (*proc, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"worker"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	p := &proc{cmd: cmd, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		if s.Scan() {
			line <- s.Text()
		}
		close(line)
		_, _ = io.Copy(io.Discard, stdout)
		p.done <- cmd.Wait()
	}()
	select {
	case l := <-line:
		addr, ok := strings.CutPrefix(l, "listening on ")
		require.True(t, ok, "first line %q, stderr %s", l, p.stderr)
		return p, addr
	case <-time.After(time.Minute):
		t.Fatalf("the worker printed no address; stderr: %s", p.stderr)
	}
	return nil, ""
}

// wait waits for p's exit (at most a minute) and returns its exit status.
func (p *proc) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err // for the cleanup
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		require.NoError(t, err)
		return 0
	case <-time.After(time.Minute):
		t.Fatalf("the process did not exit; stderr: %s", p.stderr)
	}
	return -1
}

// runBin runs bin with args (at most two minutes) and returns its exit status,
// stdout and stderr.
func runBin(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	return runBinEnv(t, bin, nil, args...)
}

// runBinEnv is runBin with env added to the environment.
func runBinEnv(t *testing.T, bin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "the command hung: %s", errb.String())
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out.String(), errb.String()
	}
	require.NoError(t, err)
	return 0, out.String(), errb.String()
}

func digestOf(t *testing.T, out string) string {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	d, _ := v["digest"].(string)
	require.NotEmpty(t, d, out)
	return d
}

// Real OS processes: run worker processes serve a coordinating run --peers; halo3d on
// 8x8x8 and phold over 3 processes give the single-process digest; a worker of
// another build is refused at connect; killing a worker mid-run ends the coordinator
// with an error naming it and exit status 1 within the peer timeout.
func TestWorkerProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs several processes")
	}
	dir := t.TempDir()
	bin := buildRun(t, dir)
	t.Setenv(tokenEnv, "0123456789abcdef-worker-test-token") // the workers and coordinators below share it

	t.Run("halo3d", func(t *testing.T) {
		config := filepath.Join(dir, "halo.yaml")
		require.NoError(t, os.WriteFile(config, []byte("mpi:\n  eager_max: 512B\n"), 0o600))
		halo := []string{"motif", "halo3d", "--torus", "8x8x8", "--face", "1K", "--iters", "1", "--warmup", "0",
			"--format", "json", "--out", "none", "--quiet", "--config", config}
		code, out, errs := runBin(t, bin, append(halo, "--engine", "serial")...)
		require.Equal(t, 0, code, errs)
		ref := digestOf(t, out)
		w, addr := startWorker(t, bin, "--once")
		code, out, errs = runBin(t, bin, append(halo, "--workers", "1", "--partition", "slab", "--peers", addr)...)
		require.Equal(t, 0, code, errs)
		assert.Equal(t, ref, digestOf(t, out))
		assert.Equal(t, 0, w.wait(t), w.stderr.String())
		assert.Contains(t, w.stderr.String(), "motif halo3d --torus=8x8x8")
		assert.Contains(t, w.stderr.String(), "(configuration of 23 bytes)", "the configuration travels as content")
	})

	t.Run("phold-3-processes", func(t *testing.T) {
		ph := append(append([]string{}, smallPhold...), "--format", "json", "--out", "none")
		code, out, errs := runBin(t, bin, append(ph, "--engine", "serial")...)
		require.Equal(t, 0, code, errs)
		ref := digestOf(t, out)
		prof := filepath.Join(dir, "worker.pprof")
		w1, a1 := startWorker(t, bin, "--once", "--cpuprofile", prof) // the worker's own profile
		w2, a2 := startWorker(t, bin, "--once")
		code, out, errs = runBin(t, bin, append(ph, "--workers", "2", "--peers", a1+","+a2)...)
		require.Equal(t, 0, code, errs)
		assert.Equal(t, ref, digestOf(t, out))
		assert.Equal(t, 0, w1.wait(t), w1.stderr.String())
		assert.Equal(t, 0, w2.wait(t), w2.stderr.String())
		p, err := os.ReadFile(prof)
		require.NoError(t, err, "run worker --cpuprofile writes the profile of the sessions it served")
		assert.True(t, bytes.HasPrefix(p, []byte{0x1f, 0x8b}), "a gzipped pprof profile")
	})

	t.Run("phold-tls", func(t *testing.T) {
		ph := append(append([]string{}, smallPhold...), "--format", "json", "--out", "none")
		code, out, errs := runBin(t, bin, append(ph, "--engine", "serial")...)
		require.Equal(t, 0, code, errs)
		ref := digestOf(t, out)
		w, addr := startWorker(t, bin, "--once", "--tls")
		code, out, errs = runBin(t, bin, append(ph, "--workers", "2", "--tls", "--peers", addr)...)
		require.Equal(t, 0, code, errs)
		assert.Equal(t, ref, digestOf(t, out), "the same results over TLS")
		assert.Equal(t, 0, w.wait(t), w.stderr.String())
		// A coordinator without TLS cannot talk to a worker that speaks it.
		w, addr = startWorker(t, bin, "--once", "--tls")
		code, _, errs = runBin(t, bin, append(ph, "--peer-timeout", "3s", "--peers", addr)...)
		assert.Equal(t, exitSimulation, code, errs)
		_ = w // the cleanup kills it
	})

	t.Run("version-mismatch", func(t *testing.T) {
		other := filepath.Join(dir, "run-other")
		b, err := os.ReadFile(bin)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(other, append(b, "another build"...), 0o755))
		w, addr := startWorker(t, other, "--once")
		code, _, errs := runBin(t, bin, append(append([]string{}, smallPhold...), "--peers", addr, "--out", "none")...)
		assert.Equal(t, exitUsage, code, errs)
		assert.Contains(t, errs, "version mismatch")
		assert.Contains(t, errs, addr)
		assert.Equal(t, exitUsage, w.wait(t), w.stderr.String())
		assert.Contains(t, w.stderr.String(), "version mismatch")
	})

	t.Run("untrusted-coordinators", func(t *testing.T) {
		w, addr := startWorker(t, bin)
		for _, tok := range []string{"", "the-wrong-token-for-this-worker"} {
			code, _, errs := runBinEnv(t, bin, []string{tokenEnv + "=" + tok}, append(append([]string{}, smallPhold...), "--peers", addr, "--out", "none")...)
			assert.Equal(t, exitUsage, code, errs)
			if tok == "" {
				assert.Contains(t, errs, "the workers need their token")
				continue
			}
			assert.True(t, strings.Contains(errs, "refused the session: refused\n"), errs)
			assert.NotContains(t, errs, "exe:", "no build id to an untrusted peer")
		}
		require.Eventually(t, func() bool { return strings.Contains(w.stderr.String(), "not authenticated") }, 10*time.Second, 20*time.Millisecond)
		// The worker still serves a coordinator with the token.
		code, _, errs := runBin(t, bin, append(append([]string{}, smallPhold...), "--peers", addr, "--out", "none")...)
		assert.Equal(t, 0, code, errs)
		_ = w.cmd.Process.Kill()
	})

	for _, sig := range []os.Signal{os.Kill, syscall.SIGSTOP} {
		t.Run("worker-"+sig.String(), func(t *testing.T) { stopWorkerMidRun(t, bin, sig) })
	}

	// A coordinator killed mid-run frees its worker: within the peer timeout the worker
	// ends the session and serves the next coordinator.
	t.Run("coordinator-killed", func(t *testing.T) {
		w, addr := startWorker(t, bin)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		coord := exec.CommandContext(ctx, bin, "phold", "--lps", "4096", "--end", "1s", "--workers", "1", "--quiet",
			"--out", "none", "--peers", addr, "--peer-timeout", "2s")
		require.NoError(t, coord.Start())
		require.Eventually(t, func() bool { return strings.Contains(w.stderr.String(), "session with") }, time.Minute, 20*time.Millisecond)
		time.Sleep(300 * time.Millisecond)
		require.NoError(t, coord.Process.Kill())
		_ = coord.Wait()
		require.Eventually(t, func() bool { return strings.Contains(w.stderr.String(), "failed") }, 30*time.Second, 50*time.Millisecond,
			"the worker never noticed its coordinator died: %s", w.stderr.String())
		code, _, errs := runBin(t, bin, append(append([]string{}, smallPhold...), "--peers", addr, "--out", "none")...)
		assert.Equal(t, 0, code, errs)
	})
}

// stopWorkerMidRun starts a long run across two processes and sends sig to the worker
// once it runs: killed (the connection drops) or stopped (it never answers again), the
// coordinator ends with exit status 1 and an error naming the worker, within the peer
// timeout.
func stopWorkerMidRun(t *testing.T, bin string, sig os.Signal) {
	{
		w, addr := startWorker(t, bin)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		coord := exec.CommandContext(ctx, bin, "phold", "--lps", "4096", "--end", "1s", "--workers", "1", "--quiet",
			"--out", "none", "--peers", addr, "--peer-timeout", "3s")
		var cerr syncBuffer
		coord.Stderr = &cerr
		require.NoError(t, coord.Start())
		deadline := time.Now().Add(time.Minute)
		for !strings.Contains(w.stderr.String(), "session with") && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		require.Contains(t, w.stderr.String(), "session with", "the worker never got the session")
		time.Sleep(500 * time.Millisecond) // well into the run: it lasts far longer
		require.NoError(t, w.cmd.Process.Signal(sig))
		if sig == syscall.SIGSTOP {
			t.Cleanup(func() { _ = w.cmd.Process.Signal(syscall.SIGCONT) })
		}
		killed := time.Now()
		err := coord.Wait()
		require.NoError(t, ctx.Err(), "the coordinator hung after its worker died: %s", cerr.String())
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, cerr.String())
		assert.Equal(t, exitSimulation, ee.ExitCode(), cerr.String())
		assert.Contains(t, cerr.String(), "worker "+addr)
		assert.Less(t, time.Since(killed), 30*time.Second, "ended within the peer timeout, not by the test's")
		t.Logf("coordinator: %s", cerr.String())
	}
}

// What an authenticated coordinator may ask a worker: a simulation with model flags and
// a configuration sent as content; every attack of the review fails with an error
// naming the field, and nothing is read or written.
func TestWorkerRun(t *testing.T) {
	dir := t.TempDir()
	spec := func(command []string, flags ...string) actors.RunSpec {
		s := actors.RunSpec{Command: command}
		for i := 0; i+1 < len(flags); i += 2 {
			s.Flags = append(s.Flags, actors.Flag{Name: flags[i], Value: flags[i+1]})
		}
		return s
	}
	root, err := workerRun(spec([]string{"motif", "halo3d"}, "torus", "4x4x4", "seed", "3", "set", "ppc.clock=1GHz", "set", "host.clock=2GHz", "workers", "2"), io.Discard, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "3", root.PersistentFlags().Lookup("seed").Value.String())
	assert.Equal(t, "[ppc.clock=1GHz,host.clock=2GHz]", root.PersistentFlags().Lookup("set").Value.String())
	assert.Equal(t, "none", root.PersistentFlags().Lookup("out").Value.String(), "a worker writes no results")
	motif, _, err := root.Find([]string{"motif"})
	require.NoError(t, err)
	assert.Equal(t, "4x4x4", motif.Flags().Lookup("torus").Value.String())
	for _, own := range []processFlags{{hugePages: false, lowPriority: true}, {hugePages: true, lowPriority: false}} {
		root, err := sessionRoot(spec([]string{"phold"}), io.Discard, own)
		require.NoError(t, err)
		assert.Equal(t, strconv.FormatBool(own.hugePages), root.PersistentFlags().Lookup("huge-pages").Value.String(), "the worker's own --huge-pages")
		assert.Equal(t, strconv.FormatBool(own.lowPriority), root.PersistentFlags().Lookup("low-priority").Value.String(), "the worker's own --low-priority")
	}

	// The configuration is the content sent: it runs (a small phold), and an error in it
	// names it as the coordinator's, not a path.
	var out bytes.Buffer
	small := spec([]string{"phold"}, "lps", "16", "end", "20us", "format", "json")
	small.Config = []byte("ppc:\n  clock: 500MHz\n")
	root, err = workerRun(small, &out, io.Discard)
	require.NoError(t, err)
	require.NoError(t, root.Execute())
	assert.Contains(t, out.String(), "digest")
	small.Config = []byte("nonesuch: 1\n")
	root, err = workerRun(small, io.Discard, io.Discard)
	require.NoError(t, err)
	err = root.Execute()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "(the coordinator's configuration)")

	secret := filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(secret, []byte("TOP SECRET CONTENT"), 0o600))
	profile := filepath.Join(dir, "profile.out")
	for name, c := range map[string]struct {
		spec actors.RunSpec
		want string
	}{
		"tracedump":          {spec([]string{"tracedump", secret}), `"tracedump" is not a simulation`},
		"sweep":              {spec([]string{"sweep"}, "bench", "rawdma"), `"sweep" is not a simulation`},
		"params":             {spec([]string{"params"}), `"params" is not a simulation`},
		"worker":             {spec([]string{"worker"}, "listen", "0.0.0.0:1"), `"worker" is not a simulation`},
		"config by path":     {spec([]string{"phold"}, "config", secret), "flag --config is not taken"},
		"cpuprofile":         {spec([]string{"phold"}, "cpuprofile", profile), "flag --cpuprofile is not taken"},
		"trace file":         {spec([]string{"bench", "portalperf"}, "trace-file", profile), "flag --trace-file is not taken"},
		"trace ring":         {spec([]string{"bench", "portalperf"}, "trace-ring", profile), "flag --trace-ring is not taken"},
		"out":                {spec([]string{"phold"}, "out", dir), "flag --out is not taken"},
		"peers":              {spec([]string{"phold"}, "peers", "127.0.0.1:1"), "flag --peers is not taken"},
		"huge pages":         {spec([]string{"phold"}, "huge-pages", "false"), "flag --huge-pages is not taken"},
		"stray argument":     {spec([]string{"phold", secret}), "phold takes no argument"},
		"shorthand":          {spec([]string{"phold"}, "h", ""), "flag --h is not taken"},
		"unknown bench":      {spec([]string{"bench", "nonesuch"}), `unknown command "bench nonesuch"`},
		"unknown motif":      {spec([]string{"motif", "nonesuch"}), `unknown command "motif nonesuch"`},
		"motif and more":     {spec([]string{"motif", "halo3d", secret}), "motif takes a name and nothing else"},
		"nothing":            {spec(nil), "no command"},
		"bad value":          {spec([]string{"phold"}, "seed", "many"), "--seed: "},
		"help":               {spec([]string{"phold"}, "help", "true"), "flag --help is not taken"},
		"bench without name": {spec([]string{"bench"}, "sizes", "8"), "bench takes a name"},
	} { //lint:ordered independent cases
		_, err := workerRun(c.spec, io.Discard, io.Discard)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), c.want, name)
		assert.NotContains(t, err.Error(), "TOP SECRET", name)
	}
	_, err = os.Stat(profile)
	assert.True(t, os.IsNotExist(err), "no file created")
}
