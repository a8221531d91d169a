package cci

import (
	"testing"

	"github.com/seastar-sim/seastar/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Connection setup (Dillow & Atchley 2011 s.IV.A): a request carries the client's
// data and connection type to the server's endpoint; an accepted connection carries
// messages both ways with the type requested; a rejected one reports ErrRefused to the
// client; a request for an endpoint that does not exist is refused by the server's NIC
// (no application involved).
func TestConnectAcceptReject(t *testing.T) {
	w := newWorld(t, "2x2x1", DefaultParams(), nil)
	var (
		reqData  []byte
		reqAttr  Attr
		got      [][]byte
		rejected Status
		noEP     Status
		accepted *Conn
	)
	w.spawn(1, "server", func(pr *Process) error {
		ep, err := pr.Open()
		if err != nil {
			return err
		}
		reqs, acked := 0, false
		for reqs < 2 || !acked || len(got) == 0 { // accept the first request, reject the second
			ev, err := next(ep, EvConnectRequest, EvAccept, EvRecv)
			if err != nil {
				return err
			}
			switch {
			case ev.Type == EvRecv:
				got = append(got, append([]byte(nil), ev.Data...))
				if err := ep.Send(accepted, Bytes([]byte("pong")), nil); err != nil {
					return err
				}
			case ev.Type == EvAccept:
				if ev.Conn != accepted || ev.Context != "ctx" {
					t.Errorf("accept event %v, want the accepted connection and its context", ev)
				}
				acked = true
			case reqs == 0:
				reqData, reqAttr = append([]byte(nil), ev.Data...), ev.Attr
				if accepted, err = ep.Accept(ev, "ctx"); err != nil {
					return err
				}
				reqs++
			default:
				if err := ep.Reject(ev); err != nil {
					return err
				}
				reqs++
			}
			ep.ReturnEvent(ev)
		}
		return drain(ep, nil)
	})
	w.spawn(0, "client", func(pr *Process) error {
		ep, err := pr.Open()
		if err != nil {
			return err
		}
		c, err := Dial(ep, 1, 0, RO, Bytes([]byte("hello")))
		if err != nil {
			return err
		}
		if err := ep.Send(c, Bytes([]byte("ping")), nil); err != nil {
			return err
		}
		if _, err := recvN(ep, 1); err != nil {
			return err
		}
		return nil
	})
	w.spawn(2, "rejected", func(pr *Process) error {
		ep, err := pr.Open()
		if err != nil {
			return err
		}
		pr.p.Compute(50_000_000) // 50 us: after the first client
		_, err = Dial(ep, 1, 0, UU, Size(0))
		rejected = statusOf(err)
		_, err = Dial(ep, 1, 7, UU, Size(0)) // endpoint 7 is not open: refused by the NIC, 100 retries
		noEP = statusOf(err)
		return nil
	})
	w.mustRun()
	assert.Equal(t, []byte("hello"), reqData)
	assert.Equal(t, RO, reqAttr)
	assert.Equal(t, [][]byte{[]byte("ping")}, got)
	assert.Equal(t, ErrRejected, rejected, "rejected by the application")
	assert.Equal(t, ErrRefused, noEP, "refused by the NIC")
	assert.GreaterOrEqual(t, w.fw(1).Stats.Refused, int64(101), "the server's NIC refused every attempt on endpoint 7")
	require.NotNil(t, accepted)
	n, e := accepted.Peer()
	assert.Equal(t, router.NodeID(0), n)
	assert.Equal(t, 0, e)
}

func statusOf(err error) Status {
	var st Status
	for err != nil {
		if s, ok := err.(Status); ok {
			return s
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			break
		}
		err = u.Unwrap()
	}
	if err == nil {
		return OK
	}
	return st + numStatuses
}

// Endpoints (Dillow & Atchley 2011 s.IV.B): each open gets the lowest free id and a
// fresh nonce; the NIC table is bounded; a closed endpoint's id is reused with a new
// nonce.
func TestEndpointsIdsAndNonces(t *testing.T) {
	p := DefaultParams()
	p.Endpoints = 3
	w := newWorld(t, "1x1x1", p, nil)
	var ids []int
	var nonces []uint64
	var full error
	w.spawn(0, "p", func(pr *Process) error {
		var eps []*Endpoint
		for range 3 {
			ep, err := pr.Open()
			if err != nil {
				return err
			}
			eps = append(eps, ep)
			ids, nonces = append(ids, ep.ID), append(nonces, ep.Nonce())
		}
		_, full = pr.Open()
		if err := eps[1].Close(); err != nil {
			return err
		}
		ep, err := pr.Open()
		if err != nil {
			return err
		}
		ids, nonces = append(ids, ep.ID), append(nonces, ep.Nonce())
		return nil
	})
	w.mustRun()
	assert.Equal(t, []int{0, 1, 2, 1}, ids)
	assert.ErrorIs(t, full, ErrNoBuffers)
	seen := map[uint64]bool{}
	for _, n := range nonces {
		assert.False(t, seen[n], "nonces are distinct")
		seen[n] = true
	}
}
