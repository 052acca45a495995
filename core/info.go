package core

// The text of ABT_info_print_* and of the stack dump ABT_info_trigger_print_all_thread_stacks
// asks for. The C engine resolves the handle and gathers plain facts, under the locks it needs
// (capi/info_print.c: a snapshot of the fields, the words of a ULT's stack); these functions
// turn them into the text, which C writes to the program's FILE*. Debugging output: nothing
// here is on a hot path.
//
// Every print names its object by kind and by the number a program can ask for: a stream's
// rank, a pool's id, a work unit's id, and the handle's address for schedulers and attributes,
// which have none. Addresses print as C's %p does: 0x... in lower case, "(nil)" for none.
//
// A ULT's stack is printed as a hex dump of the part in use, from its saved stack pointer to the
// top of its stack, followed by the words in it that point into executable code of a loaded
// object (return addresses, mostly), each with the symbol dladdr finds, or the object and
// offset (for addr2line) when the symbol is not exported.

import (
	"encoding/binary"
	"fmt"
	"strings"
	"time"
)

// UnitState is a work unit's state, ABT_thread_state's values (capi checks them).
type UnitState int

const (
	UnitReady UnitState = iota
	UnitRunning
	UnitBlocked
	UnitTerminated
)

// PoolAccess is ABT_pool_access's values (capi checks them).
type PoolAccess int

const (
	PoolAccessPriv PoolAccess = iota
	PoolAccessSPSC
	PoolAccessMPSC
	PoolAccessSPMC
	PoolAccessMPMC
)

// PoolKind says what a pool is: a predefined kind, user-defined, or a Go pool.
type PoolKind int

const (
	PoolKindUnknown PoolKind = iota
	PoolKindFIFO
	PoolKindFIFOWait
	PoolKindRandWS
	PoolKindUser
	PoolKindGo
)

// SchedKind says what a scheduler is: a predefined kind, user-defined, or goabt's loop with a
// Go policy.
type SchedKind int

const (
	SchedKindUnknown SchedKind = iota
	SchedKindDefault
	SchedKindBasic
	SchedKindPrio
	SchedKindRandWS
	SchedKindBasicWait
	SchedKindUser
	SchedKindGo
)

// SchedUse says where a scheduler is used.
type SchedUse int

const (
	SchedUnused SchedUse = iota
	SchedMain            // a stream's main scheduler
	SchedInPool          // stacked: in a pool of another scheduler
)

// DlInfo is what dladdr says of an address: OK false when it knows nothing; HasFile false
// when it names no file; Sym "" (and SymAddr 0) when it names no symbol.
type DlInfo struct {
	OK      bool
	HasFile bool
	File    string
	Base    Addr
	Sym     string
	SymAddr Addr
}

// CodeLookup answers the questions a print asks about code addresses (capi: dladdr and the
// loaded objects' executable segments).
type CodeLookup struct {
	Dladdr func(addr Addr) DlInfo
	IsCode func(addr Addr) bool // a word points into executable code of a loaded object
}

// cptr is C's %p.
func cptr(a Addr) string {
	if a == 0 {
		return "(nil)"
	}
	return fmt.Sprintf("%#x", uint64(a))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// describeCode is "symbol+0x1f in file", "file+0x1234" or "?" for a code address.
func (c CodeLookup) describeCode(addr Addr) string {
	if addr == 0 || c.Dladdr == nil {
		return "?"
	}
	d := c.Dladdr(addr)
	if !d.OK || !d.HasFile {
		return "?"
	}
	file := d.File
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		file = file[i+1:]
	}
	if file == "" {
		file = "the program"
	}
	if d.Sym != "" && d.SymAddr != 0 {
		return fmt.Sprintf("%s+%#x in %s", d.Sym, uint64(addr-d.SymAddr), file)
	}
	return fmt.Sprintf("%s+%#x", file, uint64(addr-d.Base))
}

func (s UnitState) infoName() string {
	switch s {
	case UnitReady:
		return "READY"
	case UnitRunning:
		return "RUNNING"
	case UnitBlocked:
		return "BLOCKED"
	case UnitTerminated:
		return "TERMINATED"
	}
	return "UNKNOWN"
}

func (a PoolAccess) infoName() string {
	switch a {
	case PoolAccessPriv:
		return "PRIV"
	case PoolAccessSPSC:
		return "SPSC"
	case PoolAccessMPSC:
		return "MPSC"
	case PoolAccessSPMC:
		return "SPMC"
	case PoolAccessMPMC:
		return "MPMC"
	}
	return "UNKNOWN"
}

func (k PoolKind) infoName() string {
	switch k {
	case PoolKindGo:
		return "Go pool (goabt_pool_create_go, GOABT_POOL)"
	case PoolKindUser:
		return "user-defined"
	case PoolKindFIFO:
		return "FIFO"
	case PoolKindFIFOWait:
		return "FIFO_WAIT"
	case PoolKindRandWS:
		return "RANDWS"
	}
	return "UNKNOWN"
}

func (k SchedKind) infoName() string {
	switch k {
	case SchedKindGo:
		return "goabt's loop with a Go policy (goabt_sched_create_go, GOABT_SCHED)"
	case SchedKindUser:
		return "user-defined"
	case SchedKindDefault, SchedKindBasic:
		return "BASIC"
	case SchedKindPrio:
		return "PRIO"
	case SchedKindRandWS:
		return "RANDWS"
	case SchedKindBasicWait:
		return "BASIC_WAIT"
	}
	return "UNKNOWN"
}

func (u SchedUse) infoName() string {
	switch u {
	case SchedMain:
		return "main scheduler of a stream"
	case SchedInPool:
		return "stacked (in a pool of another scheduler)"
	}
	return "unused"
}

// InfoPool is a pool as ABT_info_print_pool shows it.
type InfoPool struct {
	Addr      Addr
	ID        int
	Kind      PoolKind
	Access    PoolAccess
	Automatic bool
	HasSize   bool // false: a user pool without get_size
	Size      uint64
	Blocked   int64
	Scheds    int
	Data      Addr
}

// WritePool writes p, each line after indent.
func WritePool(b *strings.Builder, p InfoPool, in string) {
	fmt.Fprintf(b, "%s== pool %d (%s) ==\n", in, p.ID, cptr(p.Addr))
	fmt.Fprintf(b, "%s id         : %d\n", in, p.ID)
	fmt.Fprintf(b, "%s kind       : %s\n", in, p.Kind.infoName())
	fmt.Fprintf(b, "%s access     : %s\n", in, p.Access.infoName())
	fmt.Fprintf(b, "%s automatic  : %s\n", in, yesNo(p.Automatic))
	if p.HasSize {
		fmt.Fprintf(b, "%s size       : %d\n", in, p.Size)
	} else {
		fmt.Fprintf(b, "%s size       : unknown (no get_size)\n", in)
	}
	fmt.Fprintf(b, "%s blocked    : %d\n", in, p.Blocked)
	fmt.Fprintf(b, "%s schedulers : %d\n", in, p.Scheds)
	fmt.Fprintf(b, "%s data       : %s\n", in, cptr(p.Data))
}

// InfoSched is a scheduler as ABT_info_print_sched shows it, with its pools in priority order.
type InfoSched struct {
	Addr      Addr
	Kind      SchedKind
	Used      SchedUse
	Automatic bool
	FinishReq bool
	ExitReq   bool
	Data      Addr
	Pools     []InfoPool
}

// WriteSched writes sc, and each of its pools below it when withPools.
func WriteSched(b *strings.Builder, sc InfoSched, in string, withPools bool) {
	fmt.Fprintf(b, "%s== scheduler %s ==\n", in, cptr(sc.Addr))
	fmt.Fprintf(b, "%s kind       : %s\n", in, sc.Kind.infoName())
	fmt.Fprintf(b, "%s used as    : %s\n", in, sc.Used.infoName())
	fmt.Fprintf(b, "%s automatic  : %s\n", in, yesNo(sc.Automatic))
	fmt.Fprintf(b, "%s finish req.: %s\n", in, yesNo(sc.FinishReq))
	fmt.Fprintf(b, "%s exit req.  : %s\n", in, yesNo(sc.ExitReq))
	fmt.Fprintf(b, "%s data       : %s\n", in, cptr(sc.Data))
	fmt.Fprintf(b, "%s pools      : %d:", in, len(sc.Pools))
	for _, p := range sc.Pools {
		fmt.Fprintf(b, " %d", p.ID)
	}
	b.WriteString(" (by id, in priority order)\n")
	if withPools {
		for _, p := range sc.Pools {
			WritePool(b, p, in+"  ")
		}
	}
}

// InfoStream is an execution stream as ABT_info_print_xstream shows it.
type InfoStream struct {
	Addr       Addr
	Rank       int
	Primary    bool
	Terminated bool
	CPUs       []int // the CPUs it may run on; nil: unknown (not printed)
	Running    Addr  // the unit it runs
	FinishReq  bool
	Sched      Addr // its main scheduler; 0: none
	SchedKind  SchedKind
	PoolIDs    []int // its main scheduler's pools
}

// WriteStream writes s.
func WriteStream(b *strings.Builder, s InfoStream, in string) {
	fmt.Fprintf(b, "%s== execution stream %d (%s) ==\n", in, s.Rank, cptr(s.Addr))
	fmt.Fprintf(b, "%s rank       : %d\n", in, s.Rank)
	typ := "secondary"
	if s.Primary {
		typ = "primary"
	}
	fmt.Fprintf(b, "%s type       : %s\n", in, typ)
	state := "RUNNING"
	if s.Terminated {
		state = "TERMINATED"
	}
	fmt.Fprintf(b, "%s state      : %s\n", in, state)
	if s.CPUs != nil {
		fmt.Fprintf(b, "%s CPUs       :", in)
		for _, c := range s.CPUs {
			fmt.Fprintf(b, " %d", c)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "%s running    : %s\n", in, cptr(s.Running))
	fmt.Fprintf(b, "%s finish req.: %s\n", in, yesNo(s.FinishReq))
	if s.Sched != 0 {
		fmt.Fprintf(b, "%s main sched : %s (%s)\n", in, cptr(s.Sched), s.SchedKind.infoName())
		fmt.Fprintf(b, "%s pools      : %d:", in, len(s.PoolIDs))
		for _, id := range s.PoolIDs {
			fmt.Fprintf(b, " %d", id)
		}
		b.WriteString(" (by id)\n")
	}
}

// InfoStreamsText is ABT_info_print_all_xstreams (total, the number of streams, first) or, with
// total < 0, ABT_info_print_xstream.
func InfoStreamsText(total int, streams []InfoStream) string {
	var b strings.Builder
	if total >= 0 {
		fmt.Fprintf(&b, "execution streams: %d\n", total)
	}
	for _, s := range streams {
		WriteStream(&b, s, "")
	}
	return b.String()
}

// InfoUnit is a work unit as ABT_info_print_thread and the stack prints show it.
type InfoUnit struct {
	Valid      bool // false: a pool's print_all handed over something that is no work unit
	Addr       Addr
	ID         uint64
	Tasklet    bool
	Main       bool // the main ULT
	State      UnitState
	LastStream int // rank of the stream it ran on last; -1: none yet
	Pool       Addr
	PoolID     int
	Func, Arg  Addr
	Stack      Addr // lowest usable address; 0: none yet
	StackSize  uint64
	UserStack  bool // the program's stack (ABT_thread_attr_set_stack)
	Mapped     bool // goabt's stack is still its own (not given to other ULTs as it ended)
	Migratable bool
	Named      bool
	// The saved stack pointer (0 before it first ran), the bytes in use from it to the top of
	// the stack, and the words copied from it up (at most InfoStackMax bytes; nil when the
	// stack was not read: running, ended, or the pointer is out of its stack).
	SP    Addr
	Used  uint64
	Words []uint64
}

// InfoStackMax is how much of a stack a dump shows at most, nearest its stack pointer (the
// newest frames).
const InfoStackMax = 32 * 1024

func (u InfoUnit) kindName() string {
	switch {
	case u.Tasklet:
		return "tasklet"
	case u.Main:
		return "main ULT"
	}
	return "ULT"
}

// InfoUnitText is ABT_info_print_thread and ABT_info_print_task.
func InfoUnitText(u InfoUnit, code CodeLookup) string {
	var b strings.Builder
	kind := u.kindName()
	fmt.Fprintf(&b, "== %s %d (%s) ==\n", kind, u.ID, cptr(u.Addr))
	fmt.Fprintf(&b, " id         : %d\n", u.ID)
	fmt.Fprintf(&b, " kind       : %s\n", kind)
	fmt.Fprintf(&b, " state      : %s\n", u.State.infoName())
	if u.LastStream >= 0 {
		fmt.Fprintf(&b, " stream     : %d (the last it ran on)\n", u.LastStream)
	} else {
		b.WriteString(" stream     : none yet\n")
	}
	if u.Pool != 0 {
		fmt.Fprintf(&b, " pool       : %d (%s)\n", u.PoolID, cptr(u.Pool))
	} else {
		b.WriteString(" pool       : none\n")
	}
	if u.Main {
		b.WriteString(" function   : main (the program's main thread)\n")
	} else {
		fmt.Fprintf(&b, " function   : %s (%s)\n", cptr(u.Func), code.describeCode(u.Func))
	}
	fmt.Fprintf(&b, " argument   : %s\n", cptr(u.Arg))
	switch {
	case u.Tasklet:
		b.WriteString(" stack      : none (runs on its stream's stack)\n")
	case u.Main:
		b.WriteString(" stack      : the main thread's\n")
	case u.Stack == 0:
		fmt.Fprintf(&b, " stack      : none yet, %d bytes (goabt's, taken when it first runs)\n", u.StackSize)
	default:
		owner := "goabt's, given to other ULTs as it ended"
		if u.UserStack {
			owner = "the program's"
		} else if u.Mapped {
			owner = "goabt's"
		}
		fmt.Fprintf(&b, " stack      : %s, %d bytes (%s)\n", cptr(u.Stack), u.StackSize, owner)
	}
	fmt.Fprintf(&b, " migratable : %s\n", yesNo(u.Migratable))
	fmt.Fprintf(&b, " named      : %s\n", yesNo(u.Named))
	return b.String()
}

// InfoAttr is a ULT attribute as ABT_info_print_thread_attr shows it.
type InfoAttr struct {
	Addr        Addr
	Stack       Addr // the program's, or 0: goabt allocates it
	StackSize   uint64
	Migratable  bool
	Callback    Addr
	CallbackArg Addr
}

// InfoAttrText is ABT_info_print_thread_attr.
func InfoAttrText(a InfoAttr, code CodeLookup) string {
	var b strings.Builder
	fmt.Fprintf(&b, "== ULT attribute %s ==\n", cptr(a.Addr))
	whose := "goabt allocates it"
	if a.Stack != 0 {
		whose = "the program's,"
	}
	fmt.Fprintf(&b, " stack      : %s %s\n", whose, cptr(a.Stack))
	fmt.Fprintf(&b, " stack size : %d\n", a.StackSize)
	fmt.Fprintf(&b, " migratable : %s\n", yesNo(a.Migratable))
	cb := "none"
	if a.Callback != 0 {
		cb = code.describeCode(a.Callback)
	}
	fmt.Fprintf(&b, " migration callback: %s (%s), argument %s\n", cptr(a.Callback), cb, cptr(a.CallbackArg))
	return b.String()
}

// writeStack writes u's stack: a line saying why not, or the dump (top of file).
func writeStack(b *strings.Builder, u InfoUnit, code CodeLookup) {
	switch {
	case u.Tasklet:
		b.WriteString("no stack: a tasklet runs on its stream's stack\n")
		return
	case u.Main:
		b.WriteString("not printed: the main ULT runs on the main thread's stack\n")
		return
	case u.State == UnitRunning:
		b.WriteString("not printed: the ULT is running\n")
		return
	case u.State == UnitTerminated:
		b.WriteString("no stack: the ULT has terminated\n")
		return
	}
	lo, top := u.Stack, u.Stack+Addr(u.StackSize)
	if u.SP == 0 {
		fmt.Fprintf(b, "unused: the ULT has not run yet (stack %s, %d bytes)\n", cptr(lo), u.StackSize)
		return
	}
	if lo == 0 || u.SP < lo || u.SP >= top {
		fmt.Fprintf(b, "not printed: the saved stack pointer %s is outside its stack %s-%s\n",
			cptr(u.SP), cptr(lo), cptr(top))
		return
	}
	fmt.Fprintf(b, "stack %s-%s: %d of %d bytes in use, %d shown, from the saved stack pointer up\n",
		cptr(lo), cptr(top), u.Used, u.StackSize, len(u.Words)*8)
	for i := 0; i < len(u.Words); i += 4 {
		fmt.Fprintf(b, "  %s:", cptr(u.SP+Addr(8*i)))
		for k := i; k < i+4 && k < len(u.Words); k++ {
			fmt.Fprintf(b, " %016x", u.Words[k])
		}
		b.WriteString("\n")
	}
	b.WriteString("code addresses in it, newest first:\n")
	found := 0
	for i, w := range u.Words {
		if code.IsCode == nil || !code.IsCode(Addr(w)) {
			continue
		}
		fmt.Fprintf(b, "  sp+%#x: %016x %s\n", 8*i, w, code.describeCode(Addr(w)))
		found++
	}
	if found == 0 {
		b.WriteString("  none\n")
	}
}

// writeQueued writes one unit of a pool for the stack prints: a header naming it, then its
// stack.
func writeQueued(b *strings.Builder, u InfoUnit, code CodeLookup) {
	if !u.Valid {
		b.WriteString("=== unknown work unit ===\n")
		return
	}
	kind := "ULT"
	if u.Tasklet {
		kind = "tasklet"
	}
	fmt.Fprintf(b, "=== %s %d (%s) ===\n", kind, u.ID, cptr(u.Addr))
	fmt.Fprintf(b, "state: %s\n", u.State.infoName())
	writeStack(b, u, code)
}

// InfoUnitStackText is ABT_info_print_thread_stack.
func InfoUnitStackText(u InfoUnit, code CodeLookup) string {
	var b strings.Builder
	writeQueued(&b, u, code)
	return b.String()
}

// InfoPoolUnits is a pool's queued units for the stack prints.
type InfoPoolUnits struct {
	ID         int
	Addr       Addr
	NoPrintAll bool // a user pool without print_all: its units cannot be listed
	Units      []InfoUnit
}

func writePoolStacks(b *strings.Builder, p InfoPoolUnits, code CodeLookup) {
	fmt.Fprintf(b, "== work units in pool %d (%s) ==\n", p.ID, cptr(p.Addr))
	for _, u := range p.Units {
		writeQueued(b, u, code)
	}
	if p.NoPrintAll {
		b.WriteString("not printed: the pool has no print_all\n")
	}
}

// InfoPoolStacksText is ABT_info_print_thread_stacks_in_pool.
func InfoPoolStacksText(p InfoPoolUnits, code CodeLookup) string {
	var b strings.Builder
	writePoolStacks(&b, p, code)
	return b.String()
}

// InfoDumpStream is a stream as the stack dump names it.
type InfoDumpStream struct {
	Rank    int
	Addr    Addr
	Sched   Addr
	PoolIDs []int
}

// InfoDump is what ABT_info_trigger_print_all_thread_stacks prints: the streams, then the
// stacks of the units in their main schedulers' pools, each pool once.
type InfoDump struct {
	TimedOut         bool
	Arrived, Running int // streams stopped, streams running (said when it timed out)
	Start, End       time.Time
	Streams          []InfoDumpStream
	Pools            []InfoPoolUnits
}

// InfoDumpText is the stack dump.
func InfoDumpText(d InfoDump, code CodeLookup) string {
	var b strings.Builder
	if d.TimedOut {
		fmt.Fprintf(&b, "ABT_info_trigger_print_all_thread_stacks: timed out: %d of %d execution "+
			"streams stopped; printing anyway\n", d.Arrived, d.Running)
	}
	fmt.Fprintf(&b, "Start of ULT stacks, %s\n", d.Start.Format(time.DateTime))
	for _, s := range d.Streams {
		fmt.Fprintf(&b, "= execution stream %d (%s): main scheduler %s, pools:", s.Rank, cptr(s.Addr), cptr(s.Sched))
		for _, id := range s.PoolIDs {
			fmt.Fprintf(&b, " %d", id)
		}
		b.WriteString("\n")
	}
	for _, p := range d.Pools {
		writePoolStacks(&b, p, code)
	}
	fmt.Fprintf(&b, "End of ULT stacks, %s\n", d.End.Format(time.DateTime))
	return b.String()
}

// ConfigQuery is one kind ABT_info_query_config answers, in ABT_info_query_kind's order: its
// name in ABT_info_print_config and the C type it writes.
type ConfigQuery struct {
	Name string
	Type byte // b ABT_bool, u unsigned int, z size_t, q uint64_t, i int
}

// ConfigQueries is every kind, in enum order (capi checks that there is one per kind).
var ConfigQueries = [...]ConfigQuery{
	{"debug", 'b'},
	{"print errno", 'b'},
	{"logging", 'b'},
	{"valgrind support", 'b'},
	{"error checks", 'b'},
	{"pool producer check", 'b'},
	{"pool consumer check", 'b'},
	{"FP control preserved", 'b'},
	{"ULT cancellation", 'b'},
	{"tasklet cancellation", 'b'},
	{"migration", 'b'},
	{"stackable schedulers", 'b'},
	{"external threads", 'b'},
	{"scheduler sleep", 'b'},
	{"print config at init (ABT_PRINT_CONFIG)", 'b'},
	{"stream affinity (ABT_SET_AFFINITY)", 'b'},
	{"max execution streams (ABT_MAX_NUM_XSTREAMS)", 'u'},
	{"default ULT stack size (ABT_THREAD_STACKSIZE)", 'z'},
	{"default scheduler stack size", 'z'},
	{"default scheduler event frequency", 'q'},
	{"default scheduler sleep ns", 'q'},
	{"tool interface", 'b'},
	{"fcontext", 'b'},
	{"dynamic promotion", 'b'},
	{"stack unwinding", 'b'},
	{"stack overflow check (0 none, 1 canary, 2-3 guard page)", 'i'},
	{"wait policy (0 passive, 1 active)", 'i'},
	{"lazy stack allocation", 'b'},
}

// ConfigAnswer is ABT_info_query_config's answer for one kind: OK false if it failed; Raw the
// bytes it wrote (as many as its type has), in the machine's byte order.
type ConfigAnswer struct {
	OK  bool
	Raw [8]byte
}

// value reads the answer as its type says.
func (a ConfigAnswer) value(typ byte) string {
	switch typ {
	case 'b':
		return yesNo(nativeUint32(a.Raw[:4]) != 0)
	case 'u':
		return fmt.Sprint(nativeUint32(a.Raw[:4]))
	case 'z', 'q':
		return fmt.Sprint(nativeUint64(a.Raw[:8]))
	}
	return fmt.Sprint(int32(nativeUint32(a.Raw[:4])))
}

// InfoConfig is what ABT_info_print_config shows beyond the queries' answers.
type InfoConfig struct {
	Version      string // ABT_VERSION
	Answers      [len(ConfigQueries)]ConfigAnswer
	NumStreams   int
	CPUs         int   // CPUs the process may use
	SafetyNS     int64 // 0: off
	GoPool       string
	GoSched      string
	CheckLeaks   LeakCheck
	Affinity     bool
	AffinitySets [][]int // what rank r binds to: set r mod len
}

// InfoConfigText is ABT_info_print_config (and ABT_PRINT_CONFIG at ABT_init).
func InfoConfigText(c InfoConfig) string {
	var b strings.Builder
	fmt.Fprintf(&b, "goabt configuration (Argobots %s API)\n", c.Version)
	for k, q := range ConfigQueries {
		if !c.Answers[k].OK {
			continue
		}
		fmt.Fprintf(&b, " - %s: %s\n", q.Name, c.Answers[k].value(q.Type))
	}
	fmt.Fprintf(&b, " - execution streams now: %d\n", c.NumStreams)
	fmt.Fprintf(&b, " - CPUs the process may use: %d\n", c.CPUs)
	if c.SafetyNS == 0 {
		b.WriteString(" - safety wake-up (GOABT_SAFETY_WAKEUP_MS): off\n")
	} else {
		fmt.Fprintf(&b, " - safety wake-up (GOABT_SAFETY_WAKEUP_MS): %d ms\n", c.SafetyNS/1000000)
	}
	orNone := func(s string) string {
		if s == "" {
			return "none"
		}
		return s
	}
	fmt.Fprintf(&b, " - Go pool replacing predefined pools (GOABT_POOL): %s\n", orNone(c.GoPool))
	fmt.Fprintf(&b, " - Go policy replacing predefined schedulers (GOABT_SCHED): %s\n", orNone(c.GoSched))
	leaks := "no"
	switch c.CheckLeaks {
	case LeakCheckFatal:
		leaks = "fatal"
	case LeakCheckReport:
		leaks = "yes"
	}
	fmt.Fprintf(&b, " - leak report at finalize (GOABT_CHECK_LEAKS): %s\n", leaks)
	if !c.Affinity || len(c.AffinitySets) == 0 {
		b.WriteString(" CPU binding (ABT_SET_AFFINITY): off\n")
		return b.String()
	}
	fmt.Fprintf(&b, " CPU binding (ABT_SET_AFFINITY): rank r on set r mod %d:", len(c.AffinitySets))
	for i, set := range c.AffinitySets {
		if i == 64 {
			break
		}
		if i == 0 {
			b.WriteString(" ")
		} else {
			b.WriteString(",")
		}
		sep := "{"
		for _, cpu := range set {
			fmt.Fprintf(&b, "%s%d", sep, cpu)
			sep = ","
		}
		b.WriteString("}")
	}
	if len(c.AffinitySets) > 64 {
		b.WriteString(",...")
	}
	b.WriteString("\n")
	return b.String()
}

func nativeUint32(b []byte) uint32 { return binary.NativeEndian.Uint32(b) }
func nativeUint64(b []byte) uint64 { return binary.NativeEndian.Uint64(b) }
