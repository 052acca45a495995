package core

import (
	"fmt"
	"strings"
	"time"
)

// The hang report: every work unit that is not finished, what each waits on, where it was
// created and, for a parked ULT, the code addresses on its stack. The C engine prints it on
// stderr when its watchdog sees no unit run for GOABT_WATCHDOG seconds while a unit waits with
// nothing due to wake it, and on GOABT_DUMP_SIGNAL (capi/api/info_hang.c gathers the facts);
// HangText makes the text.

// HangWait is what a unit waits on: an ABT_sync_event_type's value (capi checks them), or
// HangSuspended for ABT_self_suspend.
type HangWait int

const (
	HangWaitNone    HangWait = -1 // not waiting
	HangWaitUnknown HangWait = iota - 1
	HangWaitUser
	HangWaitOther // a pool's pop_wait: the object is the pool
	HangWaitStreamJoin
	HangWaitJoin
	HangWaitMutex
	HangWaitCond
	HangWaitRWLock
	HangWaitEventual
	HangWaitFuture
	HangWaitBarrier
	HangSuspended HangWait = 100
)

func (w HangWait) name() string {
	switch w {
	case HangWaitStreamJoin:
		return "join of execution stream"
	case HangWaitJoin:
		return "join of work unit"
	case HangWaitMutex:
		return "mutex"
	case HangWaitCond:
		return "condition variable"
	case HangWaitRWLock:
		return "readers-writer lock"
	case HangWaitEventual:
		return "eventual"
	case HangWaitFuture:
		return "future"
	case HangWaitBarrier:
		return "barrier"
	case HangWaitOther:
		return "pool pop"
	case HangSuspended:
		return "suspend (only ABT_thread_resume wakes it)"
	}
	return "unknown wait"
}

// HangUnit is one unit of the report.
type HangUnit struct {
	InfoUnit
	Wait     HangWait
	Object   Addr // the waited-on object's handle (for a join, the unit or stream joined)
	Deadline bool // a timed wait: it wakes by itself
}

// HangStream is an execution stream of the report: what runs on it.
type HangStream struct {
	Rank    int
	Primary bool
	Running uint64 // the id of the unit it runs, when HasUnit
	HasUnit bool
	Tasklet bool
}

// HangReport is what the report shows. Watchdog is GOABT_WATCHDOG's period when the watchdog
// found the hang; else Signal is the signal that asked for it, or 0 for a call
// (goabt_info_print_units).
type HangReport struct {
	Watchdog time.Duration
	Quiet    time.Duration // how long no unit had run
	Signal   int
	Streams  []HangStream
	Units    []HangUnit
}

// Waiting says how many of the report's units wait with nothing due to wake them: the
// watchdog reports only when some do.
func (r HangReport) Waiting() int {
	n := 0
	for _, u := range r.Units {
		if u.Wait != HangWaitNone && !u.Deadline {
			n++
		}
	}
	return n
}

// HangText is the report; every line starts with "goabt: ", so that it stands out in a job's
// stderr and can be grepped out of it.
func HangText(r HangReport, code CodeLookup) string {
	var b strings.Builder
	line := func(format string, args ...any) {
		b.WriteString("goabt: ")
		fmt.Fprintf(&b, format, args...)
		b.WriteString("\n")
	}
	switch {
	case r.Watchdog > 0:
		line("watchdog (GOABT_WATCHDOG=%v): no work unit has run for %.1f s while %d wait with nothing due to wake them",
			r.Watchdog.Seconds(), r.Quiet.Seconds(), r.Waiting())
	case r.Signal != 0:
		line("signal %d (GOABT_DUMP_SIGNAL): the work units", r.Signal)
	default:
		line("goabt_info_print_units: the work units")
	}
	line("%d work units not finished, %d execution streams", len(r.Units), len(r.Streams))
	for _, s := range r.Streams {
		what := "its scheduler (no unit)"
		if s.HasUnit {
			kind := "ULT"
			if s.Tasklet {
				kind = "tasklet"
			}
			what = fmt.Sprintf("%s %d", kind, s.Running)
		}
		primary := ""
		if s.Primary {
			primary = " (primary)"
		}
		line("execution stream %d%s: running %s", s.Rank, primary, what)
	}
	for _, u := range r.Units {
		state := u.State.infoName()
		switch {
		case u.Wait == HangWaitNone:
		case u.Object != 0:
			state += ", waiting on " + u.Wait.name() + " " + cptr(u.Object)
		default:
			state += ", waiting on " + u.Wait.name()
		}
		if u.Deadline {
			state += " (timed: it wakes by itself)"
		}
		line("")
		line("%s %d [%s]", u.kindName(), u.ID, state)
		if u.Main {
			line("  function: main (the program's main thread)")
		} else {
			line("  function: %s, argument %s", code.describeCode(u.Func), cptr(u.Arg))
		}
		where := "no pool"
		if u.Pool != 0 {
			where = fmt.Sprintf("pool %d", u.PoolID)
		}
		if u.LastStream >= 0 {
			where += fmt.Sprintf(", last on execution stream %d", u.LastStream)
		} else {
			where += ", not run yet"
		}
		line("  %s", where)
		if len(u.Words) == 0 {
			continue
		}
		line("  code addresses on its stack, newest first:")
		found := 0
		for _, w := range u.Words {
			if code.IsCode == nil || !code.IsCode(Addr(w)) {
				continue
			}
			line("    %s", code.describeCode(Addr(w)))
			found++
		}
		if found == 0 {
			line("    none")
		}
	}
	line("end of the work units")
	return b.String()
}
