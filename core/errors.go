// Package core is the pure-Go side of goabt's Argobots runtime: the slow paths the C engine in
// capi/ comes to (configuration, stream ranks and GOMAXPROCS sizing, the memory of work units:
// descriptors and stacks) and the error names. It never imports "C": memory that C keeps comes
// from mmap, outside Go's heap. The OPAL object system lives in the subpackage core/opal.
package core

// lastErrorCode is the highest Argobots 1.2 error code (ABT_ERR_INV_POOL_USER_DEF).
const lastErrorCode = 57

// errorNames holds the name of every Argobots 1.2 error code, indexed by its value. Argobots
// answers ABT_error_get_str with these names, and programs compare against them.
var errorNames = [lastErrorCode + 1]string{
	"ABT_SUCCESS",
	"ABT_ERR_UNINITIALIZED",
	"ABT_ERR_MEM",
	"ABT_ERR_OTHER",
	"ABT_ERR_INV_XSTREAM",
	"ABT_ERR_INV_XSTREAM_RANK",
	"ABT_ERR_INV_XSTREAM_BARRIER",
	"ABT_ERR_INV_SCHED",
	"ABT_ERR_INV_SCHED_KIND",
	"ABT_ERR_INV_SCHED_PREDEF",
	"ABT_ERR_INV_SCHED_TYPE",
	"ABT_ERR_INV_SCHED_CONFIG",
	"ABT_ERR_INV_POOL",
	"ABT_ERR_INV_POOL_KIND",
	"ABT_ERR_INV_POOL_ACCESS",
	"ABT_ERR_INV_UNIT",
	"ABT_ERR_INV_THREAD",
	"ABT_ERR_INV_THREAD_ATTR",
	"ABT_ERR_INV_TASK",
	"ABT_ERR_INV_KEY",
	"ABT_ERR_INV_MUTEX",
	"ABT_ERR_INV_MUTEX_ATTR",
	"ABT_ERR_INV_COND",
	"ABT_ERR_INV_RWLOCK",
	"ABT_ERR_INV_EVENTUAL",
	"ABT_ERR_INV_FUTURE",
	"ABT_ERR_INV_BARRIER",
	"ABT_ERR_INV_TIMER",
	"ABT_ERR_INV_QUERY_KIND",
	"ABT_ERR_XSTREAM",
	"ABT_ERR_XSTREAM_STATE",
	"ABT_ERR_XSTREAM_BARRIER",
	"ABT_ERR_SCHED",
	"ABT_ERR_SCHED_CONFIG",
	"ABT_ERR_POOL",
	"ABT_ERR_UNIT",
	"ABT_ERR_THREAD",
	"ABT_ERR_TASK",
	"ABT_ERR_KEY",
	"ABT_ERR_MUTEX",
	"ABT_ERR_MUTEX_LOCKED",
	"ABT_ERR_COND",
	"ABT_ERR_COND_TIMEDOUT",
	"ABT_ERR_RWLOCK",
	"ABT_ERR_EVENTUAL",
	"ABT_ERR_FUTURE",
	"ABT_ERR_BARRIER",
	"ABT_ERR_TIMER",
	"ABT_ERR_MIGRATION_TARGET",
	"ABT_ERR_MIGRATION_NA",
	"ABT_ERR_MISSING_JOIN",
	"ABT_ERR_FEATURE_NA",
	"ABT_ERR_INV_TOOL_CONTEXT",
	"ABT_ERR_INV_ARG",
	"ABT_ERR_SYS",
	"ABT_ERR_CPUID",
	"ABT_ERR_INV_POOL_CONFIG",
	"ABT_ERR_INV_POOL_USER_DEF",
}

// ErrorName returns the name of an Argobots error code ("ABT_ERR_INV_THREAD"), and false when
// code is not one.
func ErrorName(code int) (string, bool) {
	if code < 0 || code > lastErrorCode {
		return "", false
	}
	return errorNames[code], true
}
