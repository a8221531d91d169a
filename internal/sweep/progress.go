package sweep

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Progress reports a sweep's progress on stderr: a bar with the points done and
// the estimated time left, redrawn in place on a terminal (and every second, so that
// the clock moves while long points run), or a plain line per finished point
// otherwise ("sweep: 3/8 points, ETA 12s"), or nothing when quiet. Its methods are
// safe for concurrent use by the sweep's workers.
type Progress struct {
	mu      sync.Mutex
	w       io.Writer // nil: quiet
	tty     bool
	total   int // points in the sweep
	done    int // points finished, including those kept by --resume
	failed  int
	skipped int       // points finished before this run
	start   time.Time // when this run started its points
	stop    chan struct{}
	stopped sync.WaitGroup
}

// barWidth is the width of the progress bar in characters.
const barWidth = 30

// redrawEvery is how often a terminal bar is redrawn while no point finishes.
const redrawEvery = time.Second

// NewProgress starts the report of a sweep of total points of which skipped
// are finished already and the rest run jobs at a time.
func NewProgress(w io.Writer, quiet bool, total, skipped, jobs int) *Progress {
	p := &Progress{total: total, done: skipped, skipped: skipped, start: time.Now()}
	if quiet {
		return p
	}
	p.w, p.tty = w, IsTerminal(w)
	head := fmt.Sprintf("sweep: %d points", total)
	if skipped > 0 {
		head += fmt.Sprintf(", %d finished before (--resume)", skipped)
	}
	head += fmt.Sprintf(", %d to run, %d at a time", total-skipped, jobs)
	fmt.Fprintln(w, head)
	if p.tty {
		p.stop = make(chan struct{})
		p.stopped.Add(1)
		go p.tick()
		p.mu.Lock()
		p.draw()
		p.mu.Unlock()
	}
	return p
}

func (p *Progress) tick() {
	defer p.stopped.Done()
	t := time.NewTicker(redrawEvery)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
		}
	}
}

// PointDone records a finished (ok) or failed point.
func (p *Progress) PointDone(ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if !ok {
		p.failed++
	}
	if p.w == nil {
		return
	}
	if p.tty {
		p.draw()
		return
	}
	fmt.Fprintln(p.w, p.line())
}

// Finish ends the report: a terminal bar is completed with a newline.
func (p *Progress) Finish() {
	if p.stop != nil {
		close(p.stop)
		p.stopped.Wait()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil {
		return
	}
	elapsed := time.Since(p.start)
	msg := fmt.Sprintf("sweep: %d/%d points in %s", p.done, p.total, RoundDuration(elapsed))
	if p.failed > 0 {
		msg += fmt.Sprintf(", %d failed", p.failed)
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s %s\n", p.bar(), msg)
		return
	}
	fmt.Fprintln(p.w, msg)
}

// line is the plain progress line.
func (p *Progress) line() string {
	s := fmt.Sprintf("sweep: %d/%d points", p.done, p.total)
	if p.failed > 0 {
		s += fmt.Sprintf(" (%d failed)", p.failed)
	}
	return s + ", " + p.eta()
}

// eta estimates the time left from the mean time per point finished by this run.
func (p *Progress) eta() string {
	ran := p.done - p.skipped
	left := p.total - p.done
	elapsed := time.Since(p.start)
	switch {
	case left == 0:
		return "ETA 0s"
	case ran == 0:
		return "ETA unknown, " + RoundDuration(elapsed).String() + " elapsed"
	}
	return "ETA " + RoundDuration(time.Duration(float64(elapsed)/float64(ran)*float64(left))).String()
}

func (p *Progress) bar() string {
	n := barWidth * p.done / max(p.total, 1)
	return "[" + strings.Repeat("#", n) + strings.Repeat("-", barWidth-n) + "]"
}

// draw redraws the terminal bar; the caller holds p.mu.
func (p *Progress) draw() {
	fmt.Fprintf(p.w, "\r\033[K%s %d/%d points, %s", p.bar(), p.done, p.total, p.eta())
}

// RoundDuration rounds d for display: to 0.1 s below 10 s, else to the second.
func RoundDuration(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// IsTerminal reports whether w is a terminal (progress is then redrawn in place).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
