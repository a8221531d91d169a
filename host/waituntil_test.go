package host

import (
	"fmt"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// WaitUntil returns a write that lands before the deadline one cache miss after it
// lands, and gives up at the deadline otherwise; the stale timer of a wait that a
// write ended, and the stale wake-up of a wait that timed out, do not disturb later
// waits.
func TestWaitUntilDeadline(t *testing.T) {
	c := New(DefaultParams())
	var got []string
	note := func(p *Proc, m actors.Msg, ok bool) { got = append(got, fmt.Sprintf("%s %v %v", p.Now(), m, ok)) }
	spawn(t, c, "p", 0, func(p *Proc) {
		m, ok := p.WaitUntil(0x10, actors.Time(5*actors.Microsecond)) // written at 1us
		note(p, m, ok)
		m, ok = p.WaitUntil(0x20, actors.Time(3*actors.Microsecond)) // written at 4us: too late
		note(p, m, ok)
		m, ok = p.WaitUntil(0x10, actors.Time(0)) // already there: one cache miss
		note(p, m, ok)
		m, ok = p.WaitUntil(0x30, p.Now()) // deadline passed, nothing there: no wait
		note(p, m, ok)
		m = p.WaitFor(0x40) // written at 6us, after the first wait's stale timer at 5us
		got = append(got, fmt.Sprintf("%s %v", p.Now(), m))
		m = p.WaitFor(0x20) // the write at 4us that came too late is there now
		got = append(got, fmt.Sprintf("%s %v", p.Now(), m))
	})
	h, _ := actorstest.NewHarness("host", c, 1)
	h.Inject(actors.Time(actors.Microsecond), PortBus, record{0x10, "a"})
	h.Inject(actors.Time(4*actors.Microsecond), PortBus, record{0x20, "late"})
	h.Inject(actors.Time(6*actors.Microsecond), PortBus, record{0x40, "b"})
	h.Run(actors.MaxTime)
	assert.Equal(t, []string{
		"1.1us record(0x10 a) true",
		"3us <nil> false",
		"3.1us record(0x10 a) true",
		"3.1us <nil> false",
		"6.1us record(0x40 b)",
		"6.2us record(0x20 late)",
	}, got)
	assert.Empty(t, c.waiters, "a timed-out wait leaves the waiters")
	assert.Zero(t, h.Pending())
}

// A process polling with a deadline far ahead (a retransmission timer) keeps one timer
// resume pending, not one for every wait that a write ended: the armed one, when it
// comes before the deadline of the wait then in progress, is sent again for it, in the
// place that wait reserved. The waits end as they would with a timer each: the writes
// that land in time are returned, the wait whose deadline comes first times out at it.
func TestWaitUntilKeepsOneTimer(t *testing.T) {
	c := New(DefaultParams())
	var got []string
	us := func(n int) actors.Time { return actors.Time(n) * actors.Time(actors.Microsecond) }
	pending := 0
	var h *actorstest.Harness
	spawn(t, c, "p", 0, func(p *Proc) {
		// A write every microsecond; each deadline over 10us ahead, four waits a deadline.
		for i := range 20 {
			m, ok := p.WaitUntil(uint64(0x100+i), us(12+i/4*4))
			got = append(got, fmt.Sprintf("%s %v %v", p.Now(), m, ok))
			pending = max(pending, h.Pending()-(19-i)) // less the writes still to come
		}
		m, ok := p.WaitUntil(0x999, us(30)) // nothing comes: times out at its deadline
		got = append(got, fmt.Sprintf("%s %v %v", p.Now(), m, ok))
	})
	h, _ = actorstest.NewHarness("host", c, 1)
	for i := range 20 {
		h.Inject(us(1+i), PortBus, record{uint64(0x100 + i), fmt.Sprint(i)})
	}
	h.Run(actors.MaxTime)
	require.Len(t, got, 21)
	for i := range 20 {
		assert.Equal(t, fmt.Sprintf("%s record(%#x %d) true", us(1+i).Add(DefaultParams().CacheMiss), 0x100+i, i), got[i])
	}
	assert.Equal(t, "30us <nil> false", got[20])
	assert.LessOrEqual(t, pending, 1, "timer resumes pending at once")
	assert.Zero(t, h.Pending())
}
