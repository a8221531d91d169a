package ptl

import "fmt"

// Limits are the resource limits of a network interface (ptl_ni_limits_t). A field
// left at zero takes its default from DefaultLimits. The access control and getput
// limits of the C structure are absent because this library has neither.
type Limits struct {
	MaxMEs      int `param:"max_mes" help:"match entries per interface" source:"assumed"`
	MaxMDs      int `param:"max_mds" help:"memory descriptors per interface" source:"assumed"`
	MaxEQs      int `param:"max_eqs" help:"event queues per interface" source:"assumed"`
	PtEntries   int `param:"pt_entries" help:"portal table entries (max_pt_index + 1)" source:"Brightwell et al. 2005 s.3.1"`
	MaxMDIovecs int `param:"max_md_iovecs" help:"regions in one PTL_MD_IOVEC descriptor" source:"assumed"`
	MaxMEList   int `param:"max_me_list" help:"match entries on one portal's match list" source:"assumed"`
}

// DefaultLimits returns the limits of a SeaStar Portals interface: a 64-entry portal
// table (Brightwell et al. 2005, s.3.1); the object counts are assumed, large enough
// that benchmarks and MPI-like layers never hit them unless a scenario lowers them.
func DefaultLimits() Limits {
	return Limits{MaxMEs: 4096, MaxMDs: 4096, MaxEQs: 256, PtEntries: 64, MaxMDIovecs: 256, MaxMEList: 4096}
}

// withDefaults fills the zero fields of l from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxMEs == 0 {
		l.MaxMEs = d.MaxMEs
	}
	if l.MaxMDs == 0 {
		l.MaxMDs = d.MaxMDs
	}
	if l.MaxEQs == 0 {
		l.MaxEQs = d.MaxEQs
	}
	if l.PtEntries == 0 {
		l.PtEntries = d.PtEntries
	}
	if l.MaxMDIovecs == 0 {
		l.MaxMDIovecs = d.MaxMDIovecs
	}
	if l.MaxMEList == 0 {
		l.MaxMEList = d.MaxMEList
	}
	return l
}

// Validate reports the first invalid limit, naming its key. Zero fields are valid
// (they take defaults).
func (l Limits) Validate() error {
	switch {
	case l.MaxMEs < 0:
		return fmt.Errorf("max_mes must be >= 1 (got %d)", l.MaxMEs)
	case l.MaxMDs < 0:
		return fmt.Errorf("max_mds must be >= 1 (got %d)", l.MaxMDs)
	case l.MaxEQs < 0:
		return fmt.Errorf("max_eqs must be >= 1 (got %d)", l.MaxEQs)
	case l.PtEntries < 0 || l.PtEntries > 1<<16:
		return fmt.Errorf("pt_entries must be in 1..65536 (got %d)", l.PtEntries)
	case l.MaxMDIovecs < 0:
		return fmt.Errorf("max_md_iovecs must be >= 1 (got %d)", l.MaxMDIovecs)
	case l.MaxMEList < 0:
		return fmt.Errorf("max_me_list must be >= 1 (got %d)", l.MaxMEList)
	}
	return nil
}

// Config identifies the process that owns a network interface and sets its limits.
type Config struct {
	NID    NID    // node of the process; must not be NIDAny
	PID    PID    // process id on the node; must not be PIDAny
	JID    JID    // job id the process belongs to (stamped on its messages)
	UID    UID    // user id of the process (stamped on its messages)
	Limits Limits // zero fields take DefaultLimits
}

// Validate checks the configuration. Its errors are Errno values, as PtlNIInit's:
// ErrIfaceInvalid for a wildcard node id, ErrPIDInvalid for a wildcard process id,
// ErrNoSpace (wrapped with the key) for a bad limit.
func (c Config) Validate() error {
	if c.NID == NIDAny {
		return ErrIfaceInvalid
	}
	if c.PID == PIDAny {
		return ErrPIDInvalid
	}
	if err := c.Limits.Validate(); err != nil {
		return fmt.Errorf("%w: %v", ErrNoSpace, err)
	}
	return nil
}
