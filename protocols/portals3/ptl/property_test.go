package ptl

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// The dumb reference model: match lists as slices, the match rule bit by bit, MD
// bookkeeping written out longhand. Operations complete at once.
type refMD struct {
	h       MDHandle
	opts    Options
	size    uint64
	off     uint64
	thr     int
	maxSize uint64
	unlink  bool
}

type refME struct {
	h      MEHandle
	id     MatchID
	bits   MatchBits
	ignore MatchBits
	unlink bool
	md     *refMD
}

type refNI struct {
	lists [][]*refME
	drops int
}

func (r *refMD) inactive() bool {
	if r.thr == 0 {
		return true
	}
	return r.opts&MDMaxSize != 0 && r.opts&MDManageRemote == 0 && r.size-r.off < r.maxSize
}

func refBitsMatch(me, msg, ignore MatchBits) bool {
	for i := range 64 {
		bit := MatchBits(1) << i
		if ignore&bit != 0 {
			continue
		}
		if me&bit != msg&bit {
			return false
		}
	}
	return true
}

func (r *refNI) find(h MEHandle) (pt, i int) {
	for p, l := range r.lists {
		for j, e := range l {
			if e.h == h {
				return p, j
			}
		}
	}
	return -1, -1
}

func (r *refNI) remove(h MEHandle) {
	p, i := r.find(h)
	r.lists[p] = slices.Delete(r.lists[p], i, i+1)
}

// deliver is the reference decision for a put or get completed at once.
func (r *refNI) deliver(h Header) (me MEHandle, md MDHandle, off, mlen uint64, ok bool) {
	if int(h.PtIndex) >= len(r.lists) {
		r.drops++
		return
	}
	want := MDOpPut
	if h.Op == OpGet {
		want = MDOpGet
	}
	for _, e := range r.lists[h.PtIndex] {
		idOK := (e.id.NID == NIDAny || e.id.NID == h.Src.NID) && (e.id.PID == PIDAny || e.id.PID == h.Src.PID) &&
			(e.id.JID == JIDAny || e.id.JID == h.SrcJID) && (e.id.UID == UIDAny || e.id.UID == h.SrcUID)
		if !idOK || !refBitsMatch(e.bits, h.MatchBits, e.ignore) {
			continue
		}
		m := e.md
		if m == nil || m.inactive() || m.opts&want == 0 {
			continue
		}
		o := m.off
		if m.opts&MDManageRemote != 0 {
			o = h.RemoteOffset
		}
		if o > m.size {
			continue
		}
		n := h.Length
		if n > m.size-o {
			if m.opts&MDTruncate == 0 {
				continue
			}
			n = m.size - o
		}
		if m.opts&MDManageRemote == 0 {
			m.off += n
		}
		if m.thr != ThreshInf {
			m.thr--
		}
		me, md = e.h, m.h
		if m.inactive() && m.unlink {
			e.md = nil
			if e.unlink {
				r.remove(e.h)
			}
		}
		return me, md, o, n, true
	}
	r.drops++
	return
}

// Property: under random match-list building (attach and insert, before and after),
// MD attachment with random options, unlinks and random messages, the library decides
// exactly like the reference model: same entry, same MD, same offset and length, same
// drops, same lists, same MD state.
func TestMatcherAgreesWithLinearModel(t *testing.T) {
	const pts = 3
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
		ni, err := NewNI(Config{NID: 5, PID: 5, Limits: Limits{PtEntries: pts}})
		require.NoError(t, err)
		ref := &refNI{lists: make([][]*refME, pts)}
		unlinkOp := func(u bool) UnlinkOp {
			if u {
				return Unlink
			}
			return Retain
		}
		pick := func(vals ...uint32) uint32 { return vals[r.IntN(len(vals))] }
		randID := func() MatchID {
			return MatchID{NID: NID(pick(0, 1, 2, ^uint32(0))), PID: PID(pick(0, 1, ^uint32(0))),
				JID: JID(pick(0, 1, ^uint32(0))), UID: UID(pick(0, 1, ^uint32(0)))}
		}
		randBits := func() MatchBits { return MatchBits(pick(0, 1, 2, 3, 0xF0, 0xF1)) }
		randIgnore := func() MatchBits {
			return []MatchBits{0, 0, 1, 3, 0xF, ^MatchBits(0), MatchBits(r.Uint64())}[r.IntN(7)]
		}
		all := func() []*refME {
			var out []*refME
			for _, l := range ref.lists {
				out = append(out, l...)
			}
			return out
		}
		for step := range 250 {
			switch k := r.IntN(10); {
			case k < 2: // attach
				pt := PtIndex(r.IntN(pts))
				e := &refME{id: randID(), bits: randBits(), ignore: randIgnore(), unlink: r.IntN(2) == 0}
				pos := InsPos(r.IntN(2))
				h, err := ni.MEAttach(pt, e.id, e.bits, e.ignore, unlinkOp(e.unlink), pos)
				require.NoError(t, err)
				e.h = h
				if pos == InsBefore {
					ref.lists[pt] = slices.Insert(ref.lists[pt], 0, e)
				} else {
					ref.lists[pt] = append(ref.lists[pt], e)
				}
			case k < 3: // insert relative to an existing entry
				es := all()
				if len(es) == 0 {
					continue
				}
				base := es[r.IntN(len(es))]
				e := &refME{id: randID(), bits: randBits(), ignore: randIgnore(), unlink: r.IntN(2) == 0}
				pos := InsPos(r.IntN(2))
				h, err := ni.MEInsert(base.h, e.id, e.bits, e.ignore, unlinkOp(e.unlink), pos)
				require.NoError(t, err)
				e.h = h
				p, i := ref.find(base.h)
				if pos == InsAfter {
					i++
				}
				ref.lists[p] = slices.Insert(ref.lists[p], i, e)
			case k < 4: // attach an MD to an entry without one
				var free []*refME
				for _, e := range all() {
					if e.md == nil {
						free = append(free, e)
					}
				}
				if len(free) == 0 {
					continue
				}
				e := free[r.IntN(len(free))]
				var opts Options
				for _, o := range []Options{MDOpPut, MDOpGet, MDManageRemote, MDTruncate, MDMaxSize} {
					if r.IntN(2) == 0 {
						opts |= o
					}
				}
				m := &refMD{opts: opts, size: uint64(r.IntN(17)), thr: int(pick(^uint32(0), 0, 1, 2, 3)),
					maxSize: uint64(r.IntN(9)), unlink: r.IntN(2) == 0}
				if m.thr == -1 {
					m.thr = ThreshInf
				}
				h, err := ni.MDAttach(e.h, MD{Length: m.size, Threshold: m.thr, MaxSize: m.maxSize, Options: opts},
					unlinkOp(m.unlink))
				require.NoError(t, err)
				m.h, e.md = h, m
			case k < 5: // explicit unlink of an entry or of an MD
				es := all()
				if len(es) == 0 {
					continue
				}
				e := es[r.IntN(len(es))]
				if e.md != nil && r.IntN(2) == 0 {
					require.NoError(t, ni.MDUnlink(e.md.h))
					e.md = nil
					if e.unlink {
						ref.remove(e.h)
					}
				} else {
					require.NoError(t, ni.MEUnlink(e.h))
					ref.remove(e.h)
				}
			default: // a message
				h := Header{Op: OpPut, Src: ProcessID{NID: NID(r.IntN(3)), PID: PID(r.IntN(2))},
					SrcJID: JID(r.IntN(2)), SrcUID: UID(r.IntN(2)), Dst: ni.ID(), PtIndex: PtIndex(r.IntN(pts + 1)),
					MatchBits: randBits(), Length: uint64(r.IntN(13)), RemoteOffset: uint64(r.IntN(18))}
				if r.IntN(3) == 0 {
					h.Op = OpGet
				}
				wme, wmd, woff, wlen, wok := ref.deliver(h)
				d := ni.DeliverHeader(h)
				require.Equal(t, wok, d.Accepted, "seed %d step %d: %s", seed, step, h)
				if wok {
					require.Equal(t, []any{wme, wmd, woff, wlen}, []any{d.ME, d.MD, d.Offset, d.MLength},
						"seed %d step %d: %s", seed, step, h)
					_, err := ni.Complete(d, false)
					require.NoError(t, err)
				}
			}
			// Same lists, same MD state, same drops. Plain comparisons: this runs
			// millions of times.
			for pt := range pts {
				got, err := ni.MEs(PtIndex(pt))
				require.NoError(t, err)
				if len(got) != len(ref.lists[pt]) {
					t.Fatalf("seed %d step %d portal %d: %d entries, want %d", seed, step, pt, len(got), len(ref.lists[pt]))
				}
				for i, e := range ref.lists[pt] {
					if got[i] != e.h {
						t.Fatalf("seed %d step %d portal %d: entry %d is %s, want %s", seed, step, pt, i, got[i], e.h)
					}
					if e.md == nil {
						continue
					}
					st, err := ni.MDStatus(e.md.h)
					if err != nil || st.ME != e.h || st.Offset != e.md.off || st.MD.Threshold != e.md.thr || st.Active == e.md.inactive() {
						t.Fatalf("seed %d step %d: %s state %+v (%v), want offset %d threshold %d active %v",
							seed, step, e.md.h, st, err, e.md.off, e.md.thr, !e.md.inactive())
					}
				}
			}
			if n, _ := ni.Status(SRDropCount); n != uint64(ref.drops) {
				t.Fatalf("seed %d step %d: %d drops, want %d", seed, step, n, ref.drops)
			}
		}
		require.Zero(t, ni.InFlight())
	}
}
