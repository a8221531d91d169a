package conform

import (
	"encoding/binary"
	"math"

	"github.com/seastar-sim/seastar/protocols/portals4/ptl4"
)

// check is run.c's check_attr: every attribute must hold. report says whether a
// mismatch is a failure to report (check) or a false condition (if).
func (r *run) check(in *info, n *Node, report bool) int {
	offset, length, typ := uint64(0), uint64(1), ptl4.Uint8
	var data *string
	fail := func(attr string, got, want any) int {
		if report {
			return r.failf(n, "%s: got %v, want %v", attr, got, want)
		}
		return 1
	}
	for _, a := range n.Attrs {
		val := a.Value
		num := func() int64 { return number(in, val) }
		var got, want int64
		switch a.Name.Local {
		case "err":
			got, want = in.err, lookupOr(val, retNames)
		case "thread_id":
			got, want = in.threadID, num()
		case "actual_max_entries":
			got, want = int64(in.actual.MaxEntries), num()
		case "actual_max_mds":
			got, want = int64(in.actual.MaxMDs), num()
		case "actual_max_eqs":
			got, want = int64(in.actual.MaxEQs), num()
		case "actual_max_cts":
			got, want = int64(in.actual.MaxCTs), num()
		case "actual_max_iovecs":
			got, want = int64(in.actual.MaxIovecs), num()
		case "actual_max_list_size":
			got, want = int64(in.actual.MaxListSize), num()
		case "actual_max_msg_size":
			got, want = int64(in.actual.MaxMsgSize), num()
		case "actual_max_atomic_size":
			got, want = int64(in.actual.MaxAtomicSize), num()
		case "actual_max_pt_index":
			got, want = int64(in.actual.MaxPTIndex), num()
		case "actual_max_unexpected_headers":
			got, want = int64(in.actual.MaxUnexpectedHeaders), num()
		case "actual_features":
			got, want = int64(in.actual.Features), int64(mask(val, featureNames, featureMask))
		case "which":
			got, want = int64(uint32(in.which)), int64(uint32(num()))
		case "event_type":
			got, want = int64(in.event.Type), int64(uint32(lookupOr(val, eventNames)))
			if got != want {
				return fail(a.Name.Local, ptl4.EventKind(got), ptl4.EventKind(want))
			}
		case "event_nid":
			got, want = int64(in.event.Initiator.NID), int64(uint32(num()))
		case "event_pid":
			got, want = int64(in.event.Initiator.PID), int64(uint32(num()))
		case "event_rank":
			got, want = int64(in.event.Initiator.NID), int64(uint32(num()))
		case "event_pt_index":
			got, want = int64(in.event.PTIndex), int64(uint32(num()))
		case "event_uid":
			got, want = int64(in.event.UID), int64(uint32(num()))
		case "event_match":
			got, want = int64(in.event.MatchBits), num()
		case "event_rlength":
			got, want = int64(in.event.RLength), num()
		case "event_mlength":
			got, want = int64(in.event.MLength), num()
		case "event_offset":
			got, want = int64(in.event.RemoteOffset), num()
		case "event_start":
			got, want = int64(in.event.Start), int64(ptrValue(val))
		case "event_user_ptr":
			got, want = int64(in.event.UserPtr), int64(ptrValue(val))
		case "event_hdr_data":
			got, want = int64(in.event.HdrData), num()
		case "event_ni_fail":
			got, want = int64(in.event.NIFail), int64(uint32(lookupOr(val, niFailNames)))
		case "event_atom_op":
			got, want = int64(in.event.AtomicOp), int64(uint32(lookupOr(val, opNames)))
		case "event_atom_type":
			got, want = int64(in.event.AtomicType), int64(uint32(num()))
		case "event_ptl_list":
			got, want = int64(in.event.List), int64(uint32(lookupOr(val, listNames)))
		case "ct_event_success":
			got, want = int64(in.ctEvent.Success), num()
		case "ct_event_failure":
			got, want = int64(in.ctEvent.Failure), num()
		case "length":
			length = uint64(num())
			continue
		case "offset":
			offset = uint64(num())
			continue
		case "type":
			typ = ptl4.Datatype(lookupOr(val, typeNames))
			continue
		case "md_data", "le_data", "me_data":
			v := val
			data = &v
			continue
		case "rank":
			got, want = int64(in.id.NID), int64(uint32(num()))
		default:
			if report {
				return r.failf(n, "unexpected check attribute %s", a.Name.Local)
			}
			return 1
		}
		if got != want {
			return fail(a.Name.Local, got, want)
		}
	}
	if data != nil {
		if msg := r.checkData(in, *data, offset, typ, length); msg != "" {
			if report {
				return r.failf(n, "%s", msg)
			}
			return 1
		}
	}
	return 0
}

// checkData is run.c's check_data: length bytes of the level's buffer at offset hold
// repeated values val of type t (floats within 1e-6, doubles within 1e-12).
func (r *run) checkData(in *info, val string, offset uint64, t ptl4.Datatype, length uint64) string {
	size := uint64(t.Size())
	if size == 0 {
		return "check of an invalid datatype"
	}
	count := length / size
	if t == ptl4.Int8 || t == ptl4.Uint8 {
		count = length
	}
	b := r.mem().Bytes(in.buf+offset, count*size)
	if b == nil {
		return "check of unmapped memory"
	}
	want := datum(t, val)
	for i := uint64(0); i < count; i++ {
		got := b[i*size : (i+1)*size]
		if !sameDatum(t, got, want[:size]) {
			return "data differs at byte " + itoa(offset+i*size) + " (" + typeLabel(t) + " " + val + ")"
		}
	}
	return ""
}

func itoa(v uint64) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}

func sameDatum(t ptl4.Datatype, got, want []byte) bool {
	near := func(a, b, eps float64) bool { return !(a > b+eps || a < b-eps) }
	f32 := func(b []byte) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))) }
	f64 := func(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }
	switch t {
	case ptl4.Float:
		return near(float64(float32(f32(got))), f32(want), float64(float32(1e-6)))
	case ptl4.FloatComplex:
		return near(f32(got[:4]), f32(want[:4]), float64(float32(1e-6))) && near(f32(got[4:]), f32(want[4:]), float64(float32(1e-6)))
	case ptl4.Double:
		return near(f64(got), f64(want), 1e-12)
	case ptl4.DoubleComplex:
		return near(f64(got[:8]), f64(want[:8]), 1e-12) && near(f64(got[8:]), f64(want[8:]), 1e-12)
	case ptl4.LongDouble:
		return near(ptl4.X87ToFloat64(got), ptl4.X87ToFloat64(want), 1e-12)
	case ptl4.LongDoubleComplex:
		return near(ptl4.X87ToFloat64(got[:16]), ptl4.X87ToFloat64(want[:16]), 1e-12) &&
			near(ptl4.X87ToFloat64(got[16:]), ptl4.X87ToFloat64(want[16:]), 1e-12)
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

var elements = map[string]bool{}
var attributes = map[string]bool{}

func init() {
	for _, n := range []string{"set", "check", "if", "ifdef", "else", "arg_check", "test", "threads", "subtest",
		"desc", "comment", "repeat", "msleep", "get_time", "barrier", "ompi_rt", "ptl", "ptl_init", "ptl_fini",
		"ptl_ni", "ptl_ni_init", "ptl_ni_fini", "ptl_ni_status", "ptl_ni_handle", "ptl_pt", "ptl_pt_alloc",
		"ptl_pt_free", "ptl_pt_disable", "ptl_pt_enable", "ptl_get_uid", "ptl_get_id", "ptl_md", "ptl_md_bind",
		"ptl_md_release", "ptl_le", "ptl_le_append", "ptl_le_unlink", "ptl_le_search", "ptl_me", "ptl_me_append",
		"ptl_me_unlink", "ptl_me_search", "ptl_eq", "ptl_eq_alloc", "ptl_eq_free", "ptl_eq_get", "ptl_eq_wait",
		"ptl_eq_poll", "ptl_ct", "ptl_ct_alloc", "ptl_ct_free", "ptl_ct_get", "ptl_ct_wait", "ptl_ct_poll",
		"ptl_ct_set", "ptl_ct_inc", "ptl_ct_cancel_trig", "ptl_put", "ptl_get", "ptl_atomic", "ptl_atomic_sync",
		"ptl_fetch", "ptl_swap", "ptl_trig_put", "ptl_trig_get", "ptl_trig_atomic", "ptl_trig_fetch",
		"ptl_trig_swap", "ptl_trig_ct_inc", "ptl_trig_ct_set", "ptl_start_bundle", "ptl_end_bundle",
		"ptl_handle_is_equal", "ptl_get_map"} {
		elements[n] = true
	}
	for _, a := range []string{"ret", "err", "ptr", "count", "thread_id", "iface", "ni_opt", "pid", "uid",
		"desired_max_entries", "desired_max_over", "desired_max_mds", "desired_max_eqs", "desired_max_cts",
		"desired_max_pt_index", "desired_max_iovecs", "desired_max_list_size", "desired_max_msg_size",
		"desired_max_atomic_size", "desired_max_volatile_size", "desired_max_unexpected_headers",
		"desired_features", "actual_max_entries", "actual_max_over", "actual_max_mds", "actual_max_eqs",
		"actual_max_cts", "actual_max_pt_index", "actual_max_iovecs", "actual_max_list_size",
		"actual_max_msg_size", "actual_max_atomic_size", "actual_max_volatile_size",
		"actual_max_unexpected_headers", "actual_features", "ni_handle", "reg", "status", "handle", "pt_opt",
		"pt_index", "iov_base", "iovec_len", "md_start", "md_length", "md_opt", "md_handle", "md_data", "list",
		"le_start", "le_length", "le_opt", "le_data", "search_op", "me_start", "me_length", "me_match",
		"me_ignore", "me_opt", "me_min_free", "me_data", "time", "which", "which_ptr", "eq_count", "eq_handle",
		"event_type", "event_nid", "event_pid", "event_rank", "event_pt_index", "event_uid", "event_match",
		"event_rlength", "event_mlength", "event_offset", "event_start", "event_user_ptr", "event_hdr_data",
		"event_ni_fail", "event_atom_op", "event_atom_type", "event_ptl_list", "ct_handle", "ct_event_success",
		"ct_event_failure", "ct_test", "length", "offset", "operand", "type", "loc_offset", "loc_get_offset",
		"loc_put_offset", "rem_offset", "atom_op", "atom_type", "match", "get_md_handle", "put_md_handle",
		"user_ptr", "ack_req", "handle1", "handle2", "threshold", "rank", "target_id", "get_map_size",
		"check_pointer"} {
		attributes[a] = true
	}
}

func isElement(n string) bool { return elements[n] }
func isAttr(a string) bool    { return attributes[a] }

var typeLabels = [...]string{"INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "FLOAT", "INT64", "UINT64",
	"DOUBLE", "COMPLEX", "DCOMPLEX", "LDOUBLE", "LDCOMPLEX"}

func typeLabel(t ptl4.Datatype) string {
	if int(t) < len(typeLabels) {
		return typeLabels[t]
	}
	return "type" + itoa(uint64(t))
}
